"""The optimizers minimize-to-tape writes into a file where no Keras optimizer keeps TF1's
numbers: Adam and RMSProp updating through the fused kernels TF1's ``AdamOptimizer`` and
``RMSPropOptimizer`` ran (``tf.raw_ops.ResourceApplyAdam``, ``ResourceApplyRMSProp``,
``ResourceApplyCenteredRMSProp``), with TF1's slots.

Measured on TF 2.21 (a small MLP, 1500 full-batch steps, per-step losses and final weights):
these classes are bit-identical to TF1 for Adam, RMSProp, RMSProp with momentum and centered
RMSProp; Keras ``Adam`` (float32-rounded betas, epsilon 1e-8) first differs at step 3 (rtol
1.3e-4 by the end), Keras ``RMSprop`` with its accumulators set to 1.0 at step 34 (2% by the
end). Keras computes ``beta ** t`` with ``pow`` where TF1 keeps a float32 running product, and
updates RMSProp's mean square as ``rho * ms + (1 - rho) * g * g`` where TF1's kernel computes
``ms + (g * g - ms) * (1 - rho)``: no Keras argument changes either. The fused kernels also run
one op per variable where Keras runs a dozen."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from tfmodernize.codemods.migrate.minimize_to_tape.plan import Editor
from tfmodernize.syntax import source

#: TF1 optimizer class -> (the class written into the file, its source with {tf} placeholders)
_ADAM = '''
class {name}({Module}):
    """Adam computed as TF1's AdamOptimizer did: its fused kernel, with
    ``beta ** t`` kept as float32 running products (Keras Adam rounds
    differently, so its numbers drift away from TF1's)."""

    def __init__(
        self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-8
    ):
        super().__init__()
        self.learning_rate = learning_rate
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon
        self.beta_1_power = {Variable}(beta_1, trainable=False)
        self.beta_2_power = {Variable}(beta_2, trainable=False)
        self.slots = []  # (m, v) of each trained variable
        self.positions = {{}}  # trained variable -> index in slots

    def build(self, variables):
        for variable in variables:
            if id(variable) not in self.positions:
                self.positions[id(variable)] = len(self.slots)
                self.slots.append((
                    {Variable}({zeros_like}(variable), trainable=False),
                    {Variable}({zeros_like}(variable), trainable=False),
                ))

    def apply_gradients(self, gradients_and_variables):
        pairs = [(g, v) for g, v in gradients_and_variables if g is not None]
        self.build([variable for _, variable in pairs])
        for gradient, variable in pairs:
            m, v = self.slots[self.positions[id(variable)]]
            dtype = variable.dtype
            {ResourceApplyAdam}(
                var=variable.handle,
                m=m.handle,
                v=v.handle,
                beta1_power={cast}(self.beta_1_power, dtype),
                beta2_power={cast}(self.beta_2_power, dtype),
                lr={cast}(self.learning_rate, dtype),
                beta1={cast}(self.beta_1, dtype),
                beta2={cast}(self.beta_2, dtype),
                epsilon={cast}(self.epsilon, dtype),
                grad={convert_to_tensor}(gradient),
            )
        self.beta_1_power.assign(self.beta_1_power * self.beta_1)
        self.beta_2_power.assign(self.beta_2_power * self.beta_2)
'''

_RMSPROP = '''
class {name}({Module}):
    """RMSProp computed as TF1's RMSPropOptimizer did: its fused kernel, with
    the mean square starting at 1.0 (Keras RMSprop starts it at 0 and rounds
    differently)."""

    def __init__(
        self,
        learning_rate,
        rho=0.9,
        momentum=0.0,
        epsilon=1e-10,
        centered=False,
    ):
        super().__init__()
        self.learning_rate = learning_rate
        self.rho = rho
        self.momentum = momentum
        self.epsilon = epsilon
        self.centered = centered
        self.slots = []  # (mean square, momentum, mean gradient) per variable
        self.positions = {{}}  # trained variable -> index in slots

    def build(self, variables):
        for variable in variables:
            if id(variable) not in self.positions:
                self.positions[id(variable)] = len(self.slots)
                self.slots.append((
                    {Variable}({ones_like}(variable), trainable=False),
                    {Variable}({zeros_like}(variable), trainable=False),
                    {Variable}({zeros_like}(variable), trainable=False),
                ))

    def apply_gradients(self, gradients_and_variables):
        pairs = [(g, v) for g, v in gradients_and_variables if g is not None]
        self.build([variable for _, variable in pairs])
        for gradient, variable in pairs:
            slots = self.slots[self.positions[id(variable)]]
            mean_square, momentum, mean_gradient = slots
            dtype = variable.dtype
            arguments = dict(
                var=variable.handle,
                ms=mean_square.handle,
                mom=momentum.handle,
                lr={cast}(self.learning_rate, dtype),
                rho={cast}(self.rho, dtype),
                momentum={cast}(self.momentum, dtype),
                epsilon={cast}(self.epsilon, dtype),
                grad={convert_to_tensor}(gradient),
            )
            if self.centered:
                {ResourceApplyCenteredRMSProp}(
                    mg=mean_gradient.handle, **arguments
                )
            else:
                {ResourceApplyRMSProp}(**arguments)
'''

#: TF1 optimizer class -> (base name of the class written, its source)
CLASSES = {
    "AdamOptimizer": ("FusedAdam", _ADAM),
    "RMSPropOptimizer": ("FusedRMSProp", _RMSPROP),
}

_SYMBOLS = (
    "Module",
    "Variable",
    "zeros_like",
    "ones_like",
    "cast",
    "convert_to_tensor",
    "raw_ops.ResourceApplyAdam",
    "raw_ops.ResourceApplyRMSProp",
    "raw_ops.ResourceApplyCenteredRMSProp",
)


def fused_class(tf1_class: str) -> Optional[str]:
    """The base name of the class written for ``tf1_class``, or None when Keras keeps its numbers."""
    entry = CLASSES.get(tf1_class)
    return entry[0] if entry is not None else None


def class_definition(editor: Editor, tf1_class: str, name: str, indent: str) -> cst.ClassDef:
    """The definition of the class ``name`` updating as ``tf1_class`` did, spelling TF names
    as the file does and indented by its ``indent``."""
    template = CLASSES[tf1_class][1]
    symbols = {symbol.rpartition(".")[2]: source(editor.tf_expr(symbol)) for symbol in _SYMBOLS}
    lines = template.format(name=name, **symbols).lstrip("\n").splitlines()
    text = "\n".join(indent * ((len(line) - len(line.lstrip(" "))) // 4) + line.lstrip(" ") for line in lines)
    config = cst.PartialParserConfig(default_indent=indent)
    statement = cst.parse_statement(text + "\n", config=config)
    assert isinstance(statement, cst.ClassDef)
    return statement
