"""The harness-fault zoo's meta-test: every fault planted in the harness propagates.

For each fault of ``fault_zoo.FAULTS`` the audit runs in a fresh interpreter with the fault in
place (``python -m autograd.testing audit ...``); it must end as an error of the tool: exit status
``HARNESS_FAULT``, the planted exception's line in the traceback, the line saying it is a bug
of autograd.testing, and no report.  Not a pass, not a finding against the engine.
"""

from __future__ import annotations

import pkgutil

import pytest

from autograd.testing import checks
from autograd.testing.boundary import HARNESS_FAULT, HARNESS_FAULT_LINE
from regressions.fault_zoo import FAULTS, MARKER, run_planted


@pytest.mark.parametrize("name", list(FAULTS))
def test_each_fault_applies_to_the_code_as_it_is(name):
    plant = FAULTS[name].plant
    source = plant.path.read_text(encoding="utf-8")
    assert plant.planted(source) != source


def test_the_zoo_reaches_every_part_of_the_harness():
    planted = {fault.plant.module.removeprefix("autograd.testing.") for fault in FAULTS.values()}
    parts = {
        "ops.table", "ops.row", "graph", "oracles.symbolic", "oracles.fd", "oracles.reference",
        "oracles.derivatives", "strategies.examples", "identify", "runner", "auditor", "findings", "verdicts",
        "reproducers", "report", "__main__", "engines.engine", "engines.adapter", "engines.discover",
        "engines.fit", "engines.forms", "engines.numbers", "probes.edges", "probes.regions",
        "probes.bad_inputs", "probes.conventions", "probes.nested", "probes.memory", "probes.support",
        "probes.determinism",
    }  # fmt: skip
    # every module of the checks: the registry, what they share, and each family
    parts |= {f"checks.{m.name}" for m in pkgutil.iter_modules(checks.__path__)}
    assert parts <= planted, sorted(parts - planted)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(FAULTS))
def test_a_planted_fault_is_an_error_of_the_tool(name):
    fault = FAULTS[name]
    result = run_planted(name)
    err = result.stderr
    assert f"{MARKER} {name}" in err, f"{name} was never imported:\n{err}"
    assert result.returncode == HARNESS_FAULT, (
        f"{name} ({fault.plant.what}): exit status {result.returncode}, not {HARNESS_FAULT}\n"
        f"stdout:\n{result.stdout[-3000:]}\nstderr:\n{err[-3000:]}"
    )
    lines = err.splitlines()
    assert HARNESS_FAULT_LINE in lines, err
    trace = lines[lines.index("Traceback (most recent call last):") : lines.index(HARNESS_FAULT_LINE)]
    assert fault.raises in trace, err[-3000:]  # the planted exception's own line (notes may follow)
    assert "verdict:" not in result.stdout  # no report: the audit did not finish as if all were well
