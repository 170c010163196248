"""The edge probe on ops registered beside the table (``autograd.testing.ops.registered``),
whose operands and regions the table's own ops do not have.

An op may take any number of operands; the table names them x, y, z and, past three, x0, x1, ...
(``OpSpec.operand_names``).  The edge points name them the same way: they used to stop at z, so
that a fourth operand had no name and the edge probe failed on such an op with an error of its own.

A region may end anywhere: at 1e-290, where a step relative to the operand is still representable,
finite differences vote on a gradient (below it they cannot, autograd.testing.probes.edges).
"""

import sympy

from autograd.testing import run_check
from autograd.testing.findings import DEFECT_KINDS
from autograd.testing.ops import Call, OpSpec, registered
from autograd.testing.probes.edges import edge_points
from tests.engines import sound

MULADD = OpSpec(
    "test_muladd", 4, Call("muladd", ("v0", "v1", "v2", "v3")),
    lambda s, c: s[0] * s[1] + s[2] * s[3], lambda x, c: x[0] * x[1] + x[2] * x[3],
    lambda n, c: f"{n[0]}.muladd({n[1]}, {n[2]}, {n[3]})", form="v.muladd(w, x, y)",
)  # fmt: skip


class _MulAdd(sound.Core):
    """+ - * / and ``a.muladd(b, c, d) = a * b + c * d``."""

    def muladd(self, b, c, d):
        return self * b + c * d


def test_an_op_of_four_operands_gets_points_that_name_each_operand():
    with registered(MULADD):
        points = edge_points("test_muladd")
        # the first operand moved first, from 0, the others at the partner 1.5
        assert points[0].label() == "x0.muladd(x1, x2, x3) at x0 = 0.0, x1 = 1.5, x2 = 1.5, x3 = 1.5"
        assert points[-1].source() == "x0.muladd(x1, x2, x3)"
        result = run_check("edge_points", _MulAdd)
    assert {p.moved for p in points} == {0, 1, 2, 3}
    assert result.status == "passed" and not [f for f in result.findings if f.kind in DEFECT_KINDS]
    assert [f.op for f in result.findings if f.op == "test_muladd"]  # its range limits, e.g. at +-max


TWICE_FROM_1E_290 = OpSpec(
    "test_twice", 1, Call("twice"), lambda s, c: 2 * s[0], lambda x, c: 2 * x[0],
    lambda n, c: f"{n[0]}.twice()", form="v.twice()",
    region=lambda c: (sympy.Interval(sympy.Rational(1e-290), sympy.oo),),
)  # fmt: skip


class _TwiceWrongAt1e290(sound.Core):
    """+ - * / and ``v.twice() = 2 * v``, whose slope is 3 at v = 1e-290 (2 everywhere else)."""

    def twice(self):
        return self._with_partials(2 * self.data, (self,), (3 if self.data == 1e-290 else 2,))


def test_at_1e_290_finite_differences_step_relative_to_the_operand_and_confirm_a_wrong_slope():
    # 2 * x differenced at u = 1 in x = 1e-290 * u: 2e-290 per unit of u, 2 in units of x; the
    # engine's 3 is far outside their margin, so sympy's rejection is confirmed: a defect
    with registered(TWICE_FROM_1E_290):
        result = run_check("edge_points", _TwiceWrongAt1e290)
    (wrong,) = [f for f in result.findings if f.op == "test_twice"]
    assert (wrong.kind, wrong.expected, wrong.actual) == ("wrong_gradient", "2.0", "3")
    assert wrong.summary.startswith(
        "x.twice() at x = 1e-290: d/dx 3; sympy/mpmath 2.0 differs, confirmed by "
    )
