"""``functional`` with a planted bug behind its adapter: d(a*b)/da is b + 1 (should be b)."""

from typing import ClassVar

from tests.engines import functional


def wrong_mul(a, b):
    a, b = functional.lift(a), functional.lift(b)
    return functional.Node(a.value * b.value, (a, b), (b.value + 1, a.value))


class Adapter(functional.Adapter):
    name = "tests.engines.functional_wrong_mul"
    ops: ClassVar[dict] = {
        **functional.Adapter.ops,
        "__mul__": wrong_mul,
        "__rmul__": lambda a, b: wrong_mul(b, a),
    }


adapter = Adapter()
