"""TFM104 collections-to-tracking.

What it does
    Replaces reads of TF1 graph collections with the explicit lists they hold:
    ``tf.trainable_variables()``, ``tf.global_variables()`` and
    ``tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES | GLOBAL_VARIABLES, scope=...)``
    become the list of the module's variables created before that point, in creation order
    and filtered by scope prefix as TF1 does (a read inside the function the program's top-level
    code runs once, ``main()`` under the main guard, lists the variables made before that call,
    then those the function's own lines make before the read, ``w = tf.Variable(...)``, even
    where other functions of the file make variables; ``sess.run`` of such a read, written
    ``tf.trainable_variables().numpy()`` by session-to-function, becomes ``[w.numpy(), ...]``);
    ``UPDATE_OPS`` and ``REGULARIZATION_LOSSES`` become
    ``[]`` when nothing in the file can have added to them; a collection the program fills
    itself (``tf.add_to_collection("losses", x)`` ... ``tf.get_collection("losses")``) becomes a
    plain list. Only where the whole program that can reach the read is known: the file is a
    program (an ``if __name__ == "__main__":`` block, session code or app.run at module level, a
    module-level call of its own function, or a notebook) and no other file of the run reaches
    the read (a function of the file they use, or one those call). Works on TF1 code and on
    session-to-function's output alike. Each rewritten read discharges one obligation placed on
    TFM104, so a codemod that leaves collection reads where TF2 would silently find them empty
    can oblige it per read.

Why it matters
    TF2 has no graph collections: ``tf.compat.v1.trainable_variables()`` returns ``[]`` in
    eager code and in a ``tf.function`` it only sees variables created inside that function,
    so code that trains "whatever is in the collection" silently trains nothing. Explicit
    lists say what is trained. Where the list cannot be read off the code the codemod declines
    with a finding and writes nothing: a read inside a function while variables are created
    after that function (what it holds depends on when it is called), variables made by layers, helper functions or imported code (a call into any
    module but TensorFlow and a known set of variable-free packages), a read that would come
    out empty, slot variables of optimizers in ``global_variables``, ``UPDATE_OPS`` /
    ``REGULARIZATION_LOSSES`` in a file whose layers or imported code may fill them, and any read
    in library code: a module with no entry point, or what other files of the run call, whose
    callers, other modules and layers made later may fill the collection before the read.

Before
    W = tf.Variable(tf.zeros([3, 1]), name="W")
    b = tf.Variable(tf.zeros([1]), name="b")
    step = tf.Variable(0, trainable=False)
    params = tf.trainable_variables()

    if __name__ == "__main__":
        train(params)

After
    W = tf.Variable(tf.zeros([3, 1]), name="W")
    b = tf.Variable(tf.zeros([1]), name="b")
    step = tf.Variable(0, trainable=False)
    params = [W, b]

    if __name__ == "__main__":
        train(params)

Fixtures: ``fixtures/collections-to-tracking/``.

Fix safety
    The list holds what TF1's collection held at that point: the variables created before it, in
    creation order, filtered by scope as TF1 filters; an empty collection becomes ``[]`` only when
    nothing in the file can add to it. Both only in a program whose code reaching the read is all
    in the file: nothing the file cannot see runs before it.

Declines when
    the variables cannot be read off the code (layers, helpers, imported code), the read is inside a
    function while variables are created later (unless the program runs that function once from
    its top-level code and nothing but ``w = tf.Variable(...)`` lines makes variables before the
    read), it would come out empty, it is read at module
    level over Keras layers (they make their variables on their first call, later in TF2: the
    list would be empty; layers-to-keras writes such lists where an optimizer uses them), or
    optimizer slots would be listed; a program collection is used across functions or read
    before anything is added; the read is library code (the module has no entry point, or
    another file of the run calls the function holding it, uses its class or imports the module
    whose top-level code reads it): pass the list in explicitly (``model.losses``,
    ``model.trainable_variables``) or run the codemod on the whole program.
"""

from __future__ import annotations

import libcst as cst

from tfmodernize.codemod import Decline, TFCodemod
from tfmodernize.codemods.migrate.collections_to_tracking.own_collections import (
    Uses,
    list_name,
    list_statement,
    own_collections,
)
from tfmodernize.codemods.migrate.collections_to_tracking.plan import (
    GRAPH_KEYS,
    PASS_INSTEAD,
    VARIABLE_READS,
    CollectionsPlan,
)
from tfmodernize.codemods.migrate.collections_to_tracking.reach import Reachability
from tfmodernize.codemods.migrate.collections_to_tracking.reads import collection_list, numpy_values
from tfmodernize.layout import depth, fitted, style_width
from tfmodernize.syntax import argument, parse_statement, source, statement_of


class CollectionsToTracking(TFCodemod):
    __doc__ = __doc__
    code = "TFM104"
    name = "collections-to-tracking"
    summary = "tf.trainable_variables()/get_collection/add_to_collection -> explicit lists"
    needles = ("_variables", "collection")
    interests = (cst.Call,)
    detects = (*VARIABLE_READS, "get_collection", "add_to_collection")

    # -- analysis ---------------------------------------------------------------------------

    def visit_Module(self, node: cst.Module) -> bool:
        self._plan = CollectionsPlan(node, self.tf, self.state)
        self._reach = Reachability(node, self.tf, self.state.parsed, self.state.callers)
        self._replacements: dict[cst.Call, cst.BaseExpression] = {}
        self._inserts: dict[cst.CSTNode, cst.SimpleStatementLine] = {}
        for key, found in own_collections(self._plan).items():
            try:
                self._own_collection(key, found)
            except Decline as decline:
                for _, call in found:
                    self.report(call, f"collection {key!r} not migrated: {decline.reason}")
        return True

    def _own_collection(self, key: str, found: Uses) -> None:
        """``add_to_collection(name, x)`` + ``get_collection(name)`` -> one Python list; raises
        Decline saying why it cannot."""
        first_add = list_statement(self._plan, found)
        read = next((call for kind, call in found if kind == "get"), found[0][1])
        self._reach.check(read, self._plan.top_level_index(read), "pass the list in explicitly")
        if any(self.suppressed(call) for _, call in found):
            return
        name = list_name(self._plan, key, found)
        for kind, call in found:
            self.fix(call, f"collection {key!r} -> the list `{name}`")
            self.discharge()
            if kind == "add":
                self._replacements[call] = cst.parse_expression(f"{name}.append({source(call.args[1].value)})")
            else:
                self._replacements[call] = cst.parse_expression(f"list({name})")
        self._inserts[first_add] = parse_statement(f"{name} = []")

    # -- rewriting --------------------------------------------------------------------------

    def leave_Call(self, original: cst.Call) -> None:
        if original in self._replacements:
            self.replace(original, self._replacements[original])
            return
        symbol = self.tf.tf_symbol(original.func)
        if symbol is None:
            return
        plan = self._plan
        if symbol.path in VARIABLE_READS:
            key, scope = VARIABLE_READS[symbol.path], argument(original, 0, "scope")
        elif symbol.path == "get_collection":
            key, scope = plan.key(argument(original, 0, "key")), argument(original, 1, "scope")
            if key is None or key not in GRAPH_KEYS.values():
                if argument(original, 0, "key") is not None and key is None:
                    self.report(
                        original, "`get_collection` not migrated: its key is not a literal or a known GraphKeys name"
                    )
                return
        else:
            return
        try:
            result = collection_list(plan, original, key, scope)
            instead = PASS_INSTEAD.get(key, "pass it in explicitly")
            self._reach.check(original, plan.top_level_index(original), instead)
        except Decline as decline:
            self.declined(decline, f"`{source(original.func)}` not migrated: ")
            return
        if not self.fix(original, f"collection {key!r} -> an explicit list"):
            return
        self.discharge()
        parents = plan.parents
        attribute = parents.get(id(original))
        read = parents.get(id(attribute))
        if (
            isinstance(attribute, cst.Attribute)
            and attribute.attr.value == "numpy"
            and isinstance(read, cst.Call)
            and read.func is attribute
            and not read.args
        ):
            # ``tf.trainable_variables().numpy()`` (a session's fetch of the list, as
            # session-to-function writes it): each variable's value, as ``sess.run`` gave them.
            original, result = read, numpy_values(result)
        self.replace(original, result)
        line = statement_of(original, parents)
        if line is not None:  # a written list wider than the file's lines: one element a line
            deep, width = depth(line[1], parents), style_width(self.state.text)
            self.replace(line[1], lambda updated: fitted(updated, width, deep, further=True))

    def leave_SimpleStatementLine(self, original: cst.SimpleStatementLine) -> None:
        insert = self._inserts.get(original)
        if insert is not None:
            self.replace(
                original,
                lambda updated: cst.FlattenSentinel(
                    [insert.with_changes(leading_lines=updated.leading_lines), updated.with_changes(leading_lines=[])]
                ),
            )
