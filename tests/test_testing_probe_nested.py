"""The nested-differentiation probe (autograd.testing.probes.nested): perturbation confusion."""

import contextlib
import dataclasses
import io
import random
from fractions import Fraction

import micrograd.engine
import pytest
import sympy

import autograd
from autograd.testing import Graph, Node, resolve_engine
from autograd.testing.higher import assert_hessian_exact
from autograd.testing.probes import nested as pn
from tests.engines import perturbation_confusion, sound


def test_the_classic_is_one_by_sympy_and_by_our_engine():
    assert pn.CLASSIC.expected() == 1  # d/dx [x * d/dy (x + y) at y = x]
    assert pn.engine_answer(resolve_engine(autograd), pn.CLASSIC) == 1


@pytest.mark.parametrize("seed", range(10))
def test_our_engine_passes_every_nest(seed):
    result = pn.probe_nested(autograd, examples=40, seed=seed)
    assert result.status == "passed", result.findings
    assert result.judged == 10 and result.inconclusive == 0
    assert "two and three levels" in result.reason


def test_generated_nests_couple_the_levels_and_differ():
    rng = random.Random(0)
    nests = [pn.generate(rng, depth) for depth in (2, 3, 2, 3, 2, 3)]
    assert len({n.levels for n in nests}) == len(nests)
    for nest in nests:
        v = sympy.symbols(f"v0:{nest.depth}")
        inner = pn._sympy(nest.levels[-1], v, None)
        # the innermost derivative depends on an outer variable: there is something to confuse
        assert sympy.diff(inner, v[-1]).free_symbols & set(v[:-1])
        assert isinstance(nest.expected(), Fraction)


def test_a_create_graph_pass_that_keeps_the_previous_one_is_perturbation_confusion():
    result = pn.probe_nested(perturbation_confusion, examples=40)
    assert result.status == "failed"
    (finding,) = result.findings
    assert finding.kind == "wrong_gradient" and "perturbation confusion" in finding.summary
    # the classic comes first: d/dx [x * d/dy (x + y) at y = x] is 2 on this engine
    assert finding.expected == "1.0" and finding.actual == "2"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(finding.reproducer, "<reproducer>", "exec"), {})
    assert out.getvalue().strip() == "expected (sympy): 1.0; actual: 2"


def test_the_confused_engine_is_right_at_first_and_second_order():
    # only nesting shows it: the Hessian of create_graph-then-backward is exact
    graph = Graph((Fraction(3, 4), Fraction(-1, 2)), (Node("mul", (0, 1)), Node("mul", (2, 0))))
    assert_hessian_exact(graph, perturbation_confusion)


@pytest.mark.parametrize("engine", [micrograd.engine, sound.Value], ids=["micrograd", "sound"])
def test_engines_without_create_graph_are_not_applicable(engine):
    result = pn.probe_nested(engine)
    assert result.status == "not_applicable" and "create_graph" in result.reason


def test_interior_accumulation_is_detected_for_choosing_the_depth():
    assert pn._interior_accumulates(resolve_engine(micrograd.engine))
    assert not pn._interior_accumulates(resolve_engine(autograd))


def _broken_after_discovery(monkeypatch, fail):
    """Our engine, its backward() raising ``fail(create_graph)`` once its create_graph support is seen."""
    broken = []

    def backward(self, create_graph=False):
        if broken and fail(create_graph):
            raise fail(create_graph)
        return self.backward(create_graph=create_graph)

    monkeypatch.setattr(autograd.Value, "backward_then_broken", backward, raising=False)
    eng = dataclasses.replace(resolve_engine(autograd), backward_method="backward_then_broken")
    assert eng.higher_order
    broken.append(True)
    return eng


def test_a_create_graph_pass_that_raises_is_a_crash_on_every_nest(monkeypatch):
    eng = _broken_after_discovery(
        monkeypatch, lambda create_graph: create_graph and RuntimeError("create_graph: not today")
    )
    result = pn.probe_nested(eng)
    (crash,) = result.findings
    assert crash.kind == "crash" and result.status == "failed" and result.judged >= 4
    assert "raises RuntimeError: create_graph: not today on d/dv0 E0" in crash.summary
    assert crash.actual == "RuntimeError: create_graph: not today"


def test_an_engine_whose_second_backward_raises_is_not_applicable(monkeypatch):
    eng = _broken_after_discovery(monkeypatch, lambda create_graph: RuntimeError("one pass only"))
    result = pn.probe_nested(eng)
    assert result.status == "not_applicable"
    assert result.reason == "two backward() passes fail: RuntimeError: one pass only"


def test_our_own_error_in_running_a_nest_propagates_instead_of_reading_as_a_crash(monkeypatch):
    # issue 13: only what the engine raises is a fact about it; a KeyError of ours is our bug
    def broken(self, tree, below):
        raise KeyError("planted in the harness")

    monkeypatch.setattr(pn._Run, "_apply", broken)
    with pytest.raises(KeyError, match="planted in the harness"):
        pn.probe_nested(autograd)
