"""The one registry of checks and probes: what audit(), run_checks() and verify_engine() iterate."""

from __future__ import annotations

import pytest

import autograd
from autograd.testing import audit, run_check, run_checks, verify_engine
from autograd.testing.auditor import check_names
from autograd.testing.checks import registry
from autograd.testing.findings import Finding, outcome

# the report's order as a reader meets it: facts of the table, the searches, the properties, the
# machine, higher order, the extra ops, then the probes (cheap facts first, slow ones last)
REPORT_ORDER = [
    "ops", "exact", "symbolic", "forward", "linearity", "build_order", "chain_sweep", "mlp", "stateful",
    "second_order", "extra_ops", "self_consistency", "support", "edge_points", "out_of_domain",
    "edge_second_order", "bad_inputs", "conventions", "determinism", "depth", "nested", "memory", "time",
]  # fmt: skip


def test_every_check_and_probe_is_registered_once_in_report_order():
    assert check_names() == REPORT_ORDER
    assert check_names(probes=True) == REPORT_ORDER[REPORT_ORDER.index("support") :]
    assert check_names(probes=False) == REPORT_ORDER[: REPORT_ORDER.index("support")]


def test_a_name_registered_twice_is_refused(monkeypatch):
    monkeypatch.setattr(registry, "REGISTRY", dict(registry.REGISTRY))
    with pytest.raises(ValueError, match=r"\['symbolic'\] registered twice"):
        registry.check("mine", "symbolic", order=99)(lambda run: [])


@pytest.fixture
def only_ops_and_a_new_check(monkeypatch):
    """The registry holding the ops check and one new check (``calls`` counts its runs)."""
    monkeypatch.setattr(registry, "REGISTRY", {"ops": registry.REGISTRY["ops"]})
    calls = []

    @registry.check("first_half", "second_half", order=5)
    def family(run):
        calls.append((run.examples, run.seed, sorted(run.wanted)))
        found = [Finding("wrong_gradient", "second_half", "planted", "exp", "print(1)", "1", "2")]
        return [
            outcome("first_half", [], judged=3, unit="graphs", reason="new"),
            outcome("second_half", found, judged=2, unit="graphs", reason="new"),
        ]

    return calls


def test_audit_run_checks_and_verify_engine_iterate_the_registry(only_ops_and_a_new_check):
    calls = only_ops_and_a_new_check
    report = audit(autograd, examples=4, seed=7)
    assert list(report.outcomes) == ["ops", "first_half", "second_half"]  # in the registry's order
    assert report.checks["second_half"] == "failed" and report.checks["first_half"] == "passed"
    assert [f.summary for f in report.defects] == ["planted"]
    # a family reporting several names runs once, whatever is asked of it
    assert calls == [(4, 7, ["first_half", "ops", "second_half"])]
    both = run_checks(["second_half", "first_half"], autograd, examples=2, seed=1)
    assert list(both) == ["second_half", "first_half"] and len(calls) == 2
    assert run_check("first_half", autograd, examples=2).judged == 3
    results = verify_engine(autograd, checks=["first_half", "second_half"], max_examples=2)
    assert results["first_half"].passed and not results["second_half"].passed
    assert "planted" in results["second_half"].message


def test_an_unknown_name_is_refused_naming_it():
    with pytest.raises(ValueError, match="unknown check 'linearty'"):
        run_check("linearty", autograd)
