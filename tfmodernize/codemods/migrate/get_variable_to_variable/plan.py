"""What get-variable-to-variable reads of one file before it migrates a call: ``VariableFile``,
frozen, handed to the functions deciding where a ``tf.get_variable`` may be migrated (``functions``,
``callers``): the tree planned on and the program as written, with their parent maps, the run's
callers of the file's functions and the networks sharing their variables in the known shape; and
the two questions those functions all ask of it: whether a node may share variables other than in
the known shape, and whether a ``with`` is a layer helper's variable scope."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Optional

import libcst as cst

from tfmodernize.analysis.variable_reuse import SharedNetworks, helper_scope
from tfmodernize.analysis.variables import shares_variables
from tfmodernize.names import parameter_names
from tfmodernize.syntax import split_docstring
from tfmodernize.tfsymbols import TFNames


@dataclass(frozen=True)
class VariableFile:
    """What get-variable-to-variable read of one file (``GetVariableToVariable.plan``)."""

    tf: TFNames  #: the file's TF names
    module: cst.Module  #: the tree planned on
    parents: Mapping[int, cst.CSTNode]  #: each node's parent in ``module``
    top: frozenset[int]  #: ``module``'s top-level lines (``SimpleStatementLine``), by id
    #: the program as written: an earlier codemod may have moved the calls (layers-to-keras makes
    #: a network function's variables in the ``__init__`` of the class it becomes)
    written: cst.Module
    written_parents: Mapping[int, cst.CSTNode]  #: each node's parent in ``written``
    callers: Optional[dict]  #: the uses of this file's functions by the run's other files
    #: networks sharing their variables through ``reuse`` in the known shape
    #: (``read_shared_networks``): network-function-to-module calls the object a network's first
    #: call made at its ``reuse=True`` calls
    shared: Optional[SharedNetworks]

    def shares(self, node: cst.FunctionDef | cst.Module) -> bool:
        """Whether ``node`` may share variables through ``reuse`` other than in the known shape
        (network-function-to-module's: a ``reuse=True`` call calls the first call's object)."""
        return self.shared is None and shares_variables(node)

    def scoped_helper(self, node: Optional[cst.CSTNode]) -> Optional[cst.With]:
        """``node`` (of the tree planned on) when it is the whole body of a layer helper, ``with
        tf.variable_scope(name, reuse=None):`` scoping by a parameter, in a file whose sharing
        through ``reuse`` is of the known shape (``read_shared_networks``): each call not reusing
        made new variables there."""
        if self.shared is None or not helper_scope(node, self.tf):
            return None
        function = self.parents.get(id(self.parents.get(id(node))))
        if not (isinstance(function, cst.FunctionDef) and isinstance(self.parents.get(id(function)), cst.Module)):
            return None
        _, body = split_docstring(list(function.body.body))
        scope_name = node.items[0].item.args[0].value
        if body != [node] or scope_name.value not in parameter_names(function):
            return None
        return node
