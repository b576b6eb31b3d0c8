"""The fast walks visit exactly what LibCST's ``children`` reaches, code nodes in source order."""

import libcst as cst
import pytest

from tfmodernize.treewalk import contains, walk

SOURCES = [
    "import a.b as c\nfrom .x import (y as z, w)\n",
    "@dec(1)\nasync def f(a, *args, b: int = 2, **kw) -> str:\n    '''doc'''\n    return [x async for x in g(a) if x]\n",
    "@dataclass\nclass C(Base, metaclass=M):\n    x: int = 1\n",
    "try:\n    pass\nexcept (A, B) as e:\n    raise X from e\nelse:\n    y = {k: v for k, v in d.items()}\nfinally:\n    del z\n",
    "v = a if b else c\nw = f(*xs, key=lambda q: q[1:2, ::3], **kws)\n",
    "with open(p) as f, g() as (a, b):\n    a += b @ c\n    print(f'{a!r:>{w}}')\n",
    "match p:\n    case [1, *rest] if rest:\n        pass\n    case {'k': v, **other}:\n        pass\n",
    "x = (yield)\nglobal g\nassert x, 'msg'  # comment\nwhile (n := n - 1) > 0:\n    continue\n",
]


def libcst_order(node):
    yield node
    for child in node.children:
        yield from libcst_order(child)


@pytest.mark.parametrize("source", SOURCES)
def test_walk_matches_libcst_children(source):
    module = cst.parse_module(source)
    reference = list(libcst_order(module))
    assert {id(n) for n in walk(module)} == {id(n) for n in reference}
    code = [id(n) for n in walk(module, code_only=True)]
    kept = set(code)
    assert code == [id(n) for n in reference if id(n) in kept]
    assert any(isinstance(n, cst.Name) for n in walk(module, code_only=True))


def test_contains_is_by_identity():
    module = cst.parse_module("a = f(x)\nb = f(x)\n")
    first, second = module.body
    call = first.body[0].value
    assert contains(first, call) and not contains(second, call)


def test_children_are_remembered_per_node_and_forgotten_between_files():
    from tfmodernize import treewalk

    module = cst.parse_module("x = f(1, 2)\n")
    call = module.body[0].body[0].value
    first = treewalk.children(call, code_only=True)
    assert treewalk.children(call, code_only=True) is first  # read once
    assert [type(c).__name__ for c in first] == ["Name", "Arg", "Arg"]
    treewalk.forget()
    again = treewalk.children(call, code_only=True)
    assert again is not first and again == first
    # A new node that happens to reuse a forgotten node's id is read afresh.
    other = cst.parse_module("y = g(3)\n").body[0].body[0].value
    assert [type(c).__name__ for c in treewalk.children(other, code_only=True)] == ["Name", "Arg"]
