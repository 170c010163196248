"""The runner, the check registry and the checks' shared parts, where a slip changes what the audit
says without failing a whole audit: the mode and the seeds a search is run with, a check
registered at run time, the exception a number that is not one is read as, a crash of a one-node
graph, and which run of the engine each second opinion judges.

Each test judges a part through its public seam (:func:`~autograd.testing.runner.search`,
:func:`~autograd.testing.run_checks` with a check registered by the registry's decorator and
removed again, the trials of :mod:`autograd.testing.checks.gradients`, a check run by name) on a
fixture engine whose behaviour is written out where it is used.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import strategies as st

from autograd.testing import Graph, Node, resolve_engine, run_check, run_checks, runner
from autograd.testing.boundary import EngineRaised
from autograd.testing.checks import common, gradients, registry
from autograd.testing.findings import Finding, outcome
from tests.engines import wrong_every_other_pass

POW0 = resolve_engine("tests.engines.pow0_crash")  # x ** 0 raises at x = 0 (its partial divides by 0)
FLOAT32 = resolve_engine("tests.engines.float32")  # right gradients, every number rounded to float32
PLAIN_MUL_DOUBLED = "tests.engines.plain_mul_doubled"  # plain mul rule 2x, its create_graph twin right


class _HalfAgainEveryOtherPass(wrong_every_other_pass.Value):
    """``tests.engines.wrong_every_other_pass`` made exact: every second ``backward()`` pass seeds
    the output with 3/2, so two runs of one graph give different (exact) gradients."""

    seed = Fraction(3, 2)


# ---------------------------------------------------------------------- the runner and the registry
@pytest.fixture
def throwaway_registry(monkeypatch):
    """The registry as it is, plus whatever a test registers (gone again after the test)."""
    monkeypatch.setattr(registry, "REGISTRY", dict(registry.REGISTRY))


def test_run_checks_hands_its_search_mode_to_each_check(throwaway_registry):
    seen: list[runner.SearchMode] = []

    @registry.check("mode_seen", order=99)
    def mode_seen(run):  # one outcome, not a list: the registry makes it one
        seen.append(run.mode)
        return outcome("mode_seen", [], judged=1, unit="runs", reason="records the mode it was run with")

    verdict_mode = runner.SearchMode(shrink=False, first_defect=True)
    asked = run_checks(["mode_seen"], "autograd", examples=1, mode=verdict_mode)
    assert asked["mode_seen"].judged == 1 and asked["mode_seen"].status == "passed"
    run_checks(["mode_seen"], "autograd", examples=1)
    assert seen == [verdict_mode, runner.SearchMode(shrink=True, first_defect=False)]


def test_a_search_goes_on_after_a_defect_with_the_next_seed():
    # every example shows one and the same defect: the first round stops at its first draw (drawn,
    # then replayed by hypothesis), and the rest of the budget, seven draws, is a second round
    # seeded with seed + 1, so it draws what a search that starts at seed + 1 draws
    def draws(seed: int, budget: int, defect: bool) -> list[int]:
        seen: list[int] = []

        def trial(x: int) -> list[Finding]:
            seen.append(x)
            return [Finding("wrong_value", "c", "v", "sub")] if defect else []

        no_shrink = runner.SearchMode(shrink=False)
        runner.search(runner.Trials(), ("c",), st.integers(0, 10**6), trial, budget, seed, mode=no_shrink)
        return seen

    after_defect = draws(5, 8, defect=True)
    assert len(after_defect) == 2 + 7 and after_defect[0] == after_defect[1]
    assert after_defect[2:] == draws(6, 7, defect=False)
    assert after_defect[2:] != draws(4, 7, defect=False)


# ---------------------------------------------------------------------- reading an engine's numbers
class _Opaque:
    """Data that is no number: no ``__float__``."""


def test_data_without_a_float_is_refused_with_its_type_as_the_cause():
    with pytest.raises(EngineRaised) as raised:
        common.as_number("forward", _Opaque())
    cause = raised.value.__cause__  # what a traceback of the refusal shows under it
    assert isinstance(cause, TypeError) and str(cause) == "_Opaque"


# ---------------------------------------------------------------------- crashes and blame
def test_a_crash_of_a_one_node_graph_is_reported_on_the_graph_as_drawn():
    # x1 ** 0 at x1 = 0 (x0 = 5 is a leaf no node uses): nothing to cut down, every leaf kept
    graph = Graph((5.0, 0.0), (Node("powc", (1,), 0),))
    (crash,) = gradients.float_trial(POW0, "symbolic", "powc")(graph)
    assert (crash.kind, crash.op) == ("crash", "powc")
    assert crash.summary.startswith("forward of x1 ** 0 at x1 = 0.0 raises ZeroDivisionError")
    assert crash.expected == "[0.0, 0.0] (no exception)"  # d/dx0 = 0 (unused), d(x1 ** 0)/dx1 = 0
    assert "x0 = Value(5.0)\nx1 = Value(0.0)\n" in crash.reproducer


def test_blame_never_renames_the_op_a_finding_of_one_node_names():
    finding = Finding("wrong_gradient", "symbolic", "s", "mul")  # the op under test of its search
    one_node = Graph((2.0,), (Node("exp", (0,)),))
    assert gradients.blame(finding, one_node, lambda op, g: []).op == "mul"


# ---------------------------------------------------------------------- which run a vote judges
def test_a_float32_engines_right_gradients_are_judged_at_its_precision():
    # in float32, d(x0 * x1)/dx0 at (0.1, 0.3) is 0.30000001192092896: 4e-8 from 0.3, far past a
    # float64 tolerance, inside float32's; neither the symbolic oracle nor the trial objects
    graph = Graph((0.1, 0.3), (Node("mul", (0, 1)),))
    assert gradients.gradient_findings(FLOAT32, "symbolic", graph, "mul") == []
    assert gradients.float_trial(FLOAT32, "symbolic", "mul", forward=True)(graph) == []


def test_the_exact_trial_judges_the_gradients_of_the_run_it_made():
    # two trials of one graph, two runs: one right, one 3/2 times off; the wrong one is reported
    # with its own numbers (never cleared, or blamed, by judging another run)
    eng = resolve_engine(_HalfAgainEveryOtherPass)
    graph = Graph((Fraction(1, 3), Fraction(2)), (Node("mul", (0, 1)),))
    trial = gradients.exact_trial(eng, "mul")
    (wrong,) = trial(graph) + trial(graph)
    assert (wrong.kind, wrong.op) == ("wrong_gradient", "mul")
    # d(x0 * x1) at (1/3, 2) is [2, 1/3]; 3/2 of it is [3, 1/2]
    assert (wrong.expected, wrong.actual) == ("[2, Fraction(1, 3)]", "[3, Fraction(1, 2)]")


def test_a_wrong_hessian_is_confirmed_by_differences_of_the_reference_gradient():
    # the engine's Hessian of a mul term is twice sympy's, and so are the differences of its own
    # plain gradient (the same wrong rule): only the reference gradient's confirm the defect
    found = run_check("second_order", PLAIN_MUL_DOUBLED, examples=2, ops=["mul"]).findings
    wrong = [f for f in found if f.kind == "wrong_gradient"]
    assert wrong, found
    assert all("confirmed by finite differences of the reference gradient" in f.summary for f in wrong)
    assert not [f for f in found if "agree with the engine" in f.summary]
