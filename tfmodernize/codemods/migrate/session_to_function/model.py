"""Session-to-function's model of a TF1 graph: the API tables it classifies calls with, what a
name is bound to (``Value``), what a statement does (``Kind``), and the placeholders, variables
and statements ``GraphUnit`` (graph.py) reads (layers-to-keras also reads the RNN table)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Iterable, Optional

import libcst as cst

from tfmodernize.analysis.tf1_api import HOST_PREFIXES, V2_OFF


CONFIGS = ("ConfigProto", "GPUOptions")
#: Ops returning a list or tuple of tensors (fetched, a list of arrays).
SEQUENCE_OPS = (
    "gradients",
    "nn.moments",
    "nn.weighted_moments",
    "unstack",
    "split",
    "meshgrid",
    "unique",
    "unique_with_counts",
    "linalg.eigh",
    "self_adjoint_eig",
    "linalg.qr",
    "qr",
    "svd",
    "linalg.svd",
    "nn.top_k",
    "math.top_k",
    "hessians",
)
#: Ops whose result may be a structure of tensors (nested, or other than a flat list): outputs
#: and state, the loop variables, whatever the mapped or called function returns.
STRUCTURE_OPS = (
    "nn.dynamic_rnn",
    "nn.static_rnn",
    "nn.bidirectional_dynamic_rnn",
    "nn.static_bidirectional_rnn",
    "nn.raw_rnn",
    "while_loop",
    "cond",
    "case",
    "switch_case",
    "map_fn",
    "scan",
    "foldl",
    "foldr",
    "py_func",
    "py_function",
    "numpy_function",
    "identity_n",
    "tuple",
    "nn.fused_batch_norm",
    "nn.sufficient_statistics",
    "nn.max_pool_with_argmax",
    "nn.ctc_beam_search_decoder",
    "nn.ctc_greedy_decoder",
    "nest.map_structure",
    "nest.flatten",
    "nest.pack_sequence_as",
    "custom_gradient",
    "recompute_grad",
)
#: Expressions making a structure of values: literals and comprehensions.
STRUCTURES = (cst.List, cst.Tuple, cst.Dict, cst.ListComp, cst.DictComp)
#: Methods of TF1 objects returning a structure of tensors: an optimizer's (gradient, variable)
#: pairs.
STRUCTURE_METHODS = ("compute_gradients",)
#: RNN builders: they create their cells' variables when called.
RNN_PREFIXES = (
    "nn.dynamic_rnn",
    "nn.static_rnn",
    "nn.bidirectional_dynamic_rnn",
    "nn.raw_rnn",
    "nn.rnn_cell.",
    "nn.static_bidirectional_rnn",
)
#: Calls that only reset or force graph mode: gone once the program is migrated.
GRAPH_MODE_SWITCHES = ("reset_default_graph", *V2_OFF)
#: List methods that fill a list in place.
LIST_FILLERS = ("append", "extend", "insert")
STATEFUL_OPS = ("assign", "assign_add", "assign_sub", "scatter_update", "scatter_add", "scatter_sub")
#: Ops whose fetched value is ``None`` in ``sess.run``.
VALUELESS_OPS = ("group",)
#: Ops whose fetch this codemod cannot translate (summaries have their own codemod).
UNKNOWN_OPS = ("no_op", "Print", "print", "py_func", "control_dependencies", "assert_equal", "Assert")
#: Constructs whose semantics a tf.function cannot reproduce: the whole unit is declined.
UNSUPPORTED = (
    ("train.start_queue_runners", "queue runners"),
    ("train.Coordinator", "queue runners"),
    ("train.string_input_producer", "input queues"),
    ("train.input_producer", "input queues"),
    ("train.slice_input_producer", "input queues"),
    ("train.batch", "input queues"),
    ("train.shuffle_batch", "input queues"),
    ("FIFOQueue", "queues"),
    ("RandomShuffleQueue", "queues"),
    ("PaddingFIFOQueue", "queues"),
    ("while_loop", None),
    ("import_graph_def", "an imported graph"),
    ("train.import_meta_graph", "an imported graph"),
    ("saved_model.loader.load", "an imported graph"),
    ("saved_model.load", "an imported graph"),
)
#: What makes a TF1 iterator over a dataset (a method of the dataset, or a ``tf.data`` function
#: taking it); TF2 iterates with ``iter(dataset)``.
ITERATOR_METHODS = ("make_one_shot_iterator", "make_initializable_iterator")
ITERATOR_MAKERS = ("data.make_one_shot_iterator", "data.make_initializable_iterator")
#: Graph methods that look tensors up by name: the tensors of an imported graph.
LOOKUPS = ("get_tensor_by_name", "get_operation_by_name")
#: What a user can do with a program that runs an imported graph.
IMPORTED_HINT = (
    "load a SavedModel with tf.saved_model.load, or wrap the imported graph with tf.compat.v1.wrap_function, by hand"
)
#: API families whose calls make an object (kept where it is), not a tensor. ``examples.``:
#: the tutorials' dataset readers (``input_data.read_data_sets``) return numpy arrays.
OBJECT_PREFIXES = ("train.", "keras.", "initializers.", "summary.FileWriter", "estimator.", "examples.")


def builds_ops(calls: Iterable[tuple[str, cst.Call]]) -> bool:
    """Whether TF calls (``tf_calls``) of a function build ops: any outside the host-only API."""
    return any(not path.startswith(HOST_PREFIXES) for path, _ in calls)


#: Objects that hold variables rather than compute from them (a checkpoint of ``w`` is no tensor of ``w``).
OBJECTS_OVER_VARIABLES = (
    "train.Checkpoint",
    "train.CheckpointManager",
    "train.ExponentialMovingAverage",
)
#: Objects whose methods create variables when they run: ``ema.apply([w])`` makes each
#: variable's shadow copy.
VARIABLE_MAKING_OBJECTS = {"train.ExponentialMovingAverage": "apply"}


class Value(StrEnum):
    """What a name of the graph is bound to, as a statement binds it (``GraphUnit.kind``);
    also what a fetched element is."""

    PLACEHOLDER = "placeholder"
    VARIABLE = "variable"
    #: computed from placeholders, variables or random ops: runs in a function
    DYNAMIC = "dynamic"
    #: computed from constants: its eager value is what TF1 computed
    STATIC = "static"
    #: an op whose fetched value is None (``minimize``, ``tf.group``)
    OP = "op"
    #: built once and kept (an optimizer, a Keras layer, a writer)
    OBJECT = "object"
    SESSION = "session"
    INIT = "init"
    CONFIG = "config"
    FEED = "feed"
    GRAPH = "graph"
    #: a dataset iterator (``dataset.make_initializable_iterator()``): ``iter(dataset)`` in TF2
    ITERATOR = "iterator"
    #: an op this codemod cannot translate (a summary, ``tf.no_op``)
    UNKNOWN = "unknown"


class Kind(StrEnum):
    """What a statement of a unit does."""

    PLACEHOLDER = "placeholder"
    VARIABLE = "variable"
    OBJECT = "object"
    GRAPH = "graph"
    SESSION = "session"
    INIT = "init"
    CONFIG = "config"
    RESET = "reset"
    RUN = "run"
    FEED = "feed"
    #: ``x.set_shape(...)`` of a placeholder (``GraphUnit._sets_placeholder_shape``)
    SHAPE = "shape"
    ITERATOR = "iterator"
    PLAIN = "plain"


@dataclass
class Placeholder:
    name: str
    dtype: Optional[cst.BaseExpression]
    shape: Optional[cst.BaseExpression]
    default: Optional[cst.BaseExpression]  # placeholder_with_default's input
    statement: "Statement"
    #: An element of a dataset iterator (``x, y = iterator.get_next()``): the iterator's name,
    #: and the names that one ``get_next()`` binds (each run takes one element, all of them).
    iterator: Optional[str] = None
    group: tuple[str, ...] = ()
    #: A boolean placeholder the graph reads only as ``training=`` of layers: Keras layers branch
    #: on it in Python, so the functions take a Python bool (``GraphUnit._find_switches``).
    switch: bool = False
    #: ``x.set_shape([8, 2])`` before any op reads it: the shapes the graph knew, each from the
    #: statement of that index on (the declared one first); ``shape`` is then the last one
    shapes: list[tuple[int, Optional[cst.BaseExpression]]] = field(default_factory=list)

    def shape_at(self, index: int) -> Optional[cst.BaseExpression]:
        """The shape the graph knew of the placeholder at the statement of that index."""
        known = [shape for at, shape in self.shapes if at < index]
        return known[-1] if known else self.shape


@dataclass
class Variable:
    name: str
    trainable: bool
    statement: "Statement"


@dataclass(eq=False)
class Statement:
    """One top-level statement of a unit. ``origin`` is the node in the original tree (for
    positions); ``node`` the same statement with the leading lines of blocks read through."""

    index: int
    node: cst.BaseStatement
    origin: cst.BaseStatement
    kind: Kind
    defs: frozenset[str] = frozenset()
    uses: frozenset[str] = frozenset()
    dynamic: bool = False
    #: a minimize / group op: its fetched value is None
    valueless: bool = False
    #: updates variables (assign, minimize)
    stateful: bool = False
    #: dynamic only because it draws random numbers (an initial value, typically)
    random_only: bool = False
    #: calls a random op (``tf.random_uniform``, ``tf.random.normal``...)
    draws_random: bool = False
    #: what the names this statement binds are (``kind_of`` values), as it binds them
    kinds: dict[str, Value] = field(default_factory=dict)
    #: TF1 optimizer steps (``minimize``, ``apply_gradients``) this statement runs
    minimizes: int = 0
    gradients: int = 0
    #: reads of what a graph tensor is, not its value, by a statement outside the session (or
    #: beside its session calls): ``t.shape`` / ``t.get_shape()`` / ``t.dtype``, ``type(t)``,
    #: ``t`` written as text (``StaticRead``)
    static_reads: list["StaticRead"] = field(default_factory=list)
    #: ``ema.apply([w])`` calls of this statement creating their averages' variables: each is
    #: made once where the statement stands (``plan.prefix``), then updated by the functions
    averages: list[cst.Call] = field(default_factory=list)


@dataclass
class Flattened:
    """The unit's statements with session/graph ``with`` blocks read through."""

    statements: list[tuple[cst.BaseStatement, cst.BaseStatement]] = field(default_factory=list)
    sessions: set[str] = field(default_factory=set)
    #: ``config=`` of the sessions opened, with the index of the statement they precede
    session_configs: list[tuple[cst.BaseExpression, int]] = field(default_factory=list)
    #: the sessions opened by blocks read through: (name, index of the first statement in it)
    openings: list[tuple[str, int]] = field(default_factory=list)
    removed_blocks: list[cst.With] = field(default_factory=list)
    #: the graph and name scope blocks read through: (block, index of its first statement,
    #: index after its last)
    scopes: list[tuple[cst.With, int, int]] = field(default_factory=list)
    #: session blocks inside other statements, dedented where they are
    nested_blocks: list[cst.With] = field(default_factory=list)


# -- names ---------------------------------------------------------------------------------


#: One read of a graph tensor that needs no value: (the node read, the tensor's name, what is
#: read: ``shape``, ``dtype``, ``describe`` (its text) or ``type`` (``type(t)``)).
StaticRead = tuple[cst.BaseExpression, str, str]
