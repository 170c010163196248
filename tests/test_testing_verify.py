"""verify_engine is the audit with our conventions declared: one runner, one verdict rule.

It must agree with the audit's own ``run_check`` on an engine with a planted defect (the
same defects, the same reproducers), fail an engine that does not follow a declared
convention but pass one whose different convention is declared, and still fail a defect
beyond a declared convention.
"""

from fractions import Fraction

import pytest

import autograd
from autograd.testing import SearchMode, run_check, run_checks, verify, verify_engine
from autograd.testing.checks import OUR_CONVENTION, BackwardConvention, backward_convention
from autograd.testing.findings import Finding, outcome
from autograd.testing.verify import CHECKS, OURS, RENAMED, Conventions

#: micrograd's (and tests/engines/interior_accumulates.py's) backward() convention
ACCUMULATES = BackwardConvention("accumulate", "accumulate", seed="assign", leaf_output="assign")


@pytest.mark.parametrize("check", ["exact", "symbolic", "linearity"])
def test_verify_engine_and_the_audit_agree_on_a_planted_defect(check):
    engine = "tests.engines.audit_wrong_mul"  # mul sends back 1% too much gradient
    mode = SearchMode(shrink=False, first_defect=True)  # the audit's runner, as verify_engine runs it
    audited = run_checks([check], engine, examples=5, mode=mode)[check]
    verified = verify_engine(engine, checks=[check], max_examples=5)[check]
    assert audited.status == "failed" and not verified.passed
    defects = [f for f in audited.findings if f.kind == "wrong_gradient"]
    # blamed on the op whose node is wrong on its own: mul, or an op the engine computes with mul
    assert defects and all(f.op in ("mul", "mulc", "vmulc", "sub", "div") for f in defects if f.op)
    for finding in defects:  # the audit's findings, each with its pasteable reproducer
        assert finding.summary in verified.message and finding.reproducer in verified.message
    assert "from tests.engines.audit_wrong_mul import Value" in verified.message


@pytest.mark.slow
def test_the_audit_alone_finds_the_same_defect_with_shrinking_and_every_op():
    # verify_engine stops a check at its first defect; the audit's default goes on and shrinks
    audited = run_check("exact", "tests.engines.audit_wrong_mul", examples=5)
    verified = verify_engine("tests.engines.audit_wrong_mul", checks=["exact"], max_examples=5, shrink=True)
    verified = verified["exact"]
    assert audited.status == "failed" and not verified.passed
    ops = [f.op for f in audited.findings if f.kind == "wrong_gradient"]
    assert "mul" in ops and len(ops) > 1  # mul, and the ops the engine computes with it
    assert verified.message.startswith("wrong_gradient (mul): ")
    assert verified.message.count("\nreproducer:\n") < len(ops)


def test_a_convention_not_followed_fails_and_a_declared_one_does_not():
    engine = "tests.engines.interior_accumulates"  # micrograd's convention, no defect
    assert backward_convention(engine) == ACCUMULATES
    ours = verify_engine(engine, checks=["stateful"], max_examples=10)["stateful"]
    assert not ours.passed
    assert ours.message.startswith("wrong_gradient: backward() does not follow the declared convention")
    assert "interior gradients hold the latest backward() pass only" in ours.message  # what differs
    assert "y.backward()" in ours.message and "print('expected:'" in ours.message  # the reproducer
    declared = Conventions(backward=ACCUMULATES, higher_order=False)
    theirs = verify_engine(engine, checks=["stateful"], max_examples=10, conventions=declared)["stateful"]
    assert theirs.passed, theirs.message
    # the audit, which declares nothing, reports the convention as a fact: no defect
    assert run_check("stateful", engine, examples=10).status == "passed"


def test_the_convention_reproducer_prints_the_declared_and_the_actual_gradients(capsys):
    message = verify_engine("tests.engines.interior_accumulates", checks=["stateful"], max_examples=2)
    script = message["stateful"].message.split("reproducer:\n", 1)[1].split("\n\n", 1)[0]
    exec(compile(script, "<reproducer>", "exec"), {})
    expected, actual = capsys.readouterr().out.splitlines()
    assert expected != actual.replace("actual:  ", "expected:")
    assert expected.startswith("expected: [['12', '4', '3', '1', '0'], ['24', '8', '3', '1', '0']")


def test_a_defect_beyond_a_declared_convention_still_fails():
    # float engine whose zeroed gradients come back: its own convention declared, the bug found
    engine = "tests.engines.planted_stateful"
    observed = backward_convention(engine)
    assert observed is not None and observed != OUR_CONVENTION
    declared = Conventions(backward=observed, exact=False, higher_order=False)
    result = verify_engine(engine, checks=["stateful"], conventions=declared)["stateful"]  # 40 runs, seed 0
    assert not result.passed
    assert "does not follow the declared convention" not in result.message
    assert result.message.startswith("wrong_gradient: stateful: leaf v"), result.message
    assert "= 0" in result.message  # the reproducer zeroes a gradient


def test_our_engine_passes_under_its_declared_conventions():
    assert backward_convention(autograd) == OURS.backward
    results = verify_engine(autograd, checks=["stateful", "second_order", "chain_sweep"], max_examples=6)
    assert all(r.passed for r in results.values()), [str(r) for r in results.values()]
    assert all(" judged, " in r.message for r in results.values())  # a pass says how much it judged


def test_old_check_names_run_the_audits_checks_under_their_own_name():
    assert RENAMED == {"fd": "symbolic", "backward_twice": "stateful"}
    assert set(RENAMED.values()) <= set(CHECKS) and not set(RENAMED) & set(CHECKS)
    results = verify_engine("tests.engines.interior_accumulates", checks=["backward_twice"], max_examples=4)
    assert list(results) == ["backward_twice"] and not results["backward_twice"].passed
    with pytest.raises(ValueError, match="unknown checks"):
        verify_engine(autograd, checks=["no_such_check"])


def test_a_declared_capability_the_engine_lacks_fails_as_not_judged(monkeypatch):
    # float_only refuses Fractions: the exact check judges nothing, which verify_engine does not pass
    result = verify_engine("tests.engines.float_only", checks=["exact"], max_examples=3)["exact"]
    assert not result.passed and result.message.startswith("not judged: needs exact arithmetic")
    # undeclared capabilities are not run by default
    assert "exact" in CHECKS and "second_order" in CHECKS
    lacking = Conventions(exact=False, higher_order=False)
    asked: list = []

    def run_checks(names, eng, **how):
        asked.extend(names)
        return {n: outcome(n, [], judged=1, unit="graphs", reason="stub") for n in names}

    monkeypatch.setattr(verify, "run_checks", run_checks)
    verify_engine(autograd, conventions=lacking)
    assert asked == [c for c in CHECKS if c not in ("exact", "second_order")]


def _result(monkeypatch, name, found):
    """verify_engine's result for the check ``name`` whose outcome is ``found``."""
    monkeypatch.setattr(verify, "run_checks", lambda names, eng, **how: {name: found})
    return verify_engine(autograd, checks=[name])[name]


def test_inconclusive_cases_are_counted_not_failed(monkeypatch):
    inconclusive = Finding("inconclusive", "symbolic", "x0 too close to relu's kink to judge", "relu")
    judged = outcome("symbolic", [inconclusive], judged=3, inconclusive=1, unit="graphs", reason="r")
    assert _result(monkeypatch, "symbolic", judged).passed
    assert "3 graphs judged, 1 inconclusive" in _result(monkeypatch, "symbolic", judged).message
    nothing = outcome("symbolic", [inconclusive], judged=0, inconclusive=1, unit="graphs", reason="r")
    assert not _result(monkeypatch, "symbolic", nothing).passed  # nothing judged is not a pass
    wrong = Finding("wrong_gradient", "symbolic", "d/dx0 off", "mul", "print(1)", "[1]", "[2]")
    failed = outcome("symbolic", [inconclusive, wrong], judged=3, unit="graphs", reason="r")
    message = _result(monkeypatch, "symbolic", failed).message
    want = "wrong_gradient (mul): d/dx0 off\nexpected: [1]\nactual: [2]\nreproducer:\nprint(1)"
    assert message.startswith(want)
    assert "too close" not in message


def test_numbers_with_more_digits_than_str_converts_are_shown_not_raised():
    # the zoo's double-counting variant gives exact gradients of thousands of digits: the audit's
    # findings raised ValueError instead of showing them (the oracle's table: test_testing_oracles)
    from autograd.testing.checks.common import num

    assert num(3 * 2**16000) == "9.0584080117176827e+4816"  # 4817 digits: 3 * 2**16000 to 17
    assert num(Fraction(2**16000 + 1, 2**15000)) == "1.0715086071862673e+301"  # 2**1000
    assert (num(Fraction(1, 3)), num(Fraction(12)), num(12)) == ("Fraction(1, 3)", "12", "12")  # as before
