"""What minimize-to-tape reads of one file before it rewrites it, and what it plans to make of
it (``TapePlan``): built once by the codemod and passed to the collaborators that fill in the
steps (``steps``, ``schedules``), with the ``Editor`` they spell TF names through."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import libcst as cst

from tfmodernize.analysis.module_variables import VariableInventory
from tfmodernize.codemods.migrate.minimize_to_tape.model import Site
from tfmodernize.names import names_read
from tfmodernize.syntax import function_definitions
from tfmodernize.tfsymbols import TFNames
from tfmodernize.treewalk import walk


class Editor(Protocol):
    """What minimize-to-tape's parts spell TF2 names with (``TFCodemod``'s: adds the import)."""

    def tf_expr(self, path: str) -> cst.BaseExpression: ...


@dataclass
class TapePlan:
    """One file as minimize-to-tape reads it, and the rewrites planned for it."""

    module: cst.Module
    tf: TFNames
    #: The variables the file creates (``training.inventory``).
    inventory: VariableInventory
    #: Every name the file uses (fresh names avoid them).
    taken: set[str]
    #: The line width the file is written to (``layout.style_width``).
    width: int
    #: Names bound by module-level statements.
    globals: set[str]
    #: The functions traced by ``tf.function``.
    traced: set[cst.FunctionDef]
    #: Each function defined directly in another function's body -> that function.
    enclosing: dict[cst.FunctionDef, cst.FunctionDef] = field(default_factory=dict)
    #: Functions holding more than one gradient computation (declined).
    crowded: set[cst.FunctionDef] = field(default_factory=set)
    #: TF1 optimizer constructors -> their Keras optimizer.
    keras_calls: dict[cst.Call, cst.Call] = field(default_factory=dict)
    #: Calls replaced in place (``compute_gradients`` inside a larger expression).
    calls: dict[cst.Call, cst.BaseExpression] = field(default_factory=dict)
    #: Each function's rewritten sites, by position in its body.
    bodies: dict[cst.FunctionDef, dict[int, Site]] = field(default_factory=dict)
    #: Statements to put before the module statement of that index.
    hoisted: dict[int, list[cst.BaseStatement]] = field(default_factory=dict)
    #: Classes written into the file (``fused``), to put before the module statement of that
    #: index, ahead of the hoisted statements.
    classes: dict[int, list[cst.ClassDef]] = field(default_factory=dict)
    #: TF1 optimizer class -> the name of the class written for it (``fused``).
    fused: dict[str, str] = field(default_factory=dict)
    #: Statements to put after the module statement of that index.
    after: dict[int, list[cst.BaseStatement]] = field(default_factory=dict)
    #: Positions of each function's body statements that go.
    removed: dict[cst.FunctionDef, set[int]] = field(default_factory=dict)

    def planned(self) -> bool:
        """Whether any rewrite is planned."""
        return bool(self.keras_calls or self.calls or self.bodies or self.hoisted or self.after or self.classes)

    def taken_globally(self, name: str) -> set[str]:
        """``{name}`` if moving ``name`` to module level could clash with another use of it."""
        functions = function_definitions(self.module)
        uses = sum(1 for _, function in functions if name in names_read(function))
        return {name} if name in self.globals or uses > 1 else set()

    def count(self, name: str) -> int:
        """How many times the file writes the name ``name``."""
        names = (n for n in walk(self.module, code_only=True) if isinstance(n, cst.Name))
        return sum(1 for n in names if n.value == name)
