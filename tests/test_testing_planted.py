"""Every check and probe of the audit can fail: a fixture engine with one planted defect for each.

Issue 13: the ``forward`` check could not fail (it judged nothing, silently) and nothing
noticed.  Here each check and probe of the registry (``check_names()``) is run on its own
(``run_check``) against the fixture planted for it, and must report the planted defect; the
sound engine must not get it.  A new check without a row here fails
``test_every_check_and_probe_has_a_planted_fixture``.
"""

import pytest

from autograd.testing import Graph, Node, resolve_engine, run_check, verdicts
from autograd.testing.auditor import check_names
from autograd.testing.checks import gradients
from autograd.testing.checks.gradients import forward_finding
from autograd.testing.findings import DEFECT_KINDS
from autograd.testing.report import DEFAULT_EXAMPLES

# check -> (fixture in tests/engines, kind, op or None, text in the summary, examples, ops searched)
PLANTED = {
    "ops": ("missing_ops", "unsupported", "exp", "", 5, None),
    "exact": ("planted_exact", "wrong_gradient", "mul", "", 10, ["mul"]),
    "symbolic": ("planted_symbolic", "wrong_gradient", "sigmoid", "confirmed", 10, ["sigmoid"]),
    "forward": ("planted_forward", "wrong_value", "exp", "", 10, ["exp"]),
    "linearity": ("planted_linearity", "wrong_gradient", None, "", 10, None),
    "build_order": ("planted_build_order", "wrong_gradient", None, "", 10, None),
    "chain_sweep": ("planted_chain_sweep", "wrong_gradient", None, "", 10, None),
    "mlp": ("planted_mlp", "wrong_gradient", None, "", 20, None),
    # (at the audit's default, 40 runs from seed 0: the zero_grad bug needs a pass, a zeroed leaf
    # and a pass reaching it again, met in few runs; fewer runs miss it for some seeds)
    "stateful": ("planted_stateful", "wrong_gradient", None, "stateful: leaf", DEFAULT_EXAMPLES, None),
    # (graphs of add and mul only: the planted mul must meet two different operands)
    "second_order": (
        "planted_second_order",
        "wrong_gradient",
        None,
        "second derivatives",
        10,
        ["add", "mul"],
    ),
    "support": ("missing_ops", "unsupported", "exp", "", 5, None),
    "edge_points": ("tanh_tiny", "wrong_value", "tanh", "", 5, None),
    "bad_inputs": ("accepts_strings", "accepts_invalid", None, "'abc'", 5, None),
    "conventions": ("interior_accumulates", "convention", None, "interior gradients accumulate", 5, None),
    "determinism": ("set_parents", "nondeterministic", None, "different gradients", 5, None),
    "depth": ("recursive", "depth_limit", None, "raise RecursionError", 5, None),
    "extra_ops": ("extra_factor", "wrong_gradient", "sin~sin", "", 10, None),
    "self_consistency": ("extra_factor", "wrong_gradient", "bump~?", "shrinks like h, not h^2", 10, None),
    "out_of_domain": ("clamped_log", "accepts_invalid", "log", "returns a finite number", 5, None),
    "edge_second_order": ("planted_edge_second_order", "crash", "div", "second derivatives", 5, None),
    "nested": ("perturbation_confusion", "wrong_gradient", None, "perturbation confusion", 10, None),
    "memory": ("leaking_registry", "memory_leak", None, "never freed", 5, None),
    "time": ("exponential_backward", "exponential_time", None, "backward time", 5, None),
}


def test_every_check_and_probe_has_a_planted_fixture():
    assert set(PLANTED) == set(check_names())


def _planted(outcome, kind, op, text):
    return [
        f for f in outcome.findings if f.kind == kind and (op is None or f.op == op) and text in f.summary
    ]


@pytest.mark.slow
@pytest.mark.parametrize(
    "check", [pytest.param(c, marks=pytest.mark.timing) if c == "time" else c for c in PLANTED]
)  # the time probe's verdict: run alone (tox.ini)
def test_each_check_reports_its_planted_defect_and_not_on_the_sound_engine(check):
    fixture, kind, op, text, examples, ops = PLANTED[check]
    found = run_check(check, f"tests.engines.{fixture}", examples=examples, ops=ops)
    assert _planted(found, kind, op, text), (check, found)
    assert found.judged > 0
    if kind in DEFECT_KINDS:
        assert found.status == "failed"
    if check not in ("determinism", "depth"):  # (the sound engine's: tests/test_testing_probes.py)
        sound = run_check(check, "tests.engines.sound", examples=examples, ops=ops)
        assert not _planted(sound, kind, op, text), (check, sound)
        assert sound.status != "failed", sound


@pytest.mark.slow
@pytest.mark.parametrize(
    ("check", "fixture", "kind", "op"),
    [*((c, *PLANTED[c][:3]) for c in ("exact", "symbolic", "forward")),
     ("exact", "rsub_value_only", "wrong_value", "rsub")],  # c - v computed as v - c
)  # fmt: skip
def test_the_per_op_checks_record_the_point_of_each_wrong_number(check, fixture, kind, op):
    # the point (the graph's leaves, as the reproducer builds them) makes a severity ordinary or extreme
    found = _planted(run_check(check, f"tests.engines.{fixture}", examples=10, ops=[op]), kind, op, "")
    assert found
    for f in found:
        assert f.point and all(f"Value({x!r})" in f.reproducer for x in f.point), f
        assert f.severity is not None and f.severity.label == "wrong"


@pytest.mark.parametrize("check", ["linearity", "build_order", "chain_sweep", "stateful"])
def test_an_exact_engine_with_one_float_gradient_gets_no_defect_from_the_exact_properties(check):
    # issue 13: x ** c's gradient is a float; equality would call a 1-ulp difference wrong
    found = run_check(check, "tests.engines.exact_but_float_pow", examples=15)
    assert resolve_engine("tests.engines.exact_but_float_pow").exact
    assert not [f for f in found.findings if f.kind in DEFECT_KINDS], found
    assert found.status == "passed" and found.judged > 0


@pytest.mark.slow
def test_a_float_engine_gets_the_exact_properties_on_floats():
    # issue 15 item 6: float engines get linearity, build_order, chain_sweep and stateful too
    for check in ("linearity", "build_order", "chain_sweep", "stateful"):
        found = run_check(check, "tests.engines.planted_stateful", examples=4)
        assert found.judged > 0 and "float" in found.reason, (check, found)
    assert run_check("exact", "tests.engines.planted_stateful", examples=3).status == "not_applicable"


def test_the_forward_check_judges_a_wrong_value():
    # issue 13's reproducer: the float program was evaluated at no point, so this returned []
    eng = resolve_engine("autograd")
    graph = Graph((0.5, 2.0), (Node("mul", (0, 1)),))
    (finding,) = forward_finding(eng, graph, 999.0, "mul")
    assert finding.kind == "wrong_value" and finding.expected == "1.0"
    assert forward_finding(eng, graph, 1.0, "mul") == []


def test_our_own_error_propagates_instead_of_reading_as_no_finding(monkeypatch):
    # issue 13: a KeyError planted in where() turned two wrong gradients into "passed"
    def broken(graph):
        raise KeyError("planted in the harness")

    monkeypatch.setattr(gradients, "where", broken)
    with pytest.raises(KeyError, match="planted in the harness"):
        run_check("exact", "tests.engines.audit_wrong_mul", examples=5, ops=["mul"])


def test_a_fault_of_the_op_table_propagates_instead_of_reading_as_unsupported():
    # a row names what to call as data and Engine.apply selects the operands outside the engine
    # boundary: a row applying an operand it does not have (v1 for a unary op) is our fault,
    # never "the engine lacks this op"
    import dataclasses

    from autograd.testing import ops
    from autograd.testing.engines.support import supported

    eng = resolve_engine("tests.engines.sound")
    wrong_operand = dataclasses.replace(ops.OPS["exp"], call=ops.Call("exp", ("v1",)))
    with pytest.raises(KeyError, match="v1"):
        supported(eng, wrong_operand)
    no_call = dataclasses.replace(ops.OPS["exp"], call=ops.Call(None))
    with pytest.raises(TypeError, match="no call of its own"):
        supported(eng, no_call)
    missing = dataclasses.replace(ops.OPS["exp"], call=ops.Call("no_such_op"))
    assert not supported(eng, missing)  # the engine's Value lacks it: a fact, not an error


def test_a_wrong_hessian_carries_the_entries_sympy_and_the_engine_gave_and_its_point():
    # the numbers and the point a severity is graded from
    fixture, kind, op, text, examples, ops = PLANTED["second_order"]
    found = run_check("second_order", f"tests.engines.{fixture}", examples=examples, ops=ops)
    (wrong,) = _planted(found, kind, op, text)
    expected, actual = verdicts.numbers(wrong.expected), verdicts.numbers(wrong.actual)
    assert expected and actual and len(expected) == len(actual) and expected != actual
    assert wrong.point and wrong.severity is not None
