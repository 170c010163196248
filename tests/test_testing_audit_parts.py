"""The audit's own parts (the runner, the check registry and the checks' shared functions), one
at a time, in process.

Whole audits (tests/test_testing_audit.py) take seconds to minutes each, so every surviving
mutant of the runner and the checks pays for them; these take milliseconds and judge each part
through its public seam (:mod:`autograd.testing.runner`, the functions of
:mod:`autograd.testing.checks.common` and :mod:`~autograd.testing.checks.gradients`, a check
run from the registry) by what it must do: how an engine's number is read, how a crash or a
wrong value is cut down to one node, how a search counts what it judged and goes on after a
defect, how a stateful failure is classified.  Expected values are written by hand (or are
sympy's, or exact Fractions), never taken from the function under test.
"""

from __future__ import annotations

import dataclasses
import re
import time
import typing
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, Phase, Verbosity, settings
from hypothesis import strategies as st
from hypothesis.database import InMemoryExampleDatabase

from autograd.testing import (
    Graph,
    Node,
    audit,
    oracles,
    resolve_engine,
    run_check,
    run_checks,
    runner,
)
from autograd.testing import strategies as gs
from autograd.testing.auditor import capabilities
from autograd.testing.boundary import EngineRaised
from autograd.testing.checks import (
    OUR_CONVENTION,
    EngineCrash,
    ModelMismatch,
    PropertyViolated,
    backward_convention,
    common,
    convention_gradients,
    convention_reproducer,
    gradients,
    machine,
    per_op,
    properties,
    registry,
    stateful,
)
from autograd.testing.checks.registry import REGISTRY, Run, run_registered
from autograd.testing.engines import EngineNotFound
from autograd.testing.findings import Finding
from autograd.testing.findings import outcome as check_outcome
from autograd.testing.ops import OPS
from autograd.testing.oracles import (
    GradcheckReport,
    GradientMismatch,
    LeafComparison,
    OracleInconclusive,
    higher,
)
from autograd.testing.report import DEFAULT_EXAMPLES
from tests.engines import sound
from tests.snippets import printed

OURS = resolve_engine("autograd")
WRONG_MUL = resolve_engine("tests.engines.audit_wrong_mul")  # d(x*y) scaled by 101/100
WRONG_EXP = resolve_engine("tests.engines.planted_forward")  # exp's value 1e-10 too large
MISSING = resolve_engine("tests.engines.missing_ops")
RSUB = resolve_engine("tests.engines.rsub_value_only")  # c - v computed as v - c, its derivative right
POW0 = resolve_engine("tests.engines.pow0_crash")  # d(x ** 0) at 0 divides by zero
FLOAT_ONLY = resolve_engine("tests.engines.float_only")  # refuses Fractions
SIGMOID_SLIP = resolve_engine("tests.engines.planted_symbolic")  # sigmoid's gradient 1e-4 too large


def x0_times_x1_plus_x0(a: object, b: object) -> Graph:
    return Graph((a, b), (Node("mul", (0, 1)), Node("add", (2, 0))))


def _check(name: str, eng, examples: int, seed: int = 0, **options):
    """The outcome ``name`` of the registry's check run on its own (``options``: of :class:`Run`)."""
    return run_registered(Run(eng, examples, seed, **options), [name])[name]


def _per_op(eng, ops, examples, seed, checks=per_op.PER_OP_CHECKS):
    """The per-op searches asked for (``checks``): the outcomes of all three, in report order."""
    return list(run_registered(Run(eng, examples, seed, ops), checks).values())


def _ops(eng):
    return _check("ops", eng, 1)


def _mlp(eng, examples, seed):
    return _check("mlp", eng, examples, seed)


def _second_order(eng, examples, seed, ops=None):
    return _check("second_order", eng, examples, seed, ops=ops)


def _stateful(eng, examples, seed, declared=None):
    """The stateful check's outcome and the backward() convention it observed (None: none known)."""
    run = Run(eng, examples, seed, convention=declared)
    found = run_registered(run, ["stateful"])["stateful"]
    return found, run.observed.get("convention")


# ---------------------------------------------------------------------- reading numbers
def test_an_engines_number_is_read_as_it_is_or_through_its_float():
    class Box:
        def __float__(self) -> float:
            return 2.5

    for x in (3, 0.25, Fraction(1, 3)):
        got = common.as_number("forward", x)
        assert got == x and type(got) is type(x)
    assert common.as_number("forward", Box()) == 2.5


@pytest.mark.parametrize("data", [object(), "2.5", b"2.5", None, [1.0]])
def test_data_that_is_not_a_number_is_the_engines_error_naming_it(data):
    # a string holding a number is not a number: read as one, it would hide the engine's defect
    with pytest.raises(EngineRaised) as raised:
        common.as_number("forward", data)
    assert raised.value.stage == "forward"
    assert isinstance(raised.value.exc, TypeError) and repr(data) in str(raised.value)


def test_run_returns_the_engines_value_and_leaf_gradients():
    out, grads = common.run_graph(OURS, x0_times_x1_plus_x0(2.0, 3.0))
    assert out == 8.0 and grads == [4.0, 2.0]  # d/dx0 = x1 + 1, d/dx1 = x0
    out, grads = common.run_graph(WRONG_MUL, x0_times_x1_plus_x0(Fraction(2), Fraction(3)))
    assert out == 8 and grads == [Fraction(303, 100) + 1, Fraction(202, 100)]


def test_run_says_at_which_stage_the_engine_raised():
    with pytest.raises(EngineRaised) as raised:
        common.run_graph(OURS, Graph((0.0,), (Node("log", (0,)),)))
    assert raised.value.stage == "forward" and "log" in str(raised.value)


def _engine_where(eng=OURS, **methods) -> object:
    """An engine's adapter (ours by default) with some of its methods or properties replaced."""
    cls = type("Patched", (type(eng),), methods)
    return cls(**{f.name: getattr(eng, f.name) for f in dataclasses.fields(eng) if f.init})


def _unreadable(self, v, stage):
    raise EngineRaised(stage, RuntimeError("cannot read it"))  # what the engine raised, as Engine says it


@pytest.mark.parametrize(
    ("methods", "stage", "message"),
    [
        (
            {"data": lambda self, v, stage="forward": _unreadable(self, v, stage)},
            "forward",
            "RuntimeError: cannot read it",
        ),
        (
            {"data": lambda self, v, stage="forward": "2.5"},
            "forward",
            "the output's data is '2.5', not a number",
        ),
        (
            {"grad": lambda self, v, stage="backward()": _unreadable(self, v, stage)},
            "backward()",
            "RuntimeError: cannot read it",
        ),
    ],
    ids=["data-raises", "data-not-a-number", "grad-raises"],
)
def test_run_says_at_which_stage_reading_the_engine_failed(methods, stage, message):
    with pytest.raises(EngineRaised) as raised:
        common.run_graph(_engine_where(**methods), x0_times_x1_plus_x0(2.0, 3.0))
    assert raised.value.stage == stage and message in str(raised.value)


# ---------------------------------------------------------------------- describing a graph
def test_single_nodes_are_each_node_on_the_operand_values_it_saw():
    singles = common.single_nodes(x0_times_x1_plus_x0(2.0, 3.0))
    assert [op for op, _ in singles] == ["mul", "add"]
    (_, mul), (_, add) = singles
    assert mul.leaves == (2.0, 3.0) and mul.nodes == (Node("mul", (0, 1)),)
    assert add.leaves == (6.0, 2.0) and add.nodes == (Node("add", (0, 1)),)


def test_a_node_reusing_one_operand_stays_one_leaf_used_twice():
    graph = Graph((3.0,), (Node("add", (0, 0)), Node("mulc", (1,), 2.5), Node("mul", (2, 2))))
    (_, add), (_, mulc), (_, square) = common.single_nodes(graph)
    assert add.leaves == (3.0,) and add.nodes == (Node("add", (0, 0)),)
    assert mulc.leaves == (6.0,) and mulc.nodes == (Node("mulc", (0,), 2.5),)
    assert square.leaves == (15.0,) and square.nodes == (Node("mul", (0, 0)),)


def test_where_names_the_expression_and_point_or_only_the_size_of_a_big_graph():
    assert common.where(x0_times_x1_plus_x0(2.0, 3.0)) == "(x0 * x1) + x0 at x0 = 2.0, x1 = 3.0"
    # the leaves the expression uses only: 40 sums of neighbours, of which the output uses the last
    nodes = tuple(Node("add", (i, i + 1)) for i in range(40))
    assert (
        common.where(Graph(tuple(float(i) for i in range(41)), nodes))
        == "x39 + x40 at x39 = 39.0, x40 = 40.0"
    )
    chain = (Node("add", (0, 1)), *(Node("add", (40 + i, i + 1)) for i in range(1, 40)))
    big = Graph(tuple(float(i) for i in range(41)), chain)
    assert common.where(big) == "a graph of 40 nodes on 41 leaves (see the reproducer)"


def test_numbers_are_written_as_python_source():
    assert common.num(Fraction(1, 3)) == "Fraction(1, 3)"
    assert common.num(Fraction(4)) == "4"
    assert common.num(-0.5) == "-0.5" and common.num(7) == "7"
    assert common.num(float("inf")) == "inf"

    class Box:
        def __float__(self) -> float:
            return 0.75

        def __repr__(self) -> str:
            return "Box()"

    assert common.num(Box()) == "0.75"
    assert common.num(object.__new__(type("Odd", (), {"__repr__": lambda self: "Odd()"}))) == "Odd()"
    assert common.numbers_source([Fraction(1, 2), 2, 0.5]) == "[Fraction(1, 2), 2, 0.5]"


def test_a_fraction_too_long_for_str_is_written_to_17_digits():
    # 10**5000 / 3 has more digits than int -> str converts by default (4300)
    assert common.num(Fraction(10**5000, 3)) == "3.3333333333333333e+4999"


def test_a_float_subclass_is_written_as_a_plain_float():
    class Tagged(float):
        def __repr__(self) -> str:
            return f"Tagged({float(self)!r})"

    assert (
        common.num(Tagged(1.5)) == "1.5"
    )  # pasted into a reproducer, it must run without the engine's types


def test_where_shows_an_expression_and_point_of_up_to_160_characters():
    # x0 + x1 at x0 = Fraction(1, 2), x1 = Fraction(1, 10**k): 7 + 40 + k characters
    def graph(k: int) -> Graph:
        return Graph((Fraction(1, 2), Fraction(1, 10**k)), (Node("add", (0, 1)),))

    point = f"x0 = Fraction(1, 2), x1 = Fraction(1, {10**113})"
    assert len("x0 + x1") + len(point) == 160
    assert common.where(graph(113)) == f"x0 + x1 at {point}"
    assert common.where(graph(114)) == "a graph of 1 nodes on 2 leaves (see the reproducer)"


def test_the_value_reproducer_prints_the_output_value_not_the_gradients():
    script = common.value_snippet(OURS, x0_times_x1_plus_x0(2.0, 3.0), "8.0")
    lines = script.splitlines()
    assert lines[-1] == "print('actual:  ', n3.data)"
    assert "backward()" not in script and "n3 = n2 + x0" in script
    assert "8.0" in script


# ---------------------------------------------------------------------- oracles' expected values
def test_sympy_gradient_is_exact_on_rationals_and_floats_elsewhere():
    assert common.sympy_gradient(Graph((Fraction(1, 3), Fraction(2)), (Node("mul", (0, 1)),))) == (
        "[2, Fraction(1, 3)]"
    )
    assert common.sympy_gradient(x0_times_x1_plus_x0(2.0, 3.0)) == "[4.0, 2.0]"
    # 1/x at 0: a pole, so the expected gradient is not stated
    assert common.sympy_gradient(Graph((0.0,), (Node("rdiv", (0,), 1.0),))) == ""


@pytest.mark.parametrize(
    ("grads", "exact"),
    [
        ((1, Fraction(1, 3)), True),
        ((1, 0.5), False),
        ((True, Fraction(1, 3)), False),
        ((Fraction(1), 1.0), False),
    ],
)
def test_only_ints_and_fractions_are_exact_numbers(grads, exact):
    # the engine's gradients as given: only ints and Fractions are judged by equality
    eng = _engine_where(grad=lambda self, v, stage="backward()": grads[v.data == 2])
    graph = Graph((Fraction(3), Fraction(2)), (Node("add", (0, 1)),))
    found = gradients.exact_trial(eng, "add")(graph)
    inconclusive = [f for f in found if f.kind == "inconclusive"]
    assert (inconclusive == []) == exact
    if not exact:
        assert inconclusive[0].summary == "x0 + x1: the engine's numbers are not all exact"


# ---------------------------------------------------------------------- trials
def test_a_wrong_gradient_is_confirmed_and_blamed_on_the_wrong_node():
    (finding,) = gradients.float_trial(WRONG_MUL, "symbolic", "add")(x0_times_x1_plus_x0(2.0, 3.0))
    assert finding.kind == "wrong_gradient" and finding.op == "mul" and finding.check == "symbolic"
    assert "x0 * x1" in finding.summary and "(x0 * x1) + x0" not in finding.summary  # the single node
    assert "confirmed by" in finding.summary


def test_a_right_engine_gets_no_finding_from_either_trial():
    assert gradients.float_trial(OURS, "symbolic", None, forward=True)(x0_times_x1_plus_x0(2.0, 3.0)) == []
    assert gradients.exact_trial(OURS, None)(x0_times_x1_plus_x0(Fraction(1, 3), Fraction(2))) == []


def test_the_exact_trial_demands_equality_and_blames_the_node():
    (finding,) = gradients.exact_trial(WRONG_MUL, "add")(x0_times_x1_plus_x0(Fraction(1, 3), Fraction(2)))
    assert finding.kind == "wrong_gradient" and finding.op == "mul" and finding.check == "exact"
    assert finding.expected == "[2, Fraction(1, 3)]"  # d(x0*x1) at (1/3, 2), by hand
    assert finding.actual == "[Fraction(101, 50), Fraction(101, 300)]"
    assert finding.summary == (
        "d/dx0, d/dx1 of x0 * x1 at x0 = Fraction(1, 3), x1 = 2: "
        "engine [Fraction(101, 50), Fraction(101, 300)], exactly [2, Fraction(1, 3)]"
    )


def test_the_exact_trial_says_inconclusive_when_the_engines_numbers_are_floats():
    (finding,) = gradients.exact_trial(OURS, "add")(Graph((0.5, 2.0), (Node("add", (0, 1)),)))
    assert finding.kind == "inconclusive" and finding.check == "exact" and "not all exact" in finding.summary


def test_the_exact_trial_reports_a_wrong_value_with_a_reproducer_that_prints_it():
    # 1 - 1/2 is 1/2; the engine computes 1/2 - 1.  d(1 - x)/dx = -1 is right, so nothing else
    (finding,) = gradients.exact_trial(RSUB, "rsub")(Graph((Fraction(1, 2),), (Node("rsub", (0,), 1),)))
    assert (finding.kind, finding.check, finding.op) == ("wrong_value", "exact", "rsub")
    assert finding.summary == "1 - x0 at x0 = Fraction(1, 2): engine Fraction(-1, 2), exactly Fraction(1, 2)"
    assert (finding.expected, finding.actual) == ("Fraction(1, 2)", "Fraction(-1, 2)")
    assert printed(finding.reproducer) == "expected: 1/2\nactual:   -1/2"


def test_a_wrong_value_and_the_wrong_gradient_it_causes_are_both_reported():
    # x (1 - x) at 1/3 is 2/9, its derivative 1 - 2x = 1/3.  The engine's 1 - x is x - 1 = -2/3, so
    # it gives x (x - 1) = -2/9 and d/dx = (x - 1) + x * (-1) = -1.  No single node is wrong on the
    # values it should see, so the gradient stays on the whole graph (and on the op searched)
    graph = Graph((Fraction(1, 3),), (Node("rsub", (0,), 1), Node("mul", (0, 1))))
    value, gradient = gradients.exact_trial(RSUB, "rsub")(graph)
    assert (value.kind, value.expected, value.actual) == ("wrong_value", "Fraction(2, 9)", "Fraction(-2, 9)")
    assert (gradient.kind, gradient.check, gradient.op) == ("wrong_gradient", "exact", "rsub")
    assert gradient.summary == (
        "d/dx0 of x0 * (1 - x0) at x0 = Fraction(1, 3): engine [-1], exactly [Fraction(1, 3)]"
    )
    assert (gradient.expected, gradient.actual) == ("[Fraction(1, 3)]", "[-1]")
    assert printed(gradient.reproducer) == "expected: [Fraction(1, 3)]\nactual:   [Fraction(-1, 1)]"


def test_the_exact_trial_names_only_the_wrong_partials():
    # d(x0 x1) at (0, 3) is (3, 0); the engine's 101/100 of it is wrong only in d/dx0
    (finding,) = gradients.exact_trial(WRONG_MUL, None)(
        Graph((Fraction(0), Fraction(3)), (Node("mul", (0, 1)),))
    )
    assert (
        finding.summary
        == "d/dx0 of x0 * x1 at x0 = 0, x1 = 3: engine [Fraction(303, 100), 0], exactly [3, 0]"
    )
    assert finding.op == "mul"  # a one-node graph names its node's op when no op is searched


def test_the_exact_trial_reports_a_crash_cut_down_to_its_node_and_nothing_else():
    graph = Graph((Fraction(0), Fraction(2)), (Node("powc", (0,), 0), Node("mul", (2, 1))))
    (finding,) = gradients.exact_trial(POW0, None)(graph)
    assert (finding.kind, finding.check, finding.op) == ("crash", "exact", "powc")
    assert finding.summary == "forward of x0 ** 0 at x0 = 0 raises ZeroDivisionError: Fraction(1, 0)"
    assert (finding.expected, finding.actual) == ("[0] (no exception)", "ZeroDivisionError: Fraction(1, 0)")


def test_the_exact_trial_without_exact_numbers_says_so_and_claims_nothing():
    # exact through + - * /, but d(x ** 3) comes back as a float: not judged by equality
    float_pow = resolve_engine("tests.engines.exact_but_float_pow")
    graph = Graph((Fraction(1, 2),), (Node("powc", (0,), 3),))
    (finding,) = gradients.exact_trial(float_pow, "powc")(graph)
    assert (finding.kind, finding.check, finding.op) == ("inconclusive", "exact", "powc")
    assert finding.summary == "x0 ** 3: the engine's numbers are not all exact"


def test_the_exact_trial_is_inconclusive_where_the_exact_oracle_cannot_judge(monkeypatch):
    def cannot_judge(graph, eng, **given):
        raise OracleInconclusive("no reference here")

    monkeypatch.setattr(oracles, "assert_grads_exact", cannot_judge)
    graph = Graph((Fraction(1, 3), Fraction(2)), (Node("mul", (0, 1)),))
    (finding,) = gradients.exact_trial(WRONG_MUL, "mul")(graph)
    assert (finding.kind, finding.check, finding.op) == ("inconclusive", "exact", "mul")
    assert finding.summary == "x0 * x1 at x0 = Fraction(1, 3), x1 = 2: no reference here"


def test_a_confirmed_wrong_gradient_says_both_opinions_and_prints_what_it_says():
    graph = Graph((2.0, 3.0), (Node("mul", (0, 1)),))
    (finding,) = gradients.gradient_findings(WRONG_MUL, "symbolic", graph, "mul")
    assert (finding.kind, finding.check, finding.op) == ("wrong_gradient", "symbolic", "mul")
    # d(x0 x1) = (3, 2) by hand; the engine sends 101/100 of it
    head = (
        "d/dx0, d/dx1 of x0 * x1 at x0 = 2.0, x1 = 3.0: engine [3.0300000000000002, 2.02]; "
        "sympy [3, 2] differs, confirmed by finite differences ["
    )
    assert finding.summary.startswith(head), finding.summary
    differences = eval(finding.summary[len(head) - 1 :])
    assert [round(d, 9) for d in differences] == [3, 2]
    assert (finding.expected, finding.actual) == ("[3, 2]", "[3.0300000000000002, 2.02]")
    assert printed(finding.reproducer) == "expected: [3, 2]\nactual:   [3.0300000000000002, 2.02]"


def _rejects(monkeypatch, *rows: tuple[str, float, float, bool]) -> None:
    """The symbolic oracle stands in, rejecting the engine on the given rows (name, engine, oracle, ok)."""

    def reject(graph, eng, **given):
        report = GradcheckReport("stand-in")
        report.rows = [LeafComparison(n, 0.0, g, w, abs(g - w), 0.0, 0.0, ok) for n, g, w, ok in rows]
        raise GradientMismatch(str(report), report)

    monkeypatch.setattr(oracles, "assert_grads_symbolic", reject)


def test_a_rejection_the_second_method_does_not_share_is_inconclusive(monkeypatch):
    # the engine is right (d(x0 x1) = (3, 2)); a first opinion saying otherwise convicts nothing
    _rejects(monkeypatch, ("x0", 3.0, 3.5, False), ("x1", 2.0, 2.0, True))
    (finding,) = gradients.gradient_findings(
        OURS, "symbolic", Graph((2.0, 3.0), (Node("mul", (0, 1)),)), "mul"
    )
    assert (finding.kind, finding.check, finding.op) == ("inconclusive", "symbolic", "mul")
    head = "d/dx0 of x0 * x1 at x0 = 2.0, x1 = 3.0: engine [3.0, 2.0]; sympy [3.5, 2.0] differs, "
    head += "finite differences ["
    assert finding.summary.startswith(head) and finding.summary.endswith("]: not confirmed, unresolved")
    assert [
        round(d, 9) for d in eval(finding.summary[len(head) - 1 : -len(": not confirmed, unresolved")])
    ] == [3, 2]
    assert (finding.expected, finding.actual) == ("[3.5, 2.0]", "[3.0, 2.0]")


def test_a_rejection_is_inconclusive_when_the_second_method_cannot_judge(monkeypatch):
    # relu at its kink: finite differences find no step that avoids it
    _rejects(monkeypatch, ("x0", 0.0, 1.0, False))
    (finding,) = gradients.gradient_findings(
        FLOAT_ONLY, "symbolic", Graph((0.0,), (Node("relu", (0,)),)), None
    )
    assert finding.kind == "inconclusive"
    assert finding.summary == (
        "d/dx0 of x0.relu() at x0 = 0.0: engine [0.0]; sympy [1.0] differs, finite differences cannot judge "
        "(finite differences: no step along x0 avoids a kink or a jump): unresolved"
    )


def test_the_symbolic_oracle_that_cannot_judge_is_an_inconclusive_finding(monkeypatch):
    def cannot_judge(graph, eng, **given):
        raise OracleInconclusive("no tolerance here")

    monkeypatch.setattr(oracles, "assert_grads_symbolic", cannot_judge)
    findings = gradients.gradient_findings(
        WRONG_MUL, "edges", Graph((2.0, 3.0), (Node("mul", (0, 1)),)), "mul"
    )
    assert findings == [
        Finding("inconclusive", "edges", "x0 * x1 at x0 = 2.0, x1 = 3.0: no tolerance here", "mul")
    ]


@pytest.mark.parametrize(
    ("eng", "graph", "rejects"),
    [
        (WRONG_MUL, Graph((2.0, 3.0), (Node("mul", (0, 1)),)), True),
        (OURS, Graph((2.0, 3.0), (Node("mul", (0, 1)),)), False),
        # sigmoid: finite differences resolve its 1e-4 slip
        (SIGMOID_SLIP, Graph((1.0,), (Node("sigmoid", (0,)),)), True),
        (OURS, Graph((1.0,), (Node("sigmoid", (0,)),)), False),
        (FLOAT_ONLY, Graph((0.0,), (Node("relu", (0,)),)), None),
    ],
    ids=["mul-rejects", "mul-agrees", "fd-rejects", "fd-agrees", "fd-blind"],
)
def test_the_second_vote_is_finite_differences_on_the_gradients_of_the_run(eng, graph, rejects):
    _, grads = common.run_graph(eng, graph)
    vote = oracles.fd_vote(graph, eng, grads)
    assert (vote.method, vote.rejects) == ("finite differences", rejects)


def test_a_wrong_forward_value_is_reported_when_a_float_evaluation_agrees():
    graph = Graph((0.5,), (Node("exp", (0,)),))
    (finding,) = gradients.forward_finding(WRONG_EXP, graph, 1.6487212707001282 * (1 + 1e-10), "exp")
    assert finding.kind == "wrong_value" and finding.check == "forward" and finding.op == "exp"
    assert finding.expected == "1.6487212707001282"  # e ** 0.5, rounded
    assert gradients.forward_finding(OURS, graph, 1.6487212707001282, "exp") == []


def test_a_forward_value_the_float_program_cannot_reach_is_inconclusive_not_wrong():
    # exp(800) overflows in floats: the plain evaluation cannot confirm, so no defect is claimed
    graph = Graph((800.0,), (Node("exp", (0,)),))
    (finding,) = gradients.forward_finding(OURS, graph, 1.0, "exp")
    assert (finding.kind, finding.check, finding.op) == ("inconclusive", "forward", "exp")
    assert finding.summary.startswith("x0.exp() at x0 = 800.0: symbolic oracle: ")  # the oracle's reason


def test_a_fraction_from_the_engine_is_judged_as_the_number_it_is():
    # an engine may keep its numbers as Fractions even on float leaves: 0.5 * 3.0 is 3/2
    graph = Graph((0.5, 3.0), (Node("mul", (0, 1)),))
    assert gradients.forward_finding(OURS, graph, Fraction(3, 2), "mul") == []
    (finding,) = gradients.forward_finding(OURS, graph, Fraction(2), "mul")
    assert (finding.kind, finding.expected, finding.actual) == ("wrong_value", "1.5", "Fraction(2, 1)")
    # nor is an int beyond the float range turned into a float (which would raise OverflowError)
    (finding,) = gradients.forward_finding(OURS, graph, 10**400, "mul")
    assert (finding.kind, finding.actual) == ("wrong_value", repr(10**400))


def test_a_value_exactly_at_the_tolerance_is_accepted(monkeypatch):
    monkeypatch.setattr(oracles, "symbolic_tolerances", lambda graph, precision: ([0.0, 0.0], 0.5))
    graph = Graph((0.5, 3.0), (Node("mul", (0, 1)),))  # 1.5
    assert gradients.forward_finding(OURS, graph, 2.0, "mul") == []
    assert [f.kind for f in gradients.forward_finding(OURS, graph, 2.25, "mul")] == ["wrong_value"]


EXP_HALF = 1.6487212707001282  # e ** 0.5, rounded


def test_a_wrong_forward_value_says_its_tolerance_and_what_a_float_evaluation_gives():
    slipped = EXP_HALF * (1 + 1e-10)
    (finding,) = gradients.forward_finding(WRONG_EXP, Graph((0.5,), (Node("exp", (0,)),)), slipped, "exp")
    head, tolerance, tail = re.fullmatch(r"(.*\(tolerance )([^;]*)(;.*)", finding.summary).groups()
    assert head == f"x0.exp() at x0 = 0.5: engine {slipped!r}, expected {EXP_HALF!r} (tolerance "
    assert 0 < float(tolerance) < 1e-10 * EXP_HALF  # derived from the rounding: far below the slip
    assert tail == f"; a float evaluation gives {EXP_HALF!r})"
    assert (finding.expected, finding.actual) == (repr(EXP_HALF), repr(slipped))
    assert printed(finding.reproducer) == f"expected: {EXP_HALF!r}\nactual:   {slipped!r}"


def test_a_value_the_float_program_shares_is_inconclusive_not_wrong(monkeypatch):
    # with no tolerance at all, the float program's own rounding of e ** 0.5 is off the reference:
    # the engine that computes what the program computes is not called wrong
    monkeypatch.setattr(oracles, "symbolic_tolerances", lambda graph, precision: ([0.0], 0.0))
    (finding,) = gradients.forward_finding(OURS, Graph((0.5,), (Node("exp", (0,)),)), EXP_HALF, "exp")
    assert (finding.kind, finding.check, finding.op) == ("inconclusive", "forward", "exp")
    assert finding.summary == (
        f"x0.exp() at x0 = 0.5: engine {EXP_HALF!r}; the reference {EXP_HALF!r} differs, "
        f"a float evaluation {EXP_HALF!r}: not confirmed, unresolved"
    )


def test_a_value_no_float_evaluation_can_confirm_is_inconclusive(monkeypatch):
    def overflows(graph, point=None):
        raise OverflowError("planted: the float program cannot run")

    monkeypatch.setattr(Graph, "evaluate", overflows)
    graph = Graph((0.5,), (Node("exp", (0,)),))
    (finding,) = gradients.forward_finding(OURS, graph, 2 * EXP_HALF, "exp")
    assert (finding.kind, finding.op) == ("inconclusive", "exp")
    assert finding.summary == (
        f"x0.exp() at x0 = 0.5: engine {2 * EXP_HALF!r}; the reference {EXP_HALF!r} differs, "
        "a float evaluation cannot judge (the float program cannot run): unresolved"
    )


def test_a_wrong_value_inside_a_graph_is_blamed_on_its_node_and_only_with_the_forward_check():
    # exp(x0) * x1: the engine's exp is 1e-10 too large, so the output is too
    graph = Graph((0.5, 2.0), (Node("exp", (0,)), Node("mul", (2, 1))))
    value, gradient = gradients.float_trial(WRONG_EXP, "symbolic", None, forward=True)(graph)
    assert (value.kind, value.op, value.check) == ("wrong_value", "exp", "forward")
    assert value.summary.startswith("x0.exp() at x0 = 0.5: engine ")  # the single node, not the product
    # d/dx1 = exp(x0) reads the same slip, which finite differences cannot resolve: not convicted
    assert gradient.kind == "inconclusive" and gradient.summary.startswith("d/dx1 of (x0.exp()) * x1 at ")
    assert gradients.float_trial(WRONG_EXP, "symbolic", None)(graph) == [gradient]


def test_a_crash_is_cut_down_to_the_node_that_raises_alone():
    pow0 = resolve_engine("tests.engines.pow0_crash")  # d(x ** 0) at 0 divides by zero
    graph = Graph((2.0, 3.0), (Node("sub", (0, 0)), Node("powc", (2,), 0), Node("mul", (3, 1))))
    with pytest.raises(EngineRaised) as raised:
        common.run_graph(pow0, graph)
    finding = common.crash(pow0, "symbolic", graph, raised.value, None)
    assert finding.kind == "crash" and finding.op == "powc" and finding.check == "symbolic"
    assert " of x0 ** 0 at x0 = 0.0 raises ZeroDivisionError" in finding.summary
    assert finding.expected == "[0.0] (no exception)" and finding.actual.startswith("ZeroDivisionError")


def test_a_crash_whose_float_program_cannot_run_is_reported_on_the_whole_graph():
    # exp(800) * x1: the engine raises, and so does the plain float program the cut-down evaluates
    graph = Graph((800.0, 2.0), (Node("exp", (0,)), Node("mul", (2, 1))))
    with pytest.raises(EngineRaised) as raised:
        common.run_graph(OURS, graph)
    finding = common.crash(OURS, "symbolic", graph, raised.value, "exp")
    assert finding.kind == "crash" and finding.op == "exp"
    assert finding.summary.startswith("forward of (x0.exp()) * x1 at x0 = 800.0, x1 = 2.0 raises Overflow")


class _ThreeNodesAtMost(sound.Value):
    """backward() refuses a graph of more than three nodes: only a whole graph raises, no node alone."""

    def _topological_order(self):
        order = super()._topological_order()
        if len(order) > 3:
            raise ValueError(f"backward: {len(order)} nodes, at most 3")
        return order


def test_a_crash_no_single_node_shows_is_reported_on_the_whole_graph_by_either_trial():
    eng = resolve_engine(_ThreeNodesAtMost)
    (crash,) = gradients.float_trial(eng, "symbolic", "add", forward=True)(x0_times_x1_plus_x0(2.0, 3.0))
    assert (crash.kind, crash.check, crash.op) == ("crash", "symbolic", "add")
    assert crash.summary == (
        "backward() of (x0 * x1) + x0 at x0 = 2.0, x1 = 3.0 raises ValueError: backward: 4 nodes, at most 3"
    )
    # d/dx0 (x0 x1 + x0) = x1 + 1, d/dx1 = x0
    assert (crash.expected, crash.actual) == (
        "[4.0, 2.0] (no exception)",
        "ValueError: backward: 4 nodes, at most 3",
    )
    assert "print('expected:', [4.0, 2.0])" in crash.reproducer
    (exact,) = gradients.exact_trial(eng, "add")(x0_times_x1_plus_x0(Fraction(1, 3), Fraction(2)))
    assert (exact.kind, exact.check, exact.op) == ("crash", "exact", "add")
    assert exact.summary.startswith(
        "backward() of (x0 * x1) + x0 at x0 = Fraction(1, 3), x1 = 2 raises ValueError"
    )
    assert exact.expected == "[3, Fraction(1, 3)] (no exception)"


def test_a_crash_in_the_float_trial_is_cut_down_to_its_node():
    graph = Graph((0.0, 2.0), (Node("powc", (0,), 0), Node("mul", (2, 1))))
    (crash,) = gradients.float_trial(POW0, "symbolic", None)(graph)
    assert (crash.kind, crash.check, crash.op) == ("crash", "symbolic", "powc")
    assert crash.summary.startswith("forward of x0 ** 0 at x0 = 0.0 raises ZeroDivisionError")


class _WrongAddAndMul(sound.Value):
    """add and mul each send back twice the gradient."""

    def __add__(self, other):
        other = self._lift(other)
        return self._with_partials(self.data + other.data, (self, other), (2, 2))

    def __mul__(self, other):
        other = self._lift(other)
        return self._with_partials(self.data * other.data, (self, other), (2 * other.data, 2 * self.data))


@pytest.mark.parametrize(
    ("op", "single"),
    [("mul", "x0 * x1 at x0 = 2.0, x1 = 3.0"), ("add", "x0 + x1 at x0 = 6.0, x1 = 2.0")],
)
def test_a_graph_wrong_in_two_ops_is_blamed_on_the_op_under_test(op, single):
    (finding,) = gradients.float_trial(resolve_engine(_WrongAddAndMul), "symbolic", op)(
        x0_times_x1_plus_x0(2.0, 3.0)
    )
    assert (finding.kind, finding.op) == ("wrong_gradient", op)
    assert finding.summary.startswith(f"d/dx0, d/dx1 of {single}: ")


def test_a_crash_at_a_pole_says_only_that_it_must_not_raise():
    graph = Graph((0.0,), (Node("rdiv", (0,), 1.0),))  # 1 / x at 0: no gradient to expect
    with pytest.raises(EngineRaised) as raised:
        common.run_graph(OURS, graph)
    finding = common.crash(OURS, "edges", graph, raised.value, None)
    assert (finding.kind, finding.check, finding.op, finding.expected) == (
        "crash",
        "edges",
        "rdiv",
        "no exception",
    )
    assert printed(finding.reproducer.split("\nx0")[0]) == "expected: no exception"
    assert finding.reproducer.startswith("from autograd import Value\n")


def test_a_crash_reproducer_imports_the_engine_that_crashed():
    graph = Graph((0.0,), (Node("powc", (0,), 0),))
    with pytest.raises(EngineRaised) as raised:
        common.run_graph(POW0, graph)
    finding = common.crash(POW0, "symbolic", graph, raised.value, None)
    assert finding.op == "powc" and "from tests.engines.pow0_crash import Value" in finding.reproducer


def test_a_crash_of_a_whole_graph_names_no_op_unless_one_is_searched():
    eng = resolve_engine(_ThreeNodesAtMost)
    graph = x0_times_x1_plus_x0(2.0, 3.0)
    with pytest.raises(EngineRaised) as raised:
        common.run_graph(eng, graph)
    assert common.crash(eng, "chain_sweep", graph, raised.value, None).op is None
    assert common.crash(eng, "symbolic", graph, raised.value, "mul").op == "mul"


def test_blame_keeps_a_finding_that_no_single_node_shows():
    finding = Finding("wrong_gradient", "symbolic", "s", None)
    graph = x0_times_x1_plus_x0(2.0, 3.0)
    assert gradients.blame(finding, graph, lambda op, g: []) is finding
    info = Finding("inconclusive", "symbolic", "s")
    assert gradients.blame(info, graph, lambda op, g: [Finding("wrong_gradient", "x", "y")]) is info
    one_node = Graph((2.0,), (Node("exp", (0,)),))
    assert gradients.blame(finding, one_node, lambda op, g: []).op == "exp"


# ---------------------------------------------------------------------- searches and counts
def test_trials_count_judged_and_inconclusive_examples_per_check():
    trials = runner.Trials()
    wrong = Finding("wrong_gradient", "symbolic", "w", "mul")
    trials.record(("symbolic", "forward"), [wrong], 10)
    trials.record(("symbolic", "forward"), [Finding("inconclusive", "forward", "i", "exp")], 5)
    trials.record(("symbolic", "forward"), [], 5)
    assert trials.judged == {"symbolic": 3, "forward": 2}
    assert trials.inconclusive == {"forward": 1}
    symbolic = trials.outcome("symbolic", "graphs", "ran")
    assert symbolic.status == "failed" and symbolic.judged == 3 and symbolic.findings == [wrong]
    forward = trials.outcome("forward", "graphs", "ran")
    assert forward.status == "passed" and forward.judged == 2 and forward.inconclusive == 1
    assert runner.Trials().outcome("mlp", "networks", "why").reason == "nothing judged (why)"


def test_trials_keep_the_smallest_example_of_each_defect():
    trials = runner.Trials()
    big = Finding("wrong_gradient", "symbolic", "big", "mul")
    small = Finding("wrong_gradient", "symbolic", "small", "mul")
    trials.record(("symbolic",), [big], 50)
    trials.record(("symbolic",), [small], 20)
    trials.record(("symbolic",), [big], 30)
    assert [f.summary for _, f in trials.sized] == ["small"]


def test_a_search_judges_every_example_when_nothing_is_wrong():
    trials = runner.Trials()
    runner.search(trials, ("c",), st.integers(0, 10**6), lambda x: [], 25, 0)
    assert trials.judged["c"] == 25 and not trials.sized


def test_a_search_goes_on_after_a_defect_for_the_ops_other_defects():
    # every example shows a wrong value; some also a wrong gradient: both are found
    def trial(x: int) -> list[Finding]:
        found = [Finding("wrong_value", "c", f"value {x}", "sub")]
        if x % 7 == 3:
            found.append(Finding("wrong_gradient", "c", f"gradient {x}", "sub"))
        return found

    trials = runner.Trials()
    runner.search(trials, ("c",), st.integers(0, 10**6), trial, 60, 0, focus="sub")
    assert sorted(f.kind for _, f in trials.sized) == ["wrong_gradient", "wrong_value"]
    gradient = next(f for _, f in trials.sized if f.kind == "wrong_gradient")
    assert int(gradient.summary.split()[1]) % 7 == 3


def test_a_defect_of_another_op_does_not_stop_the_search_of_this_one():
    trials = runner.Trials()
    blamed_elsewhere = [Finding("wrong_gradient", "c", "elsewhere", "mul")]
    runner.search(trials, ("c",), st.integers(0, 10**6), lambda x: blamed_elsewhere, 30, 0, focus="exp")
    assert trials.judged["c"] == 30  # not stopped to shrink: every example of the budget ran
    assert [f.op for _, f in trials.sized] == ["mul"]  # but recorded


@pytest.mark.slow
def test_a_search_with_nothing_to_draw_judges_nothing():
    trials = runner.Trials()
    runner.search(trials, ("c",), st.integers().filter(lambda x: False), lambda x: [], 10, 0)
    assert trials.judged["c"] == 0 and trials.outcome("c", "graphs", "r").status == "not_applicable"


def test_our_own_error_inside_a_trial_propagates():
    def trial(x: int) -> list[Finding]:
        raise KeyError("ours")

    with pytest.raises(KeyError):
        runner.search(runner.Trials(), ("c",), st.integers(), trial, 5, 0)


def test_example_sizes_are_the_length_of_their_source():
    graph = Graph((1.0,), (Node("exp", (0,)),))
    assert runner.size(graph) == len("Graph(leaves=(1.0,), nodes=(Node('exp', (0,)),))")
    assert runner.size((graph, 12)) == runner.size(graph) + 2 and runner.size("abc") == len("'abc'")


def test_floated_examples_have_float_leaves_and_coefficients_but_keep_node_constants(monkeypatch):
    graph = Graph((Fraction(1, 2),), (Node("mulc", (0,), Fraction(1, 3)),))
    seen: list = []
    _property(
        monkeypatch, _engine_where(exact=property(lambda self: False)), lambda eng, ex: seen.append(ex),
        strategy=lambda: st.just((graph, Fraction(3, 4), 5)), graphs_of=lambda ex: [ex[0]], examples=1,
    )  # fmt: skip
    floated = seen[0]
    assert floated[0].leaves == (0.5,) and type(floated[0].leaves[0]) is float
    assert floated[0].nodes == graph.nodes and type(floated[0].nodes[0].const) is Fraction
    assert floated[1:] == (0.75, 5) and type(floated[1]) is float and type(floated[2]) is int


def test_a_floated_graph_keeps_its_output_node(monkeypatch):
    graph = Graph((Fraction(1, 2), Fraction(3)), (Node("mul", (0, 1)), Node("add", (2, 0))), output=2)
    seen: list = []
    floats_only = _engine_where(exact=property(lambda self: False))
    _property(monkeypatch, floats_only, lambda eng, ex: seen.append(ex), strategy=lambda: st.just(graph))
    floated = seen[0]
    assert floated.leaves == (0.5, 3.0) and floated.output == 2 and floated.evaluate()[floated.out] == 1.5


# ---------------------------------------------------------------------- the per-op checks
def _outcome_rows(outcomes) -> list[tuple]:
    return [(o.name, o.status, o.unit, o.judged + o.inconclusive, o.reason) for o in outcomes]


def test_the_per_op_checks_say_what_each_judged_in_order():
    # add and mul: both rational; exp is not, so the exact search has one op fewer
    assert _outcome_rows(_per_op(OURS, ["add", "exp"], 5, 0)) == [
        ("exact", "passed", "graphs", 5, "5 examples for each of 1 rational ops"),
        ("symbolic", "passed", "graphs", 10, "5 examples for each of 2 ops"),
        ("forward", "passed", "graphs", 10, "5 examples for each of 2 ops"),
    ]


def test_a_per_op_check_not_asked_for_judges_nothing():
    symbolic_only = _per_op(WRONG_MUL, ["mul"], 5, 0, checks=("symbolic",))
    assert [(o.name, o.status, o.judged > 0) for o in symbolic_only] == [
        ("exact", "not_applicable", False),
        ("symbolic", "failed", True),
        ("forward", "not_applicable", False),
    ]
    exact_only = _per_op(WRONG_MUL, ["mul"], 5, 0, checks=("exact",))
    assert [(o.name, o.status, o.findings) for o in exact_only[1:]] == [
        ("symbolic", "not_applicable", []),
        ("forward", "not_applicable", []),
    ]
    assert exact_only[0].status == "failed"


def test_a_per_op_search_is_not_stopped_by_another_ops_defect():
    # the add search meets the wrong mul in its graphs: recorded, but not shrunk (which would judge
    # more examples than the budget) and not a reason to stop: exactly the budget is judged
    exact, symbolic, _ = _per_op(WRONG_MUL, ["add"], 10, 0)
    for outcome in (exact, symbolic):
        assert outcome.judged + outcome.inconclusive == 10
        assert {f.op for f in outcome.findings} == {"mul"}


@pytest.mark.slow
def test_a_per_op_finding_names_the_op_under_test():
    # c - v computed as v - c: the exact search of rsub finds its wrong value, under rsub's name
    exact = _per_op(RSUB, ["rsub"], 10, 0, checks=("exact",))[0]
    assert exact.status == "failed"
    assert {(f.kind, f.op) for f in exact.findings} >= {("wrong_value", "rsub")}


@pytest.mark.parametrize(
    ("engine", "why"),
    [
        ("tests.engines.float_only", "refuses Fraction data"),
        ("tests.engines.floatifies", "turns Fraction data into floats"),
    ],
)
def test_the_exact_check_of_an_engine_that_is_not_exact_says_why(engine, why):
    exact = _per_op(resolve_engine(engine), ["add"], 5, 0)[0]
    assert (exact.name, exact.status, exact.unit, exact.judged) == ("exact", "not_applicable", "graphs", 0)
    assert exact.reason == f"needs exact arithmetic; the engine {why} (checked on floats)"


def test_a_per_op_search_draws_small_graphs_of_its_op_add_and_mul(monkeypatch):
    drawn: list[Graph] = []

    def float_trial(eng, check, op, forward=False):
        return lambda graph: drawn.append(graph) or []

    monkeypatch.setattr(per_op, "float_trial", float_trial)
    assert _per_op(OURS, ["exp"], 30, 0, checks=("symbolic",))[1].judged == 30
    assert len(drawn) == 30
    for graph in drawn:
        ops = {n.op for n in graph.nodes}
        # at most 5 nodes drawn, and a node joining each further sink into the output
        assert "exp" in ops and ops <= {"exp", "add", "mul"} and len(graph.nodes) <= 2 * 5 - 1


@pytest.mark.parametrize(
    ("eng", "ops", "rational"),
    [
        (OURS, ["add", "powc"], 2),  # x ** 2 among powc's constants
        (OURS, ["exp"], 0),
        # an engine that refuses int powers takes only powc's fractional constants: no rational power
        ("_NoIntPowers", ["powc"], 0),
    ],
    ids=["add-powc", "exp", "no-int-powers"],
)
def test_an_op_is_rational_when_a_constant_the_engine_takes_keeps_it_rational(eng, ops, rational):
    eng = resolve_engine(_NoIntPowers) if eng == "_NoIntPowers" else eng
    (exact,) = [o for o in _per_op(eng, ops, 1, 0, checks=("exact",)) if o.name == "exact"]
    reason = f"1 examples for each of {rational} rational ops"
    assert exact.reason == (reason if rational else f"nothing judged ({reason})")


class _NoIntPowers(sound.Value):
    def __pow__(self, c):
        if isinstance(c, int):
            raise TypeError(f"pow: int exponent {c!r} refused")
        return super().__pow__(c)


def test_the_audits_hypothesis_settings_are_deterministic_quiet_and_keep_nothing():
    # whatever profile the caller has loaded (here one that is random, timed and keeps examples)
    settings.register_profile("contrary", derandomize=False, deadline=200, database=InMemoryExampleDatabase())
    previous = settings.get_current_profile_name()
    settings.load_profile("contrary")
    try:
        chosen = runner.settings(7, stateful_step_count=3)
    finally:
        settings.load_profile(previous)
    assert (chosen.max_examples, chosen.derandomize, chosen.database, chosen.deadline) == (
        7,
        True,
        None,
        None,
    )
    assert chosen.verbosity == Verbosity.quiet and chosen.report_multiple_bugs is False
    assert set(chosen.suppress_health_check) == set(HealthCheck) and chosen.stateful_step_count == 3
    assert (
        chosen.phases == settings().phases
    )  # as the profile has them (the mutation profile does not shrink)
    # the mode is a parameter: without shrinking, hypothesis only replays and generates
    assert tuple(runner.settings(7, runner.SearchMode(shrink=False)).phases) == (
        Phase.explicit,
        Phase.generate,
    )
    assert runner.settings(7, runner.SearchMode(first_defect=True)).phases == settings().phases


def test_a_search_spends_its_budget_on_draws_not_on_replays():
    # a defect that only some examples show: each stop costs the examples drawn up to it, and
    # hypothesis's replay of the failing example is not a draw of the budget
    calls: list[int] = []

    def trial(x: int) -> list[Finding]:
        calls.append(x)
        return [Finding("wrong_value", "c", "v", "sub")] if x % 5 == 4 else []

    no_shrink = runner.SearchMode(shrink=False)
    runner.search(runner.Trials(), ("c",), st.integers(0, 10**6), trial, 12, 0, focus="sub", mode=no_shrink)
    first = next(i for i, x in enumerate(calls) if x % 5 == 4)
    assert first > 0 and calls[first + 1] == calls[first]  # the stop came after a draw, then its replay
    assert len(calls) == 12 + 1


def _draws(trial, examples: int, seed: int, mode: runner.SearchMode) -> runner.Trials:
    trials = runner.Trials()
    runner.search(trials, ("c",), st.integers(0, 10**6), trial, examples, seed, mode=mode)
    return trials


def test_the_seed_chooses_the_examples():
    seen: dict[int, list[int]] = {0: [], 1: []}
    for seed, calls in seen.items():
        _draws(lambda x, calls=calls: calls.append(x) or [], 10, seed, runner.SearchMode())
    assert seen[0] != seen[1]
    again: list[int] = []
    _draws(lambda x: again.append(x) or [], 10, 0, runner.SearchMode())
    assert again == seen[0]


def test_a_search_for_a_verdict_stops_at_its_first_defect():
    calls: list[int] = []

    def trial(x: int) -> list[Finding]:
        calls.append(x)
        return [Finding("wrong_value", "c", "v", f"op{x}")]  # a defect of its own for every x

    trials = _draws(trial, 10, 0, runner.SearchMode(shrink=False, first_defect=True))
    assert len(trials.sized) == 1 and len(calls) == 2  # the draw and its replay


def test_a_search_where_every_draw_is_a_new_defect_ends_with_its_budget():
    calls: list[int] = []

    def trial(x: int) -> list[Finding]:
        calls.append(x)
        return [Finding("wrong_value", "c", "v", f"op{x}")]  # a defect of its own for every x

    for budget in range(1, 8):  # one of them ends exactly as a defect uses up the budget
        calls.clear()
        trials = _draws(trial, budget, 0, runner.SearchMode(shrink=False))
        stops = len({f.op for _, f in trials.sized})
        assert len(calls) == budget + stops  # each draw judged once, each stop replayed once


def _stateful_finding(monkeypatch, exc: BaseException) -> Finding:
    """The finding of the stateful check (on our engine, our convention) whose state machine raised
    ``exc``."""

    def raises(machine, settings):
        raise exc

    monkeypatch.setattr(stateful, "run_state_machine_as_test", raises)
    found, _ = _stateful(OURS, 2, 0)
    (finding,) = found.findings
    return finding


def test_a_stateful_failure_is_classified_by_what_raised(monkeypatch):
    crash = _stateful_finding(monkeypatch, EngineCrash("backward() raises KeyError", "x = 1"))
    assert crash.kind == "crash" and crash.check == "stateful" and crash.reproducer == "x = 1"
    script = "summary line\nx0 = V(1)\nprint('expected:', [2])\nprint('actual:  ', [x0.grad])"
    wrong = _stateful_finding(monkeypatch, ModelMismatch(script))
    assert wrong.kind == "wrong_gradient" and wrong.summary == "summary line (the convention as observed)"
    assert wrong.reproducer == script.partition("\n")[2] and wrong.expected == "[2]"
    with pytest.raises(KeyError):  # our own trouble is never the engine's defect
        _stateful_finding(monkeypatch, KeyError("ours"))


def test_a_stateful_failure_that_did_not_replay_is_inconclusive(monkeypatch):
    from hypothesis.errors import Flaky

    finding = _stateful_finding(monkeypatch, Flaky("the second run passed"))
    assert finding == Finding(
        "inconclusive", "stateful", "a failure that did not replay: the second run passed"
    )
    crash = _stateful_finding(monkeypatch, EngineCrash("backward() raises KeyError: 'x'", "x = 1"))
    assert crash == Finding(
        "crash", "stateful", "raises backward() raises KeyError: 'x'", None, "x = 1", "no exception",
        "backward() raises KeyError: 'x'",
    )  # fmt: skip
    script = "summary line\nx0 = V(1)\nprint('expected:', [2])\nprint('actual:  ', [x0.grad])"
    wrong = _stateful_finding(monkeypatch, ModelMismatch(script))
    assert (wrong.check, wrong.op, wrong.actual) == ("stateful", None, "")  # it does not say: run it
    said = _stateful_finding(monkeypatch, ModelMismatch(script + "\n# the harness read: ['3']"))
    assert (said.expected, said.actual) == ("[2]", "['3']")


@pytest.mark.slow
def test_a_stateful_wrong_gradient_says_what_the_harness_read():
    found = run_check("stateful", "tests.engines.planted_stateful", examples=DEFAULT_EXAMPLES, seed=0)
    (wrong,) = [f for f in found.findings if f.kind == "wrong_gradient"]
    expected, actual = (eval(a) for a in (wrong.expected, wrong.actual))  # lists of numbers / str
    assert len(actual) == len(expected) and actual != [str(e) for e in expected]
    # the reproducer, run, prints what the harness read
    assert printed(wrong.reproducer).splitlines()[-1] == f"actual:   {wrong.actual}"


class _BackwardOnce(sound.Value):
    """backward() raises when called a second time on one output."""

    def backward(self):
        if getattr(self, "_done", False):
            raise RuntimeError("backward() twice on one output")
        self._done = True
        super().backward()


def test_a_stateful_check_whose_convention_probe_raises_reports_the_crash():
    eng = resolve_engine(_BackwardOnce)
    found, observed = _stateful(eng, 4, 0)
    assert observed is None
    assert (found.name, found.status, found.judged, found.unit, found.reason) == (
        "stateful", "failed", 1, "runs", "the convention probe raised",
    )  # fmt: skip
    message = "RuntimeError: backward() twice on one output"
    assert found.findings == [
        Finding(
            "crash", "stateful", f"x * x * c, backward() twice: {message}", None, "", "no exception", message
        )
    ]
    # with a declared convention, the crash comes with the program that shows it
    declared, _ = _stateful(eng, 4, 0, declared=OUR_CONVENTION)
    assert declared.findings[0].reproducer == convention_reproducer(eng, OUR_CONVENTION, exact=True)


def test_a_stateful_check_on_an_unknown_convention_judges_nothing_and_says_why():
    found, observed = _stateful(resolve_engine("tests.engines.seed_grows"), 4, 0)
    assert observed is None
    assert (found.name, found.status, found.judged, found.inconclusive, found.unit, found.reason) == (
        "stateful", "not_applicable", 0, 1, "runs",
        "the engine's backward() convention matches none the model knows",
    )  # fmt: skip
    assert found.findings == [
        Finding("inconclusive", "stateful", "two backward() calls on x*x*c match no known convention")
    ]


def test_a_declared_convention_the_engine_does_not_follow_is_a_wrong_gradient():
    eng = resolve_engine("tests.engines.interior_accumulates")  # micrograd's: interior gradients accumulate
    found, observed = _stateful(eng, 4, 0, declared=OUR_CONVENTION)
    assert observed is not None and observed.interior == "accumulate"
    convention = found.findings[0]
    differs = [d for d in OUR_CONVENTION.describe() if d not in observed.describe()]
    assert len(differs) == 2  # interior gradients and backward() on a leaf
    assert convention == Finding(
        "wrong_gradient", "stateful",
        f"backward() does not follow the declared convention ({'; '.join(differs)}): "
        f"observed {'; '.join(observed.describe())}",
        None, convention_reproducer(eng, OUR_CONVENTION, exact=True),
        repr(convention_gradients(OUR_CONVENTION, exact=True)),
        repr(convention_gradients(observed, exact=True)),
    )  # fmt: skip
    # the machine then models the convention observed: nothing else is wrong
    assert found.findings == [convention] and found.judged == 4
    assert found.reason == "exact; backward() convention: " + "; ".join(observed.describe())
    # the same engine with its own convention declared: no finding
    assert _stateful(eng, 4, 0, declared=observed)[0].findings == []


@pytest.mark.slow
def test_a_declared_convention_an_engine_matches_none_of_is_reported_whole():
    eng = resolve_engine("tests.engines.seed_grows")
    found, observed = _stateful(eng, 4, 0, declared=OUR_CONVENTION)
    assert observed is None
    convention = found.findings[0]
    assert convention.kind == "wrong_gradient" and convention.actual == "?"
    assert convention.summary == (
        f"backward() does not follow the declared convention ({'; '.join(OUR_CONVENTION.describe())}): "
        "observed matches no known convention"
    )


@pytest.mark.parametrize(
    ("engine", "how"),
    [("autograd", "exact"), ("tests.engines.float_only", "floats: leaf gradients within derived tolerances")],
)
def test_a_stateful_check_runs_as_many_runs_as_examples_and_says_the_convention_it_modelled(
    monkeypatch, engine, how
):
    # every run hypothesis makes is counted: the examples asked for, and any it discarded after
    # steps that were judged (a draw of the rules to take that found none enabled)
    real, made = stateful.run_state_machine_as_test, []

    def counted(machine, settings):
        def make():
            made.append(1)
            return machine()

        return real(make, settings=settings)

    monkeypatch.setattr(stateful, "run_state_machine_as_test", counted)
    eng = resolve_engine(engine)
    found, observed = _stateful(eng, 6, 0)
    assert observed is not None and len(made) >= 6
    assert (found.name, found.status, found.judged, found.inconclusive, found.unit) == (
        "stateful",
        "passed",
        len(made),
        0,
        "runs",
    )
    assert found.reason == f"{how}; backward() convention: " + "; ".join(observed.describe())


@pytest.mark.parametrize(
    ("engine", "layers"),
    [("autograd", "tanh, relu"), ("tests.engines.missing_ops", "linear (no tanh or relu)")],
)
def test_the_mlp_check_judges_a_quarter_of_its_examples_and_names_its_layers(engine, layers):
    found = _mlp(resolve_engine(engine), 8, 0)
    assert (found.name, found.status, found.unit, found.judged + found.inconclusive) == (
        "mlp",
        "passed",
        "networks",
        2,
    )
    assert found.reason == f"hidden layers: {layers}"


# ---------------------------------------------------------------------- the property checks
ONE_THIRD_TIMES_2 = Graph((Fraction(1, 3), Fraction(2)), (Node("mul", (0, 1)),))


def _property(
    monkeypatch, eng, prop, strategy=lambda: st.just(ONE_THIRD_TIMES_2), examples=3, graphs_of=lambda ex: [ex]
):
    """The registry's linearity check with a stand-in property and examples drawn from ``strategy()``
    (``graphs_of``: the graphs the property runs of an example)."""
    monkeypatch.setattr(gs, "graph_pairs", lambda eng: strategy())
    monkeypatch.setattr(properties, "check_linearity", prop)
    monkeypatch.setattr(properties, "linear_combination_graphs", graphs_of)
    return _check("linearity", eng, examples)


def _holds(eng, example) -> None:
    pass


def test_a_property_with_nothing_to_draw_says_why_and_judges_nothing(monkeypatch):
    def no_graphs():
        raise ValueError("no graphs of the ops this engine has")

    found = _property(monkeypatch, OURS, _holds, strategy=no_graphs)
    assert (found.name, found.status, found.findings, found.judged, found.unit, found.reason) == (
        "linearity", "not_applicable", [], 0, "examples", "no graphs of the ops this engine has",
    )  # fmt: skip


@pytest.mark.parametrize(
    ("engine", "leaf_type", "how"),
    [
        ("autograd", Fraction, "exact arithmetic"),
        ("tests.engines.float_only", float, "floats, derived tolerances"),
    ],
)
def test_a_property_runs_on_fractions_for_an_exact_engine_and_on_floats_otherwise(
    monkeypatch, engine, leaf_type, how
):
    seen = []
    found = _property(monkeypatch, resolve_engine(engine), lambda eng, example: seen.append(example))
    assert {type(x) for graph in seen for x in graph.leaves} == {leaf_type}
    assert (found.status, found.unit, found.reason) == ("passed", "examples", f"3 examples, {how}")


@pytest.mark.parametrize(
    ("engine", "how"),
    [("autograd", "exact arithmetic"), ("tests.engines.float_only", "beyond the derived float tolerance")],
)
def test_a_property_that_fails_with_no_wrong_rule_behind_it_is_a_wrong_gradient(monkeypatch, engine, how):
    def fails(eng, example):
        raise PropertyViolated("d/dx0 differs\nthe details")

    found = _property(monkeypatch, resolve_engine(engine), fails)
    assert found.findings == [
        Finding("wrong_gradient", "linearity", f"d/dx0 differs ({how})", None, "d/dx0 differs\nthe details")
    ]


class _FloatWrongMul(sound.Value):
    """Floats only, and d(a*b)/da is 2b."""

    check = staticmethod(lambda x: float(sound.check_number(x)) if not isinstance(x, Fraction) else 1 / 0)

    def __mul__(self, other):
        other = self._lift(other)
        return self._with_partials(self.data * other.data, (self, other), (2 * other.data, self.data))


@pytest.mark.parametrize("engine", [WRONG_MUL, resolve_engine(_FloatWrongMul)], ids=["exact", "float"])
def test_a_property_that_fails_on_a_wrong_rule_reports_the_rule(monkeypatch, engine):
    def fails(eng, example):
        raise PropertyViolated("linearity does not hold")

    (finding,) = _property(monkeypatch, engine, fails).findings
    assert (finding.kind, finding.check, finding.op) == ("wrong_gradient", "linearity", "mul")
    assert finding.summary.startswith("d/dx0")  # the one-node graph's own wrong partial
    # judged as the engine's numbers allow: exactly, or by sympy within derived tolerances
    assert (", exactly [" in finding.summary) == engine.exact and (
        "; sympy [" in finding.summary
    ) != engine.exact


def test_a_property_the_oracle_cannot_judge_is_inconclusive(monkeypatch):
    def cannot(eng, example):
        raise OracleInconclusive("no tolerance for these floats")

    found = _property(monkeypatch, OURS, cannot)
    assert found.findings == [Finding("inconclusive", "linearity", "no tolerance for these floats")]
    assert found.judged == 0 and found.inconclusive == 1  # (st.just: hypothesis runs its one example once)


def test_a_property_whose_graph_crashes_reports_the_crash_on_that_graph(monkeypatch):
    found = _property(
        monkeypatch, POW0, _holds, strategy=lambda: st.just(Graph((Fraction(0),), (Node("powc", (0,), 0),)))
    )
    (crash,) = found.findings
    assert (crash.kind, crash.check, crash.op) == ("crash", "linearity", "powc")
    assert crash.summary == "forward of x0 ** 0 at x0 = 0 raises ZeroDivisionError: Fraction(1, 0)"
    assert "from tests.engines.pow0_crash import Value" in crash.reproducer


# ---------------------------------------------------------------------- second order
def test_second_order_on_an_engine_without_create_graph_is_not_applicable():
    found = _second_order(resolve_engine("tests.engines.sound"), 4, 0)
    assert (found.name, found.status, found.judged, found.unit, found.reason) == (
        "second_order", "not_applicable", 0, "graphs", "backward(create_graph=True) is not supported",
    )  # fmt: skip


def test_second_order_searches_each_arithmetic_with_half_the_examples():
    found = _second_order(OURS, 6, 0, ops=["add", "mul"])
    assert (found.name, found.status, found.unit) == ("second_order", "passed", "graphs")
    assert found.judged + found.inconclusive == 3 + 3  # exact graphs, then float graphs
    assert found.reason == "3 graphs per arithmetic, Hessians vs sympy"
    # exp has no exact graphs: the float search alone
    only_floats = _second_order(OURS, 6, 0, ops=["exp"])
    assert only_floats.judged + only_floats.inconclusive == 3


def _second_order_with(monkeypatch, eng, ops, *, hessian=None, fd=None, derivatives=None):
    """The check with stand-ins for what the engine's derivatives raise, or sympy's and the finite
    differences' verdicts on them (each a callable that raises or returns)."""
    for name, stand_in in (("engine_derivatives", derivatives), ("check_second_order", hessian)):
        if stand_in is not None:
            monkeypatch.setattr(higher, name, stand_in)
    if fd is not None:
        monkeypatch.setattr(higher, "assert_hessian_fd", fd)
    return _second_order(eng, 2, 0, ops=ops)


def _raises(exc):
    def stand_in(*args, **kwargs):
        raise exc

    return stand_in


MISMATCH = GradientMismatch("the Hessian table", GradcheckReport("stand-in"))


@pytest.mark.parametrize(
    ("ops", "fd", "kind", "why"),
    [
        (["add", "mul"], None, "wrong_gradient", " differ from sympy's exactly (rationals)"),
        (
            ["exp"],
            _raises(MISMATCH),
            "wrong_gradient",
            ": sympy differs, confirmed by finite differences of the reference gradient",
        ),
        (
            ["exp"],
            lambda graph, eng, **given: None,
            "inconclusive",
            ": sympy differs, finite differences of the reference gradient agree with the engine: "
            "not confirmed, unresolved",
        ),
        (
            ["exp"],
            _raises(OracleInconclusive("blind")),
            "inconclusive",
            ": sympy differs, finite differences of the reference gradient cannot judge (blind): unresolved",
        ),
    ],
    ids=["exact", "fd-confirms", "fd-agrees", "fd-blind"],
)
def test_a_hessian_sympy_rejects_is_a_defect_only_when_confirmed(monkeypatch, ops, fd, kind, why):
    found = _second_order_with(monkeypatch, OURS, ops, hessian=_raises(MISMATCH), fd=fd)
    finding = found.findings[0]
    assert (finding.kind, finding.check, finding.op, finding.reproducer) == (
        kind,
        "second_order",
        None,
        "the Hessian table",
    )
    assert finding.summary.startswith("second derivatives of ") and finding.summary.endswith(why)
    assert "not a defect" not in finding.summary


def test_second_order_asks_the_engine_under_test_for_second_derivatives(monkeypatch):
    asked = []

    def derivatives(graph, eng, order):
        asked.append((eng, order))
        return {}

    def fd(graph, eng, **given):
        asked.append((eng, "fd"))
        raise MISMATCH

    eng = resolve_engine("tests.engines.planted_second_order")
    _second_order_with(monkeypatch, eng, ["exp"], derivatives=derivatives, hessian=_raises(MISMATCH), fd=fd)
    assert set(asked) == {(eng, 2), (eng, "fd")}


def test_second_order_on_an_engine_that_is_not_exact_searches_floats_only(monkeypatch):
    graphs = []

    def hessian(eng, graph, **given):
        graphs.append(graph)

    monkeypatch.setattr(higher, "check_second_order", hessian)
    floats_only = _engine_where(exact=property(lambda self: False))
    assert _second_order(floats_only, 6, 0, ops=["add", "mul"]).judged == 3
    assert _second_order(floats_only, 6, 0, ops=["exp"]).judged == 3
    assert {type(x) for g in graphs for x in g.leaves} == {float}


def test_second_order_draws_small_graphs_of_the_ops_the_engine_has(monkeypatch):
    graphs = []
    monkeypatch.setattr(higher, "check_second_order", lambda eng, graph, **given: graphs.append(graph))
    add_and_mul = _engine_where(supports=lambda self, op: op in ("add", "mul"))
    _second_order(add_and_mul, 40, 0)
    assert {n.op for g in graphs for n in g.nodes} == {"add", "mul"}
    assert max(len(g.nodes) for g in graphs) <= 2 * per_op.MAX_NODES - 1  # drawn, and the nodes joining sinks


class _LeavesSeen(sound.Value):
    """Our arithmetic; while ``watching``, every Value made is recorded (its number): what the
    state machine drew, run by run."""

    watching = False
    seen: typing.ClassVar[list] = []

    def __init__(self, data, *args, **kwargs):
        super().__init__(data, *args, **kwargs)
        if _LeavesSeen.watching:
            _LeavesSeen.seen.append(self.data)


def _stateful_draws(monkeypatch, run) -> list:
    """The numbers of the Values the state machine made while ``run()`` ran (not those of the
    probes of the engine, which run once, whenever first asked)."""
    real = stateful.run_state_machine_as_test

    def watched(*args, **kwargs):
        _LeavesSeen.watching, _LeavesSeen.seen = True, []
        try:
            return real(*args, **kwargs)
        finally:
            _LeavesSeen.watching = False

    monkeypatch.setattr(stateful, "run_state_machine_as_test", watched)
    run()
    return _LeavesSeen.seen


@pytest.mark.slow
def test_the_stateful_check_draws_its_runs_from_the_seed_it_is_given(monkeypatch):
    # run alone (run_check) and in the audit: the same seed, the same runs; another seed, others
    _probes(monkeypatch)

    def alone(seed):
        run = lambda: run_check("stateful", _LeavesSeen, examples=3, seed=seed)  # noqa: E731
        return _stateful_draws(monkeypatch, run)

    def in_the_audit(seed):
        return _stateful_draws(monkeypatch, lambda: audit(_LeavesSeen, examples=3, seed=seed))

    drawn = {seed: alone(seed) for seed in (0, 1)}
    assert drawn[0] != drawn[1] and alone(1) == drawn[1]
    assert [in_the_audit(seed) for seed in (0, 1)] == [drawn[0], drawn[1]]


def test_checks_with_one_example_still_judge_one():
    assert _mlp(OURS, 1, 0).judged == 1
    assert _second_order(OURS, 1, 0, ops=["exp"]).judged == 1
    assert _stateful(OURS, 1, 0)[0].judged == 1


def test_a_stateful_reason_names_everything_the_machine_did_not_judge():
    # exact, but x ** c's gradient is a float; and no set_grad: two things not judged
    eng = _engine_where(
        resolve_engine("tests.engines.exact_but_float_pow"), settable_grad=property(lambda self: False)
    )
    reason = _stateful(eng, 2, 0)[0].reason
    head, *clauses = reason.split("; not judged: ")
    assert head.startswith("exact; backward() convention: ")
    assert len(clauses) == 2 and clauses[1].startswith("zero_grad ")
    assert clauses[0].endswith(" (gradients not exact numbers: equality cannot judge them)")


def test_a_stateful_check_runs_its_examples_of_15_steps_each(monkeypatch):
    ran = []
    monkeypatch.setattr(stateful, "run_state_machine_as_test", lambda machine, settings: ran.append(settings))
    _stateful(OURS, 8, 0)
    assert [(s.max_examples, s.stateful_step_count) for s in ran] == [(8, 15)]


def test_stateful_runs_with_no_tolerance_are_counted_as_not_judged(monkeypatch):
    monkeypatch.setattr(machine, "leaf_tolerances", _raises(OracleInconclusive("no tolerance")))
    found = _stateful(FLOAT_ONLY, 6, 0)[0]
    # a run whose passes needed no tolerance is judged; the others are not
    assert found.judged + found.inconclusive == 6 and found.inconclusive > 0


def test_a_hessian_sympy_cannot_judge_is_inconclusive(monkeypatch):
    found = _second_order_with(
        monkeypatch, OURS, ["exp"], hessian=_raises(OracleInconclusive("no reference"))
    )
    (finding,) = found.findings
    assert (finding.kind, finding.check) == ("inconclusive", "second_order")
    assert finding.summary.startswith("x0") and finding.summary.endswith(": no reference")


def test_second_derivatives_that_raise_are_a_crash_with_a_reproducer(monkeypatch):
    eng = resolve_engine("tests.engines.planted_second_order")
    raised = EngineRaised("second derivatives", RuntimeError("planted"))  # as Engine's accessors say it
    found = _second_order_with(monkeypatch, eng, ["exp"], derivatives=_raises(raised))
    (crash,) = found.findings
    assert (crash.kind, crash.check, crash.expected, crash.actual) == (
        "crash", "second_order", "no exception", "RuntimeError: planted",
    )  # fmt: skip
    assert crash.summary.startswith("second derivatives of x0") and crash.summary.endswith(
        " raise RuntimeError: planted"
    )
    assert crash.reproducer.startswith("from tests.engines.planted_second_order import Value\n")


def test_the_first_failure_inside_exception_groups_prefers_the_engines(monkeypatch):
    from hypothesis.errors import Flaky

    class Group(Flaky):  # hypothesis's groups of failures that did not replay alike
        def __init__(self, *members: BaseException) -> None:
            super().__init__("a group")
            self.exceptions = members

    assertion = ModelMismatch("wrong\nx0 = V(1)")
    finding = _stateful_finding(monkeypatch, Group(ValueError("other"), Group(assertion)))
    assert (finding.kind, finding.summary) == ("wrong_gradient", "wrong (the convention as observed)")
    crash = EngineCrash("backward() raises KeyError", "x = 1")
    assert _stateful_finding(monkeypatch, Group(Group(crash), assertion)).kind == "crash"
    lone = ValueError("v")  # the only failure inside is not the engine's: it propagates as it is
    with pytest.raises(ValueError) as raised:
        _stateful_finding(monkeypatch, Group(lone))
    assert raised.value is lone


# ---------------------------------------------------------------------- ops and applicability
def test_missing_ops_and_number_types_are_unsupported_facts_not_defects():
    caps = capabilities(MISSING)
    outcome = _ops(MISSING)
    assert outcome.status == "passed" and caps["missing_ops"]
    assert {f.op for f in outcome.findings if f.op} == set(caps["missing_ops"])
    assert all(f.kind == "unsupported" for f in outcome.findings)
    ours = _ops(OURS)
    assert ours.findings == [] and ours.judged == len(OPS) + 2


def test_an_exact_check_on_a_float_engine_is_not_applicable_and_says_why():
    float_only = resolve_engine("tests.engines.float_only")
    outcome = _per_op(float_only, ["add"], 1, 0, checks=("exact",))[0]
    assert outcome.status == "not_applicable" and outcome.judged == 0
    assert outcome.reason.startswith("needs exact arithmetic; the engine ")


def test_run_check_refuses_an_unknown_check_by_name():
    with pytest.raises(ValueError, match="run_check: unknown check 'linearty'"):
        run_check("linearty", OURS)


# ---------------------------------------------------------------------- the audit and run_check
def _probes(monkeypatch, *spies) -> None:
    """The registry's checks with no probe but the ``spies`` (each registered as ``spy``)."""
    monkeypatch.setattr(registry, "REGISTRY", {k: c for k, c in REGISTRY.items() if not c.probe})
    for spy in spies:
        registry.probe("spy", spy, order=100)


def _spy_probe(calls: list, findings=()):
    def probe(eng, *, examples, seed):
        calls.append((eng, examples, seed))
        return check_outcome("spy", list(findings), judged=1, unit="runs", reason="a stand-in probe")

    return probe


@pytest.mark.slow
def test_a_probe_gets_the_engine_examples_and_seed_from_run_check_and_the_audit(monkeypatch):
    calls: list = []
    _probes(monkeypatch, _spy_probe(calls))
    run_check("spy", "autograd", examples=3, seed=5)
    run_check("spy", "autograd")
    audit("autograd", examples=2, seed=7)
    assert [(eng.name, examples, seed) for eng, examples, seed in calls] == [
        ("autograd", 3, 5), ("autograd", DEFAULT_EXAMPLES, 0), ("autograd", 2, 7),
    ]  # fmt: skip


def test_run_check_gives_each_check_its_ops_and_declared_convention():
    # second order on exp alone: float graphs only (exp has no exact ones), one per example pair
    assert run_check("second_order", "autograd", examples=2, ops=["exp"]).judged == 1
    declared = run_check(
        "stateful", "tests.engines.interior_accumulates", examples=2, convention=OUR_CONVENTION
    )
    assert [f.kind for f in declared.findings] == ["wrong_gradient"] and "declared" in declared.findings[
        0
    ].summary
    assert run_check("linearity", "autograd", examples=2).name == "linearity"


def _spy_on(monkeypatch, name: str, asked: list, what) -> None:
    """The registry's check ``name`` records ``what(run)`` in ``asked``, then runs."""
    real = REGISTRY[name]
    spy = dataclasses.replace(real, run=lambda run: asked.append((name, what(run))) or real.run(run))
    monkeypatch.setitem(registry.REGISTRY, name, spy)


@pytest.mark.slow
def test_run_checks_runs_only_what_it_is_asked_for(monkeypatch):
    asked: list = []
    _spy_on(monkeypatch, "exact", asked, lambda run: run.wanted)
    _spy_on(monkeypatch, "extra_ops", asked, lambda run: run.seed)
    found = run_checks(["exact", "mlp"], "autograd", examples=2)
    assert list(found) == ["exact", "mlp"] and asked == [("exact", {"exact", "mlp"})]
    assert found["exact"].judged > 0  # the per-op family runs its exact search only
    asked.clear()
    run_checks(["extra_ops"], "tests.engines.extra_ops", examples=2, seed=4)
    assert asked == [("extra_ops", 4)]


#: The audit's checks in report order (then its probes).
CHECKS = [
    "ops", "exact", "symbolic", "forward", "linearity", "build_order", "chain_sweep", "mlp", "stateful",
    "second_order", "extra_ops", "self_consistency",
]  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["autograd", "tests.engines.missing_ops", "tests.engines.extra_ops"])
def test_the_audit_is_its_checks_run_one_by_one(monkeypatch, engine):
    calls: list = []
    _probes(monkeypatch, _spy_probe(calls))
    eng = resolve_engine(engine)
    before = time.perf_counter()
    report = audit(engine, examples=2, seed=1)
    assert 0 < report.seconds <= time.perf_counter() - before
    assert list(report.outcomes) == [*CHECKS, "spy"]
    assert report.outcomes["spy"].reason == "a stand-in probe"
    assert (report.engine, report.examples, report.seed) == (engine, 2, 1)
    assert report.capabilities == capabilities(eng)
    for name in CHECKS:
        alone = run_check(name, engine, examples=2, seed=1)
        if name == "stateful":  # the audit adds the convention it observed, as facts
            observed = backward_convention(eng)
            facts = [Finding("convention", "stateful", text) for text in observed.describe()]
            assert report.outcomes[name].findings[-4:] == facts
            alone.findings.extend(facts)
        assert report.outcomes[name] == alone, name


@pytest.mark.slow
def test_the_audit_and_run_checks_start_from_seed_0(monkeypatch):
    calls: list = []
    _probes(monkeypatch, _spy_probe(calls))
    audit("autograd", examples=2)
    run_checks(["spy"], "autograd", examples=2)
    assert [seed for _, _, seed in calls] == [0, 0]


@pytest.mark.slow
def test_the_audit_hands_the_extra_op_checks_its_examples_and_seed(monkeypatch):
    asked: list = []
    _probes(monkeypatch)
    _spy_on(monkeypatch, "extra_ops", asked, lambda run: (run.eng.name, run.examples, run.seed))
    audit("tests.engines.extra_ops", examples=2, seed=6)
    assert asked == [("extra_ops", ("tests.engines.extra_ops", 2, 6))]


@pytest.mark.parametrize(
    "names",
    [{"cls": "Nowhere"}, {"backward": "nowhere"}, {"data": "nowhere"}, {"grad": "nowhere"}],
)
def test_the_audit_holds_an_engine_to_the_names_it_is_given(monkeypatch, names):
    _probes(monkeypatch)
    found = audit("tests.engines.scalar_backwards", examples=1)  # found on its own
    assert (found.class_name, found.accessors) == (
        "Scalar", {"data": "value", "grad": "gradient", "backward": "backwards"},
    )  # fmt: skip
    with pytest.raises(EngineNotFound):
        audit("tests.engines.scalar_backwards", examples=1, **names)


def test_the_audit_runs_an_engine_through_the_adapter_it_is_given(monkeypatch):
    _probes(monkeypatch)
    report = audit(adapter="tests.engines.functional:adapter", examples=1)
    assert report.capabilities["adapter"] == "tests.engines.functional:adapter"


def test_the_audit_lists_missing_ops_once_and_conventions_once(monkeypatch):
    calls: list = []
    _probes(monkeypatch)
    alone = audit(MISSING, examples=2)
    assert len(alone.outcomes["ops"].findings) == 16  # 15 ops and int data, below
    assert [f.kind for f in alone.outcomes["stateful"].findings] == ["convention"] * 4
    # a probe that reports unsupported ops and conventions itself: the audit does not repeat them
    said = [Finding("unsupported", "spy", "exp"), Finding("convention", "spy", "interior")]
    _probes(monkeypatch, _spy_probe(calls, said))
    both = audit(MISSING, examples=2)
    assert both.outcomes["ops"].findings == [] and both.outcomes["stateful"].findings == []


def test_capabilities_say_what_the_engine_has_and_how_it_keeps_numbers():
    caps = capabilities(MISSING)  # + - * / only; 3 / 2 makes a float, Fractions stay exact
    assert caps == {
        "ops": ["add", "mul", "sub", "div", "addc", "subc", "vmulc", "divc"],
        "missing_ops": ["neg", "rsub", "mulc", "rdiv", "powc", "vpow", "rpow", "exp", "log", "tanh", "relu",
                        "sigmoid", "vsum", "dot", "radd"],
        "int": "float", "fraction": "exact", "exact": True, "fused": [], "higher_order": False,
        "precision": "float64", "gradient_api": "backward",
        "gradient_convention": "the output backward() is called on",
        "adapter": None, "aliases": {}, "extra_ops": {},
    }  # fmt: skip
    ours = capabilities(OURS)
    assert ours["fused"] == ["vsum", "dot"] and ours["higher_order"] and ours["missing_ops"] == []


@pytest.mark.parametrize(
    ("engine", "number_types"),
    [
        (MISSING, ["int data does not stay exact through + - * / (Value(3) / Value(2))"]),
        (
            FLOAT_ONLY,
            [
                "int data does not stay exact through + - * / (Value(3) / Value(2))",
                "fraction data is refused (Value(Fraction(1, 3)))",
            ],
        ),
        (
            resolve_engine("tests.engines.floatifies"),
            [
                "int data does not stay exact through + - * / (Value(3) / Value(2))",
                "fraction data does not stay exact through + - * / (Value(Fraction(1, 3)))",
            ],
        ),
    ],
    ids=["missing-ops", "float-only", "floatifies"],
)
def test_the_ops_check_lists_missing_ops_as_python_and_number_types(engine, number_types):
    found = _ops(engine)
    assert (found.name, found.status, found.judged, found.unit, found.reason) == (
        "ops", "passed", len(OPS) + 2, "ops and number types", "every op of the table probed",
    )  # fmt: skip
    ops = [f for f in found.findings if f.op is not None]
    assert all(f.kind == "unsupported" and f.check == "ops" for f in found.findings)
    assert [f.summary for f in found.findings if f.op is None] == number_types
    shown = {f.op: f.summary for f in ops}
    assert (
        shown.get("vpow") == "x ** y is not supported"
        and shown.get("dot") == "dot([w], [x], b) is not supported"
    )
    if engine is MISSING:
        assert shown["rdiv"] == "1 / x is not supported" and shown["exp"] == "x.exp() is not supported"
