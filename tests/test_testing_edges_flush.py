"""The edge probe on engines that flush subnormal numbers to zero (autograd.testing.probes.edges).

Such an engine's flush is one fact of the whole engine, and the edge points where an operand or
the exact result is subnormal and the engine differs are its consequences, counted by point.  Most
fixtures here are ``tests.engines.sound``'s ``Core`` (+ - * / and their constant forms) with a
flush added, so that every point where the flush shows can be listed by hand; the partner of a
moved operand is 1.5 (``ops.PARTNER``).
"""

import math
import re

import pytest

from autograd.testing import run_check
from autograd.testing.findings import DEFECT_KINDS
from autograd.testing.ops import registered
from autograd.testing.probes.edges import subnormals_flushed
from tests.engines import flushes_subnormals, sound
from tests.engines.flushes_subnormals import SMALLEST_NORMAL, flush
from tests.unsettled import HIDDEN_ZERO_OP

#: subnormals_flushed's first product: a subnormal operand (2 ** -1032) times 1.0.
OPERAND = "2.1729236899484e-311 * 1.0 gives 0.0, not 2.1729236899484e-311"
#: its second: normal operands, the smallest normal number times 0.5, whose product is subnormal.
RESULT = "2.2250738585072014e-308 * 0.5 gives 0.0, not 1.1125369292536007e-308"
#: the fact's consequences, after their count
WHERE = "where an operand or the exact result is subnormal the engine differs because of it"
#: x / y where y is the largest float: 1.5 / max, subnormal, flushed
DIV_MAX = "x / y at x = 1.5, y = 1.7976931348623157e+308: value 0.0, expected 8.344026969402005e-309"


def _flushed(x):
    return flush(x) if isinstance(x, float) and math.isfinite(x) else x


class _TakesSubnormalOperandsAsZero(sound.Core):
    """Denormals-are-zero: a number it is given below the smallest normal one is 0; what it
    computes is kept."""

    def __init__(self, data, parents=()):
        super().__init__(data if parents else _flushed(data), parents)


class _TakesSubnormalOperandsAsZeroWithRelu(_TakesSubnormalOperandsAsZero):
    relu = sound.Nonlinear.relu


class _FlushesValues(sound.Core):
    """Every value it holds, given or computed, below the smallest normal number is 0 (as
    ``tests.engines.flushes_subnormals``); the partials its backward() multiplies by are kept."""

    def __init__(self, data, parents=()):
        super().__init__(_flushed(data), parents)


class _FlushesValuesAndPartials(_FlushesValues):
    """As XLA on the CPU: the partials are flushed too."""

    def _with_partials(self, data, parents, partials):
        return super()._with_partials(data, parents, tuple(_flushed(p) for p in partials))


def _flush_fact(result):
    (fact,) = [f for f in result.findings if f.summary.startswith("subnormal numbers are flushed to zero")]
    return fact


def _not_facts(result):
    return [f for f in result.findings if f.kind in DEFECT_KINDS or f.kind == "inconclusive"]


# ---------------------------------------------------------------------- how the flush is found
def test_an_engine_that_takes_subnormal_operands_as_zero_is_found_by_its_first_product_only():
    # the second product's operands are normal and its result is made by the engine: kept
    assert subnormals_flushed(_TakesSubnormalOperandsAsZero) == OPERAND
    assert subnormals_flushed(_FlushesValues) == f"{OPERAND}; {RESULT}"


class _RefusesSubnormals(sound.Value):
    """Refuses a number below the smallest normal one, given or computed, with a ValueError."""

    def __init__(self, data, parents=()):
        if isinstance(data, float) and 0 < abs(data) < SMALLEST_NORMAL:
            raise ValueError(f"Value: {data!r} is subnormal")
        super().__init__(data, parents)


@pytest.mark.slow
def test_an_engine_that_refuses_subnormals_does_not_flush_them():
    # it raises on the first product (its operand): that is no flush, the edge points judge it op by op
    assert subnormals_flushed(_RefusesSubnormals) is None
    result = run_check("edge_points", _RefusesSubnormals)
    assert not [f for f in result.findings if "flushed" in f.summary]
    crashes = [f.summary for f in result.findings if (f.kind, f.op) == ("crash", "exp")]
    assert crashes and crashes[0].startswith(
        "x.exp() at x = 5e-324: forward raises ValueError: Value: 5e-324 is"
    )


# ---------------------------------------------------------------------- the fact and its consequences
@pytest.mark.parametrize(
    ("engine", "how", "consequences"),
    [(_TakesSubnormalOperandsAsZero, OPERAND, ""),
     (_TakesSubnormalOperandsAsZeroWithRelu, OPERAND,
      f"; at 1 edge point {WHERE} (relu), e.g. x.relu() at x = 5e-324: d/dx 0; sympy/mpmath 1.0 differs, "
      "confirmed by certified first differences of the definition 1.0"),
     (_FlushesValues, f"{OPERAND}; {RESULT}", f"; at 2 edge points {WHERE} (div), e.g. {DIV_MAX}"),
     (_FlushesValuesAndPartials, f"{OPERAND}; {RESULT}",
      f"; at 4 edge points {WHERE} (div), e.g. {DIV_MAX}")],
    ids=["operands-nowhere", "operands-relu", "values", "values-and-partials"],
)  # fmt: skip
def test_the_flush_is_one_fact_that_counts_the_points_where_it_shows(engine, how, consequences):
    # By hand, at the points of Core's ops where an operand or the exact result is subnormal:
    # - an operand of +-5e-324 taken as 0 moves x * y, x / y, x * c, x / c, x + 0 by at most
    #   3 * 5e-324, inside the forward tolerance (16 times the smallest subnormal, and more), and
    #   x + y, x - y, x + c not at all; their partials (1.5, 1 / 1.5, c, 1 / c, +-1) are normal;
    # - relu'(5e-324) is 1, but relu' of the 0 it is taken as is 0 (a slope no relative step can
    #   difference below 1e-290, but the definition's certified differences can), one point;
    # - a computed value flushed: x / y at y = +-max is +-8.3e-309, subnormal, and 0: two points;
    # - a partial flushed too: d(x / y)/dx = 1 / y is subnormal at y = +-max (two findings at
    #   each of those points, counted once) and at y = +-1.5 * 2 ** 1022 = +-6.74e307, where the
    #   value 1.5 / y is the smallest normal number, kept: four points.
    result = run_check("edge_points", engine)
    assert result.status == "passed" and not _not_facts(result)
    fact = _flush_fact(result)
    assert (fact.kind, fact.check, fact.op) == ("convention", "edge_points", None)
    head = f"subnormal numbers are flushed to zero ({how}): an engine-wide choice, not a defect of each op"
    assert fact.summary.startswith(head + consequences), fact.summary
    if not consequences:
        assert fact.summary == head


# ---------------------------------------------------------------------- where subnormal ends
class _FlushesWithExpSlopeHalvedAtZero(flushes_subnormals.Value):
    """A flushing engine whose exp'(0) is 0.5: 0 is no subnormal number, so that is a defect."""

    exp_partial = staticmethod(lambda x, out: out / 2 if x == 0 else out)


def test_a_wrong_rule_at_zero_beside_the_flush_is_a_defect():
    result = run_check("edge_points", _FlushesWithExpSlopeHalvedAtZero)
    defects = [f for f in result.findings if f.kind in DEFECT_KINDS]
    assert result.status == "failed" and [(f.kind, f.op) for f in defects] == [("wrong_gradient", "exp")]
    assert defects[0].summary.startswith("x.exp() at x = 0.0: d/dx 0.5; sympy/mpmath 1.0 differs")


class _FlushesAndDividesByTheReciprocal(_FlushesValues):
    """c / x computed as (1 / x) * c: where 1 / x is subnormal the flush makes it 0, also where
    c / x is a normal number."""

    def __rtruediv__(self, other):
        return self._lift(1) / self * other


def test_a_value_off_where_the_exact_result_is_the_smallest_normal_number_is_a_defect():
    # c / x where it leaves the normal floats (found by bisection): -2 / x at x = +-2 ** 1023 and
    # 1.5 / x at x = +-1.5 * 2 ** 1022 are exactly -+2 ** -1022, the smallest normal number, not
    # a subnormal one; 1 / x there is 2 ** -1023 or 2 ** -1022 / 1.5, subnormal, flushed: 0
    result = run_check("edge_points", _FlushesAndDividesByTheReciprocal)
    (wrong,) = [f for f in result.findings if (f.kind, f.op) == ("wrong_value", "rdiv")]
    assert result.status == "failed"
    for at in (
        f"-2 / x at x = {2.0**1023!r}: value -0.0, expected -{SMALLEST_NORMAL!r}",
        f"Fraction(3, 2) / x at x = {1.5 * 2.0**1022!r}: value 0.0, expected {SMALLEST_NORMAL!r}",
    ):
        assert at in wrong.summary, wrong.summary
    # the finding carries the point its summary names first (the flush rule and reports read it)
    assert wrong.point == (float(re.search(r" at x = (\S+?): value", wrong.summary)[1]),)


# ---------------------------------------------------------------------- a point no reference settles
UNSETTLED = "no certified reference (the reference did not settle: the intervals are still wide at 8192 bits)"


@pytest.mark.slow
def test_an_uncertified_point_is_inconclusive_and_at_a_subnormal_operand_a_consequence_of_the_flush():
    # x + a zero no interval settles (tests.unsettled), computed as x * 1.0
    with registered(HIDDEN_ZERO_OP):
        result = run_check("edge_points", _FlushesValues)
    (unsettled,) = [f for f in result.findings if f.op == "test_hidden_zero"]
    assert (unsettled.kind, unsettled.check) == ("inconclusive", "edge_points")
    assert unsettled.summary.startswith(f"x * 1.0 at x = 1.0: {UNSETTLED}; not judged (also: ")
    # its points: 0 and +-each of the 7 magnitudes (no threshold: 1 is not certified); at 0 sin and cos are
    # exact, so it settles; x * 1.0 at +-5e-324 (a subnormal operand, no exact value to look at)
    # is the flush's, beside x / y at y = +-max (above): four points.  The other 12 are inconclusive.
    fact = _flush_fact(result).summary
    assert "at 4 edge points" in fact and "(div, test_hidden_zero)" in fact
    assert result.status == "passed" and result.inconclusive == 12
