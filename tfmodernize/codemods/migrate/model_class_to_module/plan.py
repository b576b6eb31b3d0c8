"""What a model class becomes, decided before anything is written: one method per model
expression (``Expression``), computing it from the placeholders it depends on, and the
``tf.function``s the runs call (``Run``): an expression method itself when a run fetches it
alone, a train step per train op, a function returning several fetched tensors."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import libcst as cst

from tfmodernize.codemod import Decline
from tfmodernize.codemods.migrate.model_class_to_module.model import (
    ClassModel,
    GraphAPI,
    Kind,
    Node,
    draws_random,
    reads_placeholders_only,
    tf_path,
)
from tfmodernize.codemods.migrate.model_class_to_module.sites import Fetched, Shape, Site, Sites
from tfmodernize.names import fresh_name
from tfmodernize.syntax import commas, source
from tfmodernize.tfsymbols import TFNames
from tfmodernize.treewalk import walk

#: TF ops whose result has another dtype than their operands.
DTYPE_CHANGING = (
    "cast",
    "to_float",
    "to_double",
    "to_int32",
    "to_int64",
    "argmax",
    "argmin",
    "math.argmax",
    "math.argmin",
    "equal",
    "not_equal",
    "less",
    "less_equal",
    "greater",
    "greater_equal",
    "shape",
    "size",
    "rank",
    "one_hot",
    "logical_and",
    "logical_or",
    "logical_not",
    "bitcast",
    "complex",
    "math.real",
    "math.imag",
)

#: TF ops drawing random values of their own, float32 unless given ``dtype=``.
FLOAT_DRAWS = (
    "random_normal",
    "random_uniform",
    "truncated_normal",
    "random.normal",
    "random.uniform",
    "random.truncated_normal",
)

#: Words of a train op's name that only say it trains (``d_train_op`` trains ``d``).
TRAIN_WORDS = frozenset({"train", "training", "op", "ops", "optimizer", "opt", "step", "update", "minimize"})


@dataclass
class Expression:
    """The method computing one model expression from the placeholders it depends on."""

    node: Node
    method: str
    #: The placeholders it depends on (keys), in the order ``__init__`` makes them.
    params: list[str]
    #: The locals of ``__init__`` only this expression reads, computed in its method.
    folded: list[Node] = field(default_factory=list)
    #: The expressions (keys) its statements read.
    reads: list[str] = field(default_factory=list)
    #: Whether a run calls it from eager code: then it is a tf.function with an input signature.
    decorated: bool = False


@dataclass
class Run:
    """A tf.function a run calls: ``train`` (a train op's step) or several fetched tensors."""

    name: str
    params: list[str]
    train: Optional[Node]
    returned: list[str]
    shape: Shape


@dataclass
class ForeignCall:
    """A run of a graph class's object: ``self.<obj>.<method>(<params>)``."""

    obj: str
    method: str
    #: The placeholder names it takes, in order.
    params: list[str]


@dataclass
class ClassPlan:
    model: ClassModel
    sites: Sites
    expressions: dict[str, Expression] = field(default_factory=dict)
    runs: list[Run] = field(default_factory=list)
    #: Each run site (by the id of its call) -> the function it calls: a run, or an expression.
    called: dict[int, "Run | Expression | ForeignCall"] = field(default_factory=dict)
    #: The attribute each train op's optimizer is kept in, by the train op's key.
    optimizer_attributes: dict[str, str] = field(default_factory=dict)
    #: Why the rewrite draws other random numbers than TF1 (None: it draws the same).
    random: Optional[str] = None
    #: The random values drawn apart, by key -> the method drawing each: a tf.function traced
    #: once, in ``__init__``; each run calls it and hands the value to its own function.
    drawn: dict[str, str] = field(default_factory=dict)
    taken: set[str] = field(default_factory=set)
    #: The tensors a run feeds (TF1 replaced their value): the expressions reading them take
    #: them as parameters, computed by the caller unless fed.
    fed: set[str] = field(default_factory=set)
    #: The dtype (a TF path: ``float32``) of each fed tensor, for input signatures.
    dtypes: dict[str, str] = field(default_factory=dict)
    #: A graph class's methods (``GraphAPI``), for the code running its graph.
    api: Optional[GraphAPI] = None


def plan_class(model: ClassModel, sites: Sites, tf: TFNames) -> ClassPlan:
    plan = ClassPlan(model, sites, taken=set(model.attributes))
    plan.fed = {
        key for site in sites.runs if site.foreign is None for key in site.feeds if model.nodes[key].kind is Kind.TENSOR
    }
    _plan_drawn(plan, tf)
    for key in sorted(plan.fed):
        dtype = dtype_of(model, key, tf)
        if dtype is None:
            raise Decline(
                model.nodes[key].statement,
                f"a run feeds `{key}`, a tensor whose dtype this migration cannot tell",
            )
        plan.dtypes[key] = dtype
    _plan_expressions(plan)
    _plan_optimizers(plan)
    if model.graph_only:
        _plan_graph_api(plan)
    for site in sites.runs:
        if site.foreign is not None:
            _plan_foreign(plan, site)
        else:
            _plan_site(plan, site)
    _check_draws(plan)
    if model.graph_only and model.summaries and plan.random is not None:
        # The code running the graph computes the summarized tensors apart from the step.
        why = f"a summary is made in a graph that draws: {plan.random}"
        raise Decline(model.summaries[0][1], why)
    return plan


def _plan_graph_api(plan: ClassPlan) -> None:
    """A graph class's tensors are public tf.functions named after them; each train op a step
    named after it, returning its loss (the code running the graph fetched it with the step)."""
    model = plan.model
    for expression in plan.expressions.values():
        if expression.node.attribute:
            expression.decorated = True
    for train in model.of(Kind.TRAIN):
        loss = train.reads[0]
        plan.runs.append(Run(train.name, list(plan.expressions[loss].params), train, [loss], Shape.SINGLE))
    for _, tag, key in model.summaries:
        if not model.nodes[key].attribute:
            raise Decline(tag, f"a summary is of `{key}`, a local of `__init__` no method computes")
    plan.api = GraphAPI(
        {e.node.name: tuple(model.nodes[p].name for p in e.params) for e in plan.expressions.values() if e.decorated},
        {r.name: (model.nodes[r.returned[0]].name, tuple(model.nodes[p].name for p in r.params)) for r in plan.runs},
        tuple(n.name for n in model.of(Kind.VARIABLE) if n.attribute),
        tuple(n.name for n in model.of(Kind.PLACEHOLDER)),
        tuple(n.name for n in model.of(Kind.INIT) if n.attribute),
        tuple((kind, source(tag), model.nodes[key].name) for kind, tag, key in model.summaries),
    )


def _plan_foreign(plan: ClassPlan, site: Site) -> None:
    """A run of a graph class's object: one of the methods it has (``GraphAPI``), with the values
    of the placeholders it takes all fed; a train op with its loss or alone; its initializer."""
    api = plan.model.foreign[site.foreign]
    kinds = {f.kind for f in site.fetches}
    if kinds <= {Fetched.VARIABLE, Fetched.INIT}:
        return
    members = [f.key.split(".")[2] for f in site.fetches]
    train = site.train
    if train is not None:
        step = train.key.split(".")[2]
        loss, params = api.trains[step]
        if any(m not in (step, loss) for m in members):
            raise Decline(site.call, "the session run fetches more of the graph than a train op and its loss")
        method = step
    elif len(members) == 1:
        method, params = members[0], api.tensors[members[0]]
    else:
        raise Decline(site.call, "the session run fetches several tensors of another object's graph")
    fed = {key.split(".")[2]: value for key, value in site.feeds.items()}
    missing = [p for p in params if p not in fed]
    if missing:
        raise Decline(site.call, f"the run does not feed `{missing[0]}`, which its fetches need")
    for name, value in fed.items():
        if name not in params and any(isinstance(n, cst.Call) for n in walk(value, code_only=True)):
            raise Decline(value, f"the run feeds `{name}`, which it does not need, a value computed by calls")
    plan.called[id(site.call)] = ForeignCall(site.foreign, method, list(params))


def _plan_expressions(plan: ClassPlan) -> None:
    """Every tensor attribute is a method; a local of ``__init__`` read by one expression only is
    computed in that expression's method, one read by several (or minimized) has its own."""
    model = plan.model
    readers: dict[str, set[str]] = {}
    for node in model.nodes.values():
        for read in node.reads:
            readers.setdefault(read, set()).add(node.key)
    own: list[Node] = []
    owner: dict[str, str] = {}
    for node in reversed(list(model.nodes.values())):
        if node.kind is not Kind.TENSOR:
            continue
        users = readers.get(node.key, set())
        trained = any(model.nodes[u].kind is Kind.TRAIN for u in users)
        if node.attribute or len(users) > 1 or trained or node.key in plan.drawn:
            own.append(node)
            owner[node.key] = node.key
        elif len(users) == 1:
            owner[node.key] = owner[next(iter(users))]
        # A local nothing reads is dropped: TF1 never ran it.
    for node in reversed(own):
        public = model.graph_only and node.attribute  # named after the tensor it computes
        stem = "_draw_" if node.key in plan.drawn else "_"
        method = node.name if public else fresh_name(f"{stem}{node.name.lstrip('_')}", plan.taken)
        plan.expressions[node.key] = Expression(node, method, [], decorated=node.key in plan.drawn)
        if node.key in plan.drawn:
            plan.drawn[node.key] = method
    for node in model.nodes.values():
        if node.kind is Kind.TENSOR and node.key in owner and owner[node.key] != node.key:
            plan.expressions[owner[node.key]].folded.append(node)
    for expression in plan.expressions.values():
        members = {expression.node.key, *(n.key for n in expression.folded)}
        reads = []
        for member in [*expression.folded, expression.node]:
            for read in member.reads:
                if read not in members and read not in reads and model.nodes[read].kind is Kind.TENSOR:
                    reads.append(read)
        expression.reads = reads
    for expression in plan.expressions.values():  # in __init__ order: what it reads comes first
        wanted = set()
        for member in [*expression.folded, expression.node]:
            wanted |= {r for r in member.reads if model.nodes[r].kind is Kind.PLACEHOLDER}
        expression.reads = [owner[r] for r in expression.reads]
        for read in expression.reads:
            wanted |= {read} if read in plan.fed else set(plan.expressions[read].params)
        expression.params = [key for key in model.nodes if key in wanted]


def _plan_optimizers(plan: ClassPlan) -> None:
    """Where each train op's optimizer is kept: the attribute binding it, or ``self.optimizer``
    (the train op's own attribute name when that is free and nothing else is)."""
    trains = plan.model.of(Kind.TRAIN)
    for train in trains:
        use = train.optimizer
        if use.binding is not None and use.binding.attribute:
            plan.optimizer_attributes[train.key] = use.binding.name
            continue
        base = "optimizer" if len(trains) == 1 else f"{_stem(train.name) or train.name}_optimizer"
        # A graph class keeps the train op's name for its step.
        free = plan.taken - {train.name} if train.name == base and not plan.model.graph_only else plan.taken
        plan.optimizer_attributes[train.key] = fresh_name(base, set(free))
        plan.taken.add(plan.optimizer_attributes[train.key])


def _stem(name: str) -> str:
    return "_".join(w for w in name.split("_") if w and w not in TRAIN_WORDS)


def _plan_site(plan: ClassPlan, site: Site) -> None:
    model = plan.model
    kinds = {f.kind for f in site.fetches}
    if kinds <= {Fetched.VARIABLE, Fetched.EAGER}:
        return
    train = site.train
    tensors = [f.key for f in site.tensors()]
    if any(key in site.feeds for key in tensors):
        raise Decline(site.call, "the run fetches a tensor it feeds")

    def needs(key: str) -> set[str]:
        """The fed values computing ``key`` reads (a value drawn apart: drawn by the run)."""
        if key in site.feeds:
            return {key}
        if key in plan.drawn:
            _draw_for(plan, site, key)
            return {key}
        if model.nodes[key].kind is Kind.PLACEHOLDER:
            raise Decline(site.call, f"the run does not feed `{key}`, which its fetches need")
        found: set[str] = set()
        for param in plan.expressions[key].params:
            found |= needs(param)
        return found

    wanted: set[str] = set()
    for key in tensors:
        wanted |= needs(key)
    if train is not None:
        wanted |= needs(model.nodes[train.key].reads[0])
    for key, value in site.feeds.items():
        if key not in wanted and any(isinstance(n, cst.Call) for n in walk(value, code_only=True)):
            raise Decline(value, f"the run feeds `{key}`, which it does not need, a value computed by calls")
    params = [key for key in model.nodes if key in wanted]
    if train is None and site.shape is Shape.SINGLE and set(plan.expressions[tensors[0]].params) <= set(site.feeds):
        expression = plan.expressions[tensors[0]]
        expression.decorated = True
        plan.called[id(site.call)] = expression
        return
    run = _run_for(plan, model.nodes[train.key] if train is not None else None, tensors, params, site.shape)
    plan.called[id(site.call)] = run


def _run_for(plan: ClassPlan, train: Optional[Node], tensors: list[str], params: list[str], shape: Shape) -> Run:
    """The function a run calls: one per train op and fetched tensors (a run of the train op
    alone shares the step of a run fetching tensors with it), or per fetched tensors."""
    for run in plan.runs:
        if run.train is not train or (train is None and run.shape is not shape):
            continue
        if run.returned == tensors or (train is not None and not tensors):
            return run
        if train is not None and not run.returned and set(run.params) <= set(params):
            run.returned, run.params, run.shape = tensors, params, shape
            return run
    if train is not None:
        trains = plan.model.of(Kind.TRAIN)
        base = "_train_step" if len(trains) == 1 else f"_train_{_stem(train.name) or train.name}_step"
    else:
        names = [plan.expressions[key].node.name for key in tensors]
        fed = [plan.model.nodes[key].name for key in params if key in plan.fed and key not in plan.drawn]
        base = "_compute_" + "_".join(names) if len(names) <= 2 else "_evaluate"
        base += f"_from_{'_'.join(fed)}" if fed and len(names) <= 2 else ""
    run = Run(fresh_name(base, plan.taken), params, train, tensors, shape)
    plan.runs.append(run)
    return run


def _check_draws(plan: ClassPlan) -> None:
    """A random op TF1 drew once per run must be computed once per call of a function: declines
    a run computing it twice. Any random op in the graph draws other numbers than TF1's (TF1
    made it once, in ``__init__``; each function traces its own): said in ``random``."""
    expressions = plan.expressions
    drawing: dict[str, bool] = {}
    for key, expression in expressions.items():
        # A value drawn apart is a parameter of the functions reading it.
        drawing[key] = (
            key not in plan.drawn
            and any(n.draws for n in [*expression.folded, expression.node])
            or any(drawing[r] for r in expression.reads)
        )

    def counts(key: str, found: dict[str, int], given: set[str]) -> None:
        """How often computing ``key`` computes each expression: fed tensors are parameters,
        computed once by the function calling it, unless ``given``."""
        found[key] = found.get(key, 0) + 1
        for read in expressions[key].reads:
            if read not in plan.fed:
                counts(read, found, given)
            elif read not in given and read not in found:
                counts(read, found, given)

    functions = [
        *plan.called.values(),
        *plan.runs,
        *(e for e in expressions.values() if e.decorated),
    ]
    unique = {id(f): f for f in functions if not isinstance(f, ForeignCall)}
    for called in unique.values():
        roots = [called.node.key] if isinstance(called, Expression) else list(called.returned)
        if isinstance(called, Run) and called.train is not None:
            loss = called.train.reads[0]
            roots = [loss, *(r for r in roots if r != loss)]
        found: dict[str, int] = {}
        for root in roots:
            counts(root, found, set(called.params))
        twice = next(
            (k for k, n in found.items() if n > 1 and drawing[k] and _draws_itself(expressions[k])),
            None,
        )
        if twice is not None:
            raise Decline(
                expressions[twice].node.statement,
                f"`{twice}` draws random values TF1 drew once per run; computed for each of the "
                "expressions reading it, it would be drawn several times",
            )
    used = [k for k in expressions if drawing[k] and _draws_itself(expressions[k])]
    for key in plan.drawn:
        if any(id(e) != id(expressions[key]) and _computes(e, key, plan) for e in unique.values()):
            raise Decline(expressions[key].node.statement, f"`{key}` would be drawn inside a traced function")
    if used:
        plan.random = (
            f"`{used[0]}` draws random values: TF1 drew them from one op made in `__init__`, each "
            "tf.function draws from its own (the same distribution, other numbers)"
        )


def _computes(function: "Run | Expression", key: str, plan: ClassPlan) -> bool:
    """Whether the function computes the expression ``key`` itself (not given it)."""
    expressions = plan.expressions
    if isinstance(function, Run):
        roots = list(function.returned) + ([function.train.reads[0]] if function.train is not None else [])
        given = set(function.params)
    else:
        roots, given = list(expressions[function.node.key].reads), set(function.params)
    seen: set[str] = set()
    while roots:
        read = roots.pop()
        if read in given or read in seen or read not in expressions:
            continue
        if read == key:
            return True
        seen.add(read)
        roots += expressions[read].reads
    return False


def _plan_drawn(plan: ClassPlan, tf: TFNames) -> None:
    """Random values TF1 drew from one op made in ``__init__``, every run drawing on from its
    stream: a local or attribute bound to a random op alone (``eps = tf.random_normal(...)``)
    whose arguments read placeholders only (``tf.shape(self.x)``), no run feeding or fetching
    it. A tf.function with an input signature, traced once in ``__init__`` where TF1 made the
    op, keeps one random kernel: each run calls it before its own function and hands that the
    value, drawing on from the one stream as TF1 did, in the same order among the random ops."""
    model = plan.model
    if model.graph_only or model.summaries:  # summaries are computed apart from the runs
        return
    used = {f.key for site in plan.sites.runs for f in site.fetches} | {
        key for site in plan.sites.runs for key in site.feeds
    }
    for node in model.nodes.values():
        if node.kind is not Kind.TENSOR or not node.draws or node.key in used:
            continue
        value = node.value
        if not isinstance(value, cst.Call):
            continue
        path = tf_path(value.func, tf)
        if path is None or not draws_random(path):
            continue
        inner = [
            n
            for a in value.args
            for n in walk(a.value, code_only=True)
            if isinstance(n, cst.Call) and (tf_path(n.func, tf) or "") and draws_random(tf_path(n.func, tf))
        ]
        if inner or not reads_placeholders_only(model.nodes, value):
            continue
        fed = [site.feeds[r] for site in plan.sites.runs for r in node.reads if r in site.feeds]
        if any(isinstance(n, (cst.Call, cst.Subscript)) for v in fed for n in walk(v, code_only=True)):
            continue  # computed twice: by the run's draw and by its function
        plan.drawn[node.key] = ""
        plan.fed.add(node.key)


def _draw_for(plan: ClassPlan, site: Site, key: str) -> None:
    """The run draws ``key`` by calling its traced function with the values it feeds the
    placeholders the draw reads (names and attributes only: computed twice otherwise)."""
    expression = plan.expressions[key]
    values = {}
    for param in expression.params:
        value = site.feeds.get(param)
        if value is None:
            raise Decline(site.call, f"the run does not feed `{param}`, which drawing `{key}` needs")
        if any(isinstance(n, (cst.Call, cst.Subscript)) for n in walk(value, code_only=True)):
            raise Decline(value, f"the run feeds `{param}` a computed value, which drawing `{key}` reads too")
        values[param] = value
    args = commas([cst.Arg(values[p].deep_clone()) for p in expression.params])
    site.feeds[key] = cst.Call(cst.Attribute(cst.Name("self"), cst.Name(expression.method)), args=args)


def _draws_itself(expression: Expression) -> bool:
    return any(n.draws for n in [*expression.folded, expression.node])


def dtype_of(model: ClassModel, key: str, tf: TFNames) -> Optional[str]:
    """The dtype of a graph value, when its code tells: a placeholder's; a tensor's made by an op
    given ``dtype=``, or computed from placeholders and tensors of one dtype by ops that keep it."""
    node = model.nodes[key]
    if node.kind is Kind.PLACEHOLDER:
        symbol = tf.tf_symbol(node.dtype)
        return symbol.path if symbol is not None else None
    value = node.value
    if isinstance(value, cst.Call) and tf.tf_symbol(value.func) is not None:
        for arg in value.args:
            if arg.keyword is not None and arg.keyword.value == "dtype":
                symbol = tf.tf_symbol(arg.value)
                return symbol.path if symbol is not None else None
        if tf.tf_symbol(value.func).path in FLOAT_DRAWS:
            return "float32"
    for call in walk(value, code_only=True):
        if isinstance(call, cst.Call):
            symbol = tf.tf_symbol(call.func)
            if symbol is not None and (
                symbol.path in DTYPE_CHANGING
                or any(a.keyword is not None and a.keyword.value == "dtype" for a in call.args)
            ):
                return None
    found = {dtype_of(model, read, tf) for read in node.reads}
    return found.pop() if len(found) == 1 else None
