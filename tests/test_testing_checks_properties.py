"""The exact properties as the audit's checks (autograd.testing.checks.properties), judged through
run_check and the public property functions: which finding a broken property gives (a wrong rule's,
moved onto its node, or the property's own), on Fractions and on floats, and tolerances in the
engine's own precision."""

from __future__ import annotations

import pytest

from autograd.testing import SearchMode, resolve_engine, run_checks, verify_engine
from autograd.testing.checks import check_chain_sweep
from tests.engines import late_leaf_tape, sound


def _found(check, engine):
    """``check``'s outcome on ``engine`` from 10 examples, its first defect not shrunk (quicker)."""
    return run_checks([check], engine, examples=10, mode=SearchMode(shrink=False, first_defect=True))[check]


def _floats(value_class):
    """``value_class`` holding floats (a Fraction given is made a float)."""
    return type(f"Float{value_class.__module__.rpartition('.')[2]}", (value_class,), {
        "check": staticmethod(lambda x: float(sound.check_number(x))),
    })  # fmt: skip


@pytest.mark.parametrize(
    ("check", "first"),
    [("linearity", "linearity: d("), ("build_order", "build order: x")],
)
@pytest.mark.parametrize(
    ("engine", "how"),
    [
        (late_leaf_tape.Value, "exact arithmetic"),
        (_floats(late_leaf_tape.Value), "beyond the derived float tolerance"),
    ],
)
def test_a_property_broken_only_by_a_late_leaf_is_the_checks_own_finding(check, first, engine, how):
    # late_leaf_tape is right on every graph built leaves first, so no node is to blame: the finding
    # is the property's, its summary the property's first line and how it was judged, its
    # reproducer the whole message with the programs of the graphs
    found = _found(check, engine)
    (finding,) = found.findings
    assert (found.status, finding.kind, finding.check, finding.op) == (
        "failed",
        "wrong_gradient",
        check,
        None,
    )
    assert finding.summary.startswith(first)
    assert finding.summary == f"{finding.reproducer.splitlines()[0]} ({how})"
    assert resolve_engine(engine).import_line() in finding.reproducer


class _SquaredAdjointAdd(sound.Value):
    """x + y sends back its gradient times its size, g * |g|, not g: right where the gradient
    reaching it is 1 (an output), wrong elsewhere, and not linear in it."""

    def __add__(self, other):
        other = self._lift(other)
        out = type(self)(self.data + other.data, (self, other))

        def backward():
            for parent in (self, other):
                parent.grad += out.grad * abs(out.grad)

        out._backward = backward
        return out


@pytest.mark.parametrize(
    ("engine", "judged"),
    [
        (_SquaredAdjointAdd, ", exactly ["),
        (_floats(_SquaredAdjointAdd), ", confirmed by finite differences ["),
    ],
)
def test_a_property_broken_by_a_graph_wrong_on_its_own_gives_that_graphs_finding(engine, judged):
    # a f + b g as one graph is wrong on its own (f's output, an add, now gets a, not 1): the finding
    # is the one the exact (or float) check gives that graph, under linearity, with its program
    found = _found("linearity", engine)
    (finding,) = found.findings
    assert (finding.kind, finding.check) == ("wrong_gradient", "linearity")
    assert finding.summary.startswith("d/dx") and judged in finding.summary
    assert finding.reproducer.splitlines()[2].startswith("print('expected:', [")


def test_a_float32_engine_is_judged_with_float32_tolerances():
    # w = 1.1 and x = 0.7 are rounded to float32 by the engine: dy/dx = w**10 is off by about 4e-7,
    # within a float32 tolerance, far beyond a float64 one
    check_chain_sweep("tests.engines.float32", (1.1, 0.7, 10))


# ---------------------------------------------------------------------- verify_engine
@pytest.mark.slow
def test_verify_engine_minimises_a_failing_example_only_when_asked():
    # without shrinking the reproducer is the first failing example's, cut down to one node where
    # one fails alone (none does here); shrink=True minimises it: a shorter program
    def reproducer(shrink):
        result = verify_engine(late_leaf_tape.Value, checks=["linearity"], max_examples=10, shrink=shrink)
        return result["linearity"].message.split("reproducer:\n", 1)[1]

    first, shrunk = reproducer(False), reproducer(True)
    assert first.startswith("linearity: d(") and shrunk.startswith("linearity: d(")
    assert len(shrunk) < len(first)
