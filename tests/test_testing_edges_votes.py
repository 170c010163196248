"""How the edge probe judges a gradient (autograd.testing.probes.edges): sympy's derivative votes
first, central differences of the op second (certified differences of its definition where those
cannot judge or do not confirm), and a confirmed slip is graded by its point.

The engines are ``tests.engines.sound``'s ``Core`` (+ - * / and their constant forms), with one
op added or changed, so that each probe run judges a few hundred points.
"""

import math
import re

from autograd.testing import run_check
from autograd.testing.ops import special
from autograd.testing.oracles import definition_differences
from tests.engines import sound


class _ExpSlopeOffAt1(sound.Core):
    """Core and exp, whose slope at x = 1 is e * (1 + 1e-9)."""

    exp = sound.Nonlinear.exp

    @staticmethod
    def exp_partial(x, out):
        return out * (1 + 1e-9) if x == 1 else out


def test_a_slip_float_differences_cannot_settle_is_confirmed_by_the_definitions_differences():
    # at x = 1 a slip of 1e-9 relative is below what float differences resolve, and far above
    # what certified differences of exp's definition do (they settle on e to the last digit)
    result = run_check("edge_points", _ExpSlopeOffAt1)
    (slip,) = [f for f in result.findings if f.op == "exp"]
    engine = math.exp(1) * (1 + 1e-9)
    assert slip.kind == "wrong_gradient" and result.status == "failed"
    assert slip.summary == (
        f"x.exp() at x = 1.0: d/dx {engine!r}; sympy/mpmath {math.exp(1)!r} differs, confirmed by certified "
        f"first differences of the definition {math.exp(1)!r}"
    )


def test_differences_that_cannot_settle_a_slip_say_so_naming_the_operand(monkeypatch):
    # with the definition's differences given a single step (two never agree), the float vote
    # stands: their estimates at the step h = eps ** (1/3) and at h / 8 disagree by more than
    # their own error, so the second vote cannot judge and sympy's disagreement is no verdict
    monkeypatch.setattr(definition_differences, "MAX_STEPS", 1)
    result = run_check("edge_points", _ExpSlopeOffAt1)
    (doubt,) = [f for f in result.findings if f.op == "exp"]
    engine = math.exp(1) * (1 + 1e-9)
    assert doubt.kind == "inconclusive" and result.status == "passed"
    votes, why = doubt.summary.split(", finite differences cannot judge ")
    assert votes == f"x.exp() at x = 1.0: d/dx {engine!r}; sympy/mpmath {math.exp(1)!r} differs"
    # the two estimates in between (neither is the engine's), then the engine's
    said = re.fullmatch(
        r"\(OracleInconclusive: finite differences along x did not converge: .+; "
        r"the engine says (\S+)\): unresolved",
        why,
    )
    assert said and said[1] == repr(engine), why


class _ProductSlopeOffBeyond1e200(sound.Core):
    """Core whose product's partial by its first factor is 1e-6 too large where |that factor|
    is beyond 1e200 (a huge operand, a moderate slope)."""

    def __mul__(self, other):
        out = super().__mul__(other)
        if abs(self.data) > 1e200:
            other = out._prev[1]
            out = self._with_partials(out.data, (self, other), (other.data * (1 + 1e-6), self.data))
        return out


def test_a_confirmed_slip_of_a_slope_at_a_huge_operand_is_inaccurate_at_the_extremes():
    # x * y at x = 1e300, y = 1.5: d/dx = 1.5 exactly, a moderate number, and the engine's 1.5 *
    # (1 + 1e-6) is confirmed by differences (x * y is linear in x); the point is extreme by its
    # operand 1e300 (beyond 2 ** 500), the slip 1e-6 relative is below 1e-3: not "wrong"
    result = run_check("edge_points", _ProductSlopeOffBeyond1e200)
    (slip,) = [f for f in result.findings if (f.kind, f.op) == ("wrong_gradient", "mul")]
    assert slip.summary.startswith(f"x * y at x = 1e+300, y = 1.5: d/dx {1.5 * (1 + 1e-6)!r}; "), slip.summary
    assert slip.point == (1e300, 1.5)
    assert (slip.severity.label, slip.severity.point) == ("inaccurate at the extremes", "extreme")
    assert math.isclose(slip.severity.relative_error, 1e-6, rel_tol=1e-6)


class _ExpSlopeByPowersOfTwo(sound.Core):
    """Core and exp, whose slope is computed as 2 ** (x * log2(e)), as some frameworks compute exp:
    rounding x * log2(e) moves it by up to |x| ulps."""

    exp = sound.Nonlinear.exp

    @staticmethod
    def exp_partial(x, out):
        return 2.0 ** (x * 1.4426950408889634)


def test_a_slope_off_by_what_a_rounded_operand_explains_is_not_confirmed():
    # at x = -708.39 the slope is off by 124 ulps: beyond the bound 16 * 4 ulps (sympy rejects it),
    # within one ulp of x moved through the slope (|x| ulps, times 16): the definition's certified
    # differences, on the exact value, do not confirm it
    result = run_check("edge_points", _ExpSlopeByPowersOfTwo)
    (doubt,) = [f for f in result.findings if f.op == "exp" and f.kind == "inconclusive"]
    exact = "2.2250738585072626e-308"
    assert doubt.summary == (
        f"x.exp() at x = -708.3964185322641: d/dx 2.2250738585072014e-308; sympy/mpmath {exact} differs, "
        f"certified first differences of the definition {exact}: not confirmed, unresolved"
    )
    assert not [f for f in result.findings if f.kind == "wrong_gradient"]


class _SincSlopeNanNearZero(sound.Core):
    """Core and sinc (the catalogue's: sin(pi x) / (pi x)), whose slope is nan where 0 < |x| < 1e-200
    (a 0 / 0 of a formula that misses its series)."""

    def sinc(self):
        x = self.data
        slope = math.nan if 0 < abs(x) < 1e-200 else special.dsinc(x)
        return self._with_partials(special.sinc(x), (self,), (slope,))


def test_a_slope_that_is_not_a_number_is_confirmed_where_sympy_cannot_bound_its_rounding():
    # sympy has no closed form of sinc's second derivative, so the rounding an operand moves the slope
    # by is not known: the definition's differences then confirm only a slope that is not a number
    result = run_check("edge_points", _SincSlopeNanNearZero)
    (wrong,) = [f for f in result.findings if f.kind not in ("convention", "unsupported")]
    assert (wrong.kind, wrong.op) == ("wrong_gradient", "sinc~sinc")  # identified: the catalogue's row
    slope = -math.pi**2 / 3 * 1e-300  # sinc'(x) = -pi^2 x / 3 + O(x^3)
    assert wrong.summary.startswith(
        f"x.sinc() at x = 1e-300: d/dx nan; sympy/mpmath {slope!r} differs, confirmed by certified first "
        f"differences of the definition {slope!r}"
    )
