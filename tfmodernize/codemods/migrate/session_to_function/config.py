"""``ConfigProto`` / ``GPUOptions`` -> the process-wide ``tf.config`` calls doing the same."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from tfmodernize.codemod import Decline
from tfmodernize.codemods.migrate.session_to_function.graph import GraphUnit
from tfmodernize.codemods.migrate.session_to_function.model import Kind, Statement, Value
from tfmodernize.codemods.migrate.session_to_function.statement_reads import tf_path
from tfmodernize.codemods.migrate.session_to_function.plan import CONFIG_CALLS, UnitPlan
from tfmodernize.syntax import source


class Config:
    """Part of :class:`SessionToFunction` (see the package docstring)."""

    def _plan_config(self, plan: UnitPlan) -> None:
        unit = plan.unit
        for config, position in unit.session_configs:
            if isinstance(config, cst.Call) and tf_path(config.func, self.tf) == "ConfigProto":
                owner = unit.statements[position] if position < len(unit.statements) else None
                if owner is None:
                    raise Decline(config, "a session opened on an empty block")
                lines = [
                    line
                    for arg in config.args
                    for line in self._config_lines(arg.keyword.value if arg.keyword else None, arg.value, owner, unit)
                ]
                plan.prefix.setdefault(position, []).extend(cst.parse_statement(line) for line in lines)
                plan.fixes.append((config, "ConfigProto options -> tf.config"))
            elif not (isinstance(config, cst.Name) and unit.kind(config.value) == Value.CONFIG):
                raise Decline(config, "a session config that is not a `tf.ConfigProto`")
        for stmt in unit.statements:
            if stmt.kind is not Kind.CONFIG:
                continue
            small = stmt.node.body[0] if isinstance(stmt.node, cst.SimpleStatementLine) else None
            lines: list[str] = []
            if isinstance(small, cst.Assign) and isinstance(small.value, cst.Call):
                for arg in small.value.args:
                    lines.extend(self._config_lines(arg.keyword.value if arg.keyword else None, arg.value, stmt, unit))
            elif isinstance(small, cst.Assign) and source(small.targets[0].target).endswith(
                ".gpu_options.allow_growth"
            ):
                lines.extend(self._config_lines("allow_growth", small.value, stmt, unit))
            else:
                raise Decline(stmt.origin, "a session config this codemod cannot translate to tf.config")
            if not lines:
                continue
            plan.config[stmt.index] = [cst.parse_statement(line) for line in lines]
            plan.fixes.append((stmt.origin, "ConfigProto options -> tf.config"))

    def _config_lines(
        self, field: Optional[str], value: cst.BaseExpression, stmt: Statement, unit: GraphUnit
    ) -> list[str]:
        """``tf.config`` statements doing what one ``ConfigProto``/``GPUOptions`` field did."""
        if field in CONFIG_CALLS:
            return [f"{source(self.tf_expr(CONFIG_CALLS[field]))}({source(value)})"]
        if field == "allow_growth" and isinstance(value, cst.Name) and value.value == "True":
            config = source(self.tf_expr("config"))
            gpu = next(n for n in ("gpu", "physical_gpu", "gpu_device") if n not in unit.bindings)
            return [
                f'for {gpu} in {config}.list_physical_devices("GPU"):\n    {config}.experimental.set_memory_growth({gpu}, True)\n'
            ]
        if field == "gpu_options" and isinstance(value, cst.Name) and unit.kind(value.value) == Value.CONFIG:
            return []  # a GPUOptions statement of its own, translated where it stands
        if field == "gpu_options" and isinstance(value, cst.Call) and tf_path(value.func, self.tf) == "GPUOptions":
            return [
                line
                for arg in value.args
                for line in self._config_lines(arg.keyword.value if arg.keyword else None, arg.value, stmt, unit)
            ]
        raise Decline(stmt.origin, f"ConfigProto option `{field}` has no tf.config equivalent")
