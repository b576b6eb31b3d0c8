"""Who can reach a collection read: whether the whole program that runs before it is in the file
(``Reachability.check``), or other files of the run, or the program using a library module, may
add to the collection first."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Optional

import libcst as cst

from tfmodernize.analysis.program import entry_point, main_guard
from tfmodernize.codemod import Decline
from tfmodernize.names import names_read
from tfmodernize.tfsymbols import TFNames

#: How other files of the run reach a function or class of the module: ``(how, what they use,
#: its first use)`` (``Reachability.reached``).
Reach = tuple[str, str, Optional[dict]]


@dataclass
class Reachability:
    """What runs before the reads of ``module`` (the tree planned on, ``tf`` its TF names):
    ``parsed``, the file as written; ``callers``, how the other files of the run use its
    functions (``FileState.callers``; None when no file of the run imports it)."""

    module: cst.Module
    tf: TFNames
    parsed: Optional[cst.Module]
    callers: Optional[dict]

    def check(self, call: cst.Call, top: int, instead: str) -> None:
        """Raise Decline unless the whole program that can reach the read ``call`` (in
        top-level statement ``top``) is known: the file is a program's entry (as written or as
        the earlier codemods left it), and no other file of the run reaches the read
        (``reached``), so nothing the file cannot see adds to the collection before the read."""
        advice = f"{instead}, or run tfmodernize on the whole program (its entry script with this module)"
        if self.callers is not None:
            holder = self.module.body[top]
            if isinstance(holder, (cst.FunctionDef, cst.ClassDef)):
                reached = self.reached.get(holder.name.value)
                name = holder.name.value
            else:  # module-level code: run when they import the module, unless under the main guard
                reached = None if main_guard(holder) else ("import", "", None)
                name = None
            if reached is not None:
                how, used, use = reached
                through = f", which reaches `{name}`" if name is not None and used != name else ""
                if how == "use":
                    raise Decline(
                        call,
                        f"{use['file']} {'calls' if use.get('call') else 'uses'} `{used}` (line "
                        f"{use['line']}){through}: code there may add to the collection before "
                        f"this read; {advice}",
                    )
                if how == "class":
                    raise Decline(
                        call,
                        f"other files of the run import this module and may use `{used}`{through}: "
                        f"their code may add to the collection before this read; {advice}",
                    )
                reaches = f" and reaches `{name}`" if name is not None else ""
                raise Decline(
                    call,
                    f"other files of the run import this module: its module-level code runs then"
                    f"{reaches}, after whatever they added to the collection; {advice}",
                )
        if not self.program:
            raise Decline(
                call,
                'this module has no entry point (no `if __name__ == "__main__":`, session code or '
                "app.run at module level, no module-level call of its own functions): it is library "
                "code, and the program using it (its callers, other modules, layers made later) may "
                f"add to the collection before this read; {advice}",
            )

    @functools.cached_property
    def program(self) -> bool:
        """Whether the file is a program's entry (``entry_point``), as written or as now."""
        parsed = self.parsed
        return (parsed is not None and entry_point(parsed, TFNames.for_module(parsed)) is not None) or entry_point(
            self.module, self.tf
        ) is not None

    @functools.cached_property
    def reached(self) -> dict[str, Reach]:
        """Each function and class of this module (imported by other files of the run) they can
        reach -> how: ``("use", function, its first use)`` from a function they use
        (``callers``), ``("class", name, None)`` from a class (their uses of classes are not
        recorded: any may be used), ``("import", "", None)`` from the module-level code
        importing it runs (outside ``if __name__ == "__main__":``); and from there, what each
        names of the module's functions and classes."""
        body = self.module.body
        definitions = {s.name.value: s for s in body if isinstance(s, (cst.FunctionDef, cst.ClassDef))}
        top_level = set().union(
            *(names_read(s) for s in body if not isinstance(s, (cst.FunctionDef, cst.ClassDef)) and not main_guard(s))
        )
        pending: list[tuple[str, Reach]] = [
            (name, ("import", "", None)) for name in sorted(top_level & definitions.keys())
        ]
        pending += [
            (name, ("class", name, None)) for name in sorted(definitions) if isinstance(definitions[name], cst.ClassDef)
        ]
        pending += [
            (name, ("use", name, uses[0]))
            for name, uses in sorted((self.callers or {}).items())
            if uses and name in definitions
        ]
        reached: dict[str, Reach] = {}
        while pending:
            name, origin = pending.pop()
            if name in reached:
                continue
            reached[name] = origin
            pending.extend(
                (other, origin)
                for other in sorted(names_read(definitions[name]) & definitions.keys())
                if other not in reached
            )
        return reached
