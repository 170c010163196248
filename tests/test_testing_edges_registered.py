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
from tests.engines import float32, sound
from tests.unsettled import HIDDEN_ZERO_OP

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


def test_a_float32_engine_at_a_point_no_reference_settles_is_inconclusive():
    # x + a zero no interval settles (tests.unsettled), computed as x * 1.0: judged where a float32
    # engine is, at its operand rounded (1.0 is a float32 number), the reference does not settle
    with registered(HIDDEN_ZERO_OP):
        result = run_check("edge_points", float32.Value)
    (unsettled,) = [f for f in result.findings if f.op == "test_hidden_zero" and f.kind != "convention"]
    assert (unsettled.kind, unsettled.check) == ("inconclusive", "edge_points")
    reason = "the reference did not settle: the intervals are still wide at 8192 bits"
    assert unsettled.summary.startswith(f"x * 1.0 at x = 1.0: no certified reference ({reason}); not judged")
    # its 15 points: 0 settles; +-5e-324, +-1e-300 (0 in float32), +-1e300 and +-max (infinite there)
    # are beyond float32, range limits; +-1e-20, +-1 and +-1e20 are not settled
    assert result.status == "passed" and result.inconclusive == 6
