"""The nested-differentiation probe (autograd.testing.probes.nested): perturbation confusion."""

import dataclasses
import random
from fractions import Fraction
from typing import Any

import micrograd.engine
import pytest
import sympy

import autograd
from autograd.testing import Graph, Node, resolve_engine
from autograd.testing.boundary import EngineRaised
from autograd.testing.engines import Engine
from autograd.testing.oracles.higher import assert_hessian_exact
from autograd.testing.probes import nested as pn
from tests.engines import no_division, perturbation_confusion, sound, values_only
from tests.snippets import printed


def test_the_classic_is_one_by_sympy_and_by_our_engine():
    assert pn.CLASSIC.expected() == 1  # d/dx [x * d/dy (x + y) at y = x]
    assert pn.engine_answer(resolve_engine(autograd), pn.CLASSIC) == 1


@pytest.mark.parametrize("seed", range(10))
def test_our_engine_passes_every_nest(seed):
    result = pn.probe_nested(autograd, examples=40, seed=seed)
    assert result.status == "passed", result.findings
    assert (result.name, result.unit) == ("nested", "nests")  # the report's row and its count's unit
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


def _parts(tree):
    """(the operations, the leaves) of a tree."""
    if tree[0] in ("var", "D", "const"):
        return 0, [tree]
    (ops_a, leaves_a), (ops_b, leaves_b) = _parts(tree[1]), _parts(tree[2])
    return 1 + ops_a + ops_b, leaves_a + leaves_b


def test_each_level_is_a_coupling_to_the_level_below_plus_a_small_random_polynomial():
    rng = random.Random(1)
    nests = [pn.generate(rng, depth) for depth in (2, 3) * 20]
    sizes, used = set(), {}
    for nest in nests:
        v = sympy.symbols(f"v0:{nest.depth}")
        for k, (op, coupled, body) in enumerate(nest.levels):
            assert op == "add" and (("D",) in _parts(coupled)[1]) == (k < nest.depth - 1)
            ops, leaves = _parts(body)
            sizes.add(ops)
            assert ("D",) not in leaves and len({leaf for leaf in leaves if leaf[0] == "const"}) <= 2
            used.setdefault(k, set()).update(leaf[1] for leaf in leaves if leaf[0] == "var")
        # the innermost derivative depends on its own variable too: second order, through v_k itself
        inner = pn._sympy(nest.levels[-1], v, None)
        assert v[-1] in sympy.diff(inner, v[-1]).free_symbols
    assert sizes == {1, 2}  # one or two operations, over the level's variables and two constants
    assert used == {0: {0}, 1: {0, 1}, 2: {0, 1, 2}}


def test_a_create_graph_pass_that_keeps_the_previous_one_is_perturbation_confusion():
    result = pn.probe_nested(perturbation_confusion, examples=40)
    assert result.status == "failed"
    (finding,) = result.findings
    assert finding.kind == "wrong_gradient" and "perturbation confusion" in finding.summary
    # the classic comes first: d/dx [x * d/dy (x + y) at y = x] is 2 on this engine
    assert finding.expected == "1.0" and finding.actual == "2"
    assert printed(finding.reproducer) == "expected (sympy): 1.0; actual: 2"


def test_the_confused_engine_is_right_at_first_and_second_order():
    # only nesting shows it: the Hessian of create_graph-then-backward is exact
    graph = Graph((Fraction(3, 4), Fraction(-1, 2)), (Node("mul", (0, 1)), Node("mul", (2, 0))))
    assert_hessian_exact(graph, perturbation_confusion)


@pytest.mark.parametrize("engine", [micrograd.engine, sound.Value], ids=["micrograd", "sound"])
def test_engines_without_create_graph_are_not_applicable(engine):
    result = pn.probe_nested(engine)
    assert result.status == "not_applicable"
    assert result.reason == "backward(create_graph=True) is not supported"
    assert (result.name, result.unit, result.judged) == ("nested", "nests", 0)


def test_interior_accumulation_is_detected_for_choosing_the_depth():
    assert pn._interior_accumulates(resolve_engine(micrograd.engine))
    assert not pn._interior_accumulates(resolve_engine(autograd))


def test_an_engine_without_division_is_judged_on_every_nest():
    # the nests (and the check for accumulating gradients) only add, subtract and multiply
    result = pn.probe_nested(no_division.Value, examples=40)
    assert result.status == "passed" and result.judged == 10, result.reason
    assert "two and three levels" in result.reason


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
    assert (
        "backward(create_graph=True) raises RuntimeError: create_graph: not today on d/dv0 E0"
        in crash.summary
    )
    assert crash.actual == "RuntimeError: create_graph: not today"


def test_an_engine_whose_second_backward_raises_is_not_applicable(monkeypatch):
    eng = _broken_after_discovery(monkeypatch, lambda create_graph: RuntimeError("one pass only"))
    result = pn.probe_nested(eng)
    assert result.status == "not_applicable"
    assert result.reason == "two backward() passes fail: RuntimeError: one pass only"
    assert (result.name, result.unit, result.judged, result.findings) == ("nested", "nests", 0, [])


def test_our_own_error_in_running_a_nest_propagates_instead_of_reading_as_a_crash(monkeypatch):
    # issue 13: only what the engine raises is a fact about it; a KeyError of ours is our bug
    def broken(self, tree, below):
        raise KeyError("planted in the harness")

    monkeypatch.setattr(pn._Run, "_apply", broken)
    with pytest.raises(KeyError, match="planted in the harness"):
        pn.probe_nested(autograd)


# ---------------------------------------------------------------------- what a finding shows
# E0 = v0 * D - 2 with D = d/dv1 (v0 * v1) = v0: d/dv0 E0 = 2 * v0 = 1.5 at 0.75
WITH_CONSTANT = pn.Nest(
    (("add", ("mul", ("var", 0), ("D",)), ("const", -2)), ("mul", ("var", 0), ("var", 1))), 0.75
)


def test_a_nest_is_described_by_its_formulas():
    assert WITH_CONSTANT.expected() == Fraction(3, 2)
    described = WITH_CONSTANT.describe()
    assert described.startswith("d/dv0 E0 at v0 = 0.75, where E0 = ((v0 * D) + -2); E1 = (v0 * v1), ")


def test_the_reproducer_of_any_nest_prints_what_the_probe_computed():
    # constants and nests three levels deep, pasted as they are: the engine's answer and sympy's
    eng = resolve_engine(perturbation_confusion)
    rng = random.Random(3)
    # (d/dv0 [v0 * d/dv1 (v1 * 3)] = 3: the answer is the constant, as the float the probe used)
    only_constant = pn.Nest((("mul", ("var", 0), ("D",)), ("mul", ("var", 1), ("const", 3))), -0.5)
    nests = [WITH_CONSTANT, only_constant, *(pn.generate(rng, depth) for depth in (2, 3, 2, 3))]
    assert any(("const" in repr(nest.levels)) for nest in nests[1:])
    wrong = 0
    for nest in nests:
        want, got = nest.expected(), pn.engine_answer(eng, nest)
        wrong += got != want
        assert (
            printed(pn._reproducer(eng, nest, want)) == f"expected (sympy): {float(want)!r}; actual: {got}"
        )
    assert wrong >= 3  # the confusion shows on most nests: the reproducers show a defect


# ---------------------------------------------------------------------- the engine's conventions
def test_gradients_that_are_plain_numbers_are_added_as_the_engine_adds_them():
    # values_only: `+` takes Values only, and a leaf no share reached keeps a plain 0
    result = pn.probe_nested(values_only.Value, examples=40)
    assert result.status == "passed" and result.judged == 10, result.findings
    assert pn.engine_answer(resolve_engine(values_only.Value), pn.CLASSIC) == 1


@dataclasses.dataclass(frozen=True)
class _Reads(Engine):
    """Our engine, read through an accessor that gives each gradient as ``convert`` makes it."""

    convert: Any = None

    def grad(self, v, **how):
        return self.convert(super().grad(v, **how))


def _as_number(g):  # a create_graph gradient read as the number it holds (a first-order view)
    return g.data if isinstance(g, autograd.Value) else g


def _none_for_zero(g):  # PyTorch's set_to_none: a zeroed gradient no pass reached reads None
    return None if not isinstance(g, autograd.Value) and g == 0 else g


def _engine(cls, **fields):
    base = resolve_engine(autograd)
    assert base.higher_order
    return cls(**{f.name: getattr(base, f.name) for f in dataclasses.fields(base)}, **fields)


@pytest.mark.parametrize("convert", [_as_number, _none_for_zero], ids=["numbers", "none"])
def test_a_gradient_read_as_a_number_or_none_is_summed_as_one(convert):
    # the classic's answer does not depend on the second-order part: right either way
    assert pn.engine_answer(_engine(_Reads, convert=convert), pn.CLASSIC) == 1


# ---------------------------------------------------------------------- where the engine raises
class _NoAdd(autograd.Value):
    __slots__ = ()

    def __add__(self, other):
        raise TypeError("planted: no sums")


class _NoAddNumber(float):
    def __add__(self, other):
        raise TypeError("planted: no sums")


@dataclasses.dataclass(frozen=True)
class _Fails(Engine):
    """Our engine, its accessor raising (or handing out Values or numbers that refuse ``+``) in ``fault``
    (on the classic's point 0.75 and under create_graph only: discovery and the first checks pass)."""

    fault: str = ""

    # (an accessor reports what the engine raised as EngineRaised, at the stage it was asked for)
    def make(self, x, stage="forward"):
        if self.fault == "make" and x == 0.75:
            raise EngineRaised(stage, ValueError("planted: no 0.75"))
        return _NoAdd(x) if self.fault == "forward" and x == 0.75 else super().make(x, stage=stage)

    def set_grad(self, v, g, stage="setting a gradient"):
        if self.fault == "set_grad":
            raise EngineRaised(stage, AttributeError("planted: read-only gradient"))
        super().set_grad(v, g, stage=stage)

    def grad(self, v, stage="backward()"):
        g = super().grad(v, stage=stage)
        if not isinstance(g, autograd.Value) or super().data(v) != 0.75:  # (discovery sees the engine)
            return g
        if self.fault == "grad":
            raise EngineRaised(stage, RuntimeError("planted: no gradient Values"))
        if self.fault in ("sum", "number sum"):
            return _NoAdd(g.data) if self.fault == "sum" else _NoAddNumber(g.data)
        return g

    def data(self, v, stage="forward"):
        if self.fault == "data":
            raise EngineRaised(stage, RuntimeError("planted: no data"))
        return super().data(v, stage=stage)


@pytest.mark.parametrize(
    ("fault", "stage", "line"),
    [
        ("make", "make", "ValueError: planted: no 0.75"),
        ("forward", "+", "TypeError: planted: no sums"),
        ("set_grad", "setting a gradient", "AttributeError: planted: read-only gradient"),
        ("grad", "reading a gradient", "RuntimeError: planted: no gradient Values"),
        ("sum", "+", "TypeError: planted: no sums"),
        ("number sum", "+", "TypeError: planted: no sums"),
        ("data", "reading", "RuntimeError: planted: no data"),
    ],
)
def test_a_crash_names_the_step_the_engine_raised_in(fault, stage, line):
    result = pn.probe_nested(_engine(_Fails, fault=fault))
    (crash,) = result.findings
    assert (crash.kind, crash.check, crash.expected, crash.actual) == ("crash", "nested", "1.0", line)
    assert result.judged == 7 and result.inconclusive == 0  # every nest judged: a crash or right
    assert crash.summary.startswith(
        f"in nested differentiation, {stage} raises {line} on d/dv0 E0 at v0 = 0.75"
    )


# ---------------------------------------------------------------------- how a difference is judged
@dataclasses.dataclass(frozen=True)
class _Answers(Engine):
    """Our engine, its numbers read through ``convert`` (only the answer is read: a number made off)."""

    convert: Any = None

    def data(self, v, **how):
        return self.convert(super().data(v, **how))


@pytest.mark.parametrize(
    ("convert", "actual"),
    [
        (lambda x: x * (1 + 5e-10), None),  # every answer is a float exactly: no rounding explains it
        (lambda x: x * (1 + 1e-6), None),
        (lambda x: float("nan"), "nan"),
        (lambda x: Fraction(x) + Fraction(1, 10**15), None),  # exact: any difference
    ],
    ids=["last-digits", "float", "nan", "exact"],
)
def test_a_difference_both_methods_see_is_a_defect(convert, actual):
    result = pn.probe_nested(_engine(_Answers, convert=convert), examples=100)
    (finding,) = result.findings
    # the classic first
    assert (finding.kind, finding.check, finding.expected) == ("wrong_gradient", "nested", "1.0")
    assert finding.actual == (actual or repr(convert(1.0)))
    assert (result.judged, result.inconclusive) == (12, 0)
    assert finding.summary.endswith(
        f"gives {finding.actual}; sympy 1.0 differs, confirmed by polynomials in Fractions 1.0 "
        "(and 11 more of 12 nests)"
    )
    assert result.reason == "12 nests (two and three levels), the classic first, against sympy"


def test_the_second_method_reaches_sympys_answers_on_its_own():
    # d/dv0 [v0 * d/dv1 (v0 + v1)] = 1 by hand; and the generated nests, two and three levels deep
    assert pn.by_polynomials(pn.CLASSIC) == 1
    nest = pn.Nest((("mul", ("var", 0), ("mul", ("D",), ("D",))), ("mul", ("var", 0), ("var", 1))), 1.5)
    assert pn.by_polynomials(nest) == Fraction(27, 4)  # D = v0, E0 = v0 ** 3: 3 * 1.5 ** 2
    rng = random.Random(0)
    for depth in (2, 3, 2, 3):
        generated = pn.generate(rng, depth)
        assert pn.by_polynomials(generated) == generated.expected()


def test_a_disagreement_the_second_method_does_not_confirm_is_unresolved(monkeypatch):
    # sympy's answer made wrong: our engine is right, and the polynomials say so
    monkeypatch.setattr(pn.Nest, "expected", lambda nest: Fraction(0))
    result = pn.probe_nested(autograd)
    assert {f.kind for f in result.findings} == {"inconclusive"}
    assert (result.judged, result.inconclusive) == (0, 7)
    (finding,) = result.findings
    assert "not a defect" not in finding.summary
    assert finding.summary.endswith(
        "gives 1; sympy 0.0 differs, polynomials in Fractions 1.0: not confirmed, unresolved "
        "(and 6 more of 7 nests)"
    )


@pytest.mark.parametrize(("examples", "count"), [(0, 4), (19, 4), (20, 5), (47, 11), (48, 12), (1000, 12)])
def test_the_number_of_nests_grows_with_examples_from_4_to_12(examples, count):
    result = pn.probe_nested(autograd, examples=examples)
    assert result.status == "passed" and result.judged == count
    assert result.reason.startswith(f"{count} nests (two and three levels)")


@pytest.mark.parametrize("accumulates", [True, False])
def test_an_engine_whose_interior_gradients_accumulate_gets_two_level_nests(monkeypatch, accumulates):
    # (no engine with create_graph at hand accumulates: the check's answer is planted)
    monkeypatch.setattr(pn, "_interior_accumulates", lambda eng: accumulates)
    answer, nests = pn.engine_answer, []
    monkeypatch.setattr(pn, "engine_answer", lambda eng, nest: nests.append(nest) or answer(eng, nest))
    result = pn.probe_nested(perturbation_confusion)
    (finding,) = result.findings
    assert finding.summary.endswith("(and 6 more of 7 nests)") and result.judged == 7
    depths = [nest.depth for nest in nests]
    if accumulates:
        assert "(two levels only: interior gradients accumulate across passes)" in result.reason
        assert depths == [2] * 7
    else:
        assert "(two and three levels)" in result.reason and depths == [2, 2, 3, 2, 3, 2, 3]
    # the nests are drawn from the seed: the same again, others for another seed
    assert pn.probe_nested(perturbation_confusion) == result and nests[7:] == nests[:7]
    pn.probe_nested(perturbation_confusion, seed=1)
    assert nests[14] == pn.CLASSIC and set(nests[15:]).isdisjoint(nests[:7])


@pytest.mark.parametrize("examples", [30, 40])
def test_a_finding_tallies_the_other_nests_of_its_kind(monkeypatch, examples):
    # the engine raises on the point 0.75 only: the nests drawn there crash, the others pass
    answer, nests = pn.engine_answer, []
    monkeypatch.setattr(pn, "engine_answer", lambda eng, nest: nests.append(nest) or answer(eng, nest))
    result = pn.probe_nested(_engine(_Fails, fault="make"), examples=examples)
    (crash,) = result.findings
    others = sum(nest.point == 0.75 for nest in nests) - 1
    assert others == (examples == 40)  # (the seed's draw: one nest at 0.75 besides the classic at 40)
    tally = f" (and {others} more of {len(nests)} nests)" if others else ""
    assert crash.summary.endswith("at v(k+1) = vk" + tally)


# ---------------------------------------------------------------------- the second method, like terms
def test_the_second_method_collects_like_terms_of_a_product_and_of_a_merge():
    # E1 = (v0 + v1) * (v0 + v1): v0 * v1 twice; D = d/dv1 E1 = 2 v1 + 2 v0 = 4 v0 at v1 = v0;
    # E0 = v0 * D = 4 v0 ** 2: d/dv0 E0 = 8 v0 = 6 at 0.75
    twice = ("add", ("var", 0), ("var", 1))
    square = pn.Nest((("mul", ("var", 0), ("D",)), ("mul", twice, twice)), 0.75)
    assert pn.by_polynomials(square) == 6
    # E1 = (v0 + v1) * v1 = v0 v1 + v1 ** 2: D = v0 + 2 v1, merged: v0 and 2 v1 are both terms in v0,
    # D = 3 v0; E0 = v0 * D = 3 v0 ** 2: d/dv0 E0 = 6 v0 = 4.5 at 0.75
    merged = pn.Nest((("mul", ("var", 0), ("D",)), ("mul", twice, ("var", 1))), 0.75)
    assert pn.by_polynomials(merged) == Fraction(9, 2)


def test_the_second_methods_answer_is_a_fraction_even_when_it_is_zero():
    # D = d/dv1 (3 v1) = 3, E0 = 2 D = 6: no term in v0 is left, d/dv0 E0 = 0
    constant = pn.Nest((("mul", ("D",), ("const", 2)), ("mul", ("var", 1), ("const", 3))), 0.75)
    answer = pn.by_polynomials(constant)
    assert type(answer) is Fraction and answer == 0


# ---------------------------------------------------------------------- an answer that is no float
# E1 = v0 * v1 * v1: D = 2 v0 v1 = 2 v0 ** 2 at v1 = v0; E0 = v0 * D = 2 v0 ** 3: d/dv0 E0 = 6 v0 ** 2,
# at the float 0.1 the exact 6 * Fraction(0.1) ** 2, which no float holds (0.1's 53 bits, squared)
AT_A_TENTH = pn.Nest((("mul", ("var", 0), ("D",)), ("mul", ("mul", ("var", 0), ("var", 1)), ("var", 1))), 0.1)
A_TENTH_ANSWER = 6 * Fraction(0.1) ** 2


def _rounding_text(want):
    return (
        f"sympy {float(want)!r} differs, polynomials in Fractions cannot judge "
        f"({float(want)!r} is not exactly a float: rounding may explain it): unresolved"
    )


def test_a_float_answer_off_an_answer_no_float_holds_is_unresolved(monkeypatch):
    assert Fraction(float(A_TENTH_ANSWER)) != A_TENTH_ANSWER  # (the premise: no float is the answer)
    monkeypatch.setattr(pn, "CLASSIC", AT_A_TENTH)  # first, then 3 nests at exact points: all right
    result = pn.probe_nested(autograd, examples=0)
    (finding,) = result.findings
    want = repr(float(A_TENTH_ANSWER))
    assert (finding.kind, finding.check, finding.expected) == ("inconclusive", "nested", want)
    assert abs(float(finding.actual) - 0.06) < 1e-15  # our engine's float, rounded
    assert finding.summary.endswith(f"gives {finding.actual}; " + _rounding_text(A_TENTH_ANSWER))
    assert (result.judged, result.inconclusive) == (3, 1)


def test_an_exact_answer_off_an_answer_no_float_holds_is_a_defect(monkeypatch):
    # an engine computing in Fractions has no rounding to explain a difference
    monkeypatch.setattr(pn, "CLASSIC", AT_A_TENTH)
    exact = _engine(_Answers, convert=lambda x: Fraction(x) + Fraction(1, 10**15))
    result = pn.probe_nested(exact, examples=0)
    (finding,) = result.findings
    want = repr(float(A_TENTH_ANSWER))
    assert (finding.kind, finding.expected) == ("wrong_gradient", want)
    assert f"; sympy {want} differs, confirmed by polynomials in Fractions {want}" in finding.summary


def test_a_run_with_defects_and_unresolved_nests_reports_each_kind_with_its_own_tally(monkeypatch):
    # the confused engine: the nest at 0.1 first (its answer no float: unresolved), then the
    # generated nests, each a defect (see the test of interior gradients above: 7 of 7)
    monkeypatch.setattr(pn, "CLASSIC", AT_A_TENTH)
    result = pn.probe_nested(perturbation_confusion, examples=0)
    unresolved, wrong = result.findings
    assert unresolved.kind == "inconclusive" and unresolved.summary.endswith(_rounding_text(A_TENTH_ANSWER))
    assert wrong.kind == "wrong_gradient" and wrong.summary.endswith("(and 2 more of 4 nests)")
    assert (result.judged, result.inconclusive) == (3, 1)


# ---------------------------------------------------------------------- the reproducer as pasted
def test_the_reproducer_is_the_nest_written_as_a_user_of_create_graph_writes_it():
    result = pn.probe_nested(perturbation_confusion, examples=0)
    reproducer = result.findings[0].reproducer  # the classic's
    # every line as the user reads it: the levels named as the summary names them (E_k, D), and
    # D, like every gradient, made a Value by g for the level that uses it
    assert reproducer.splitlines() == [
        "from tests.engines.perturbation_confusion import Value",
        "def g(x):  # a gradient may be a plain number: a Value for the next level",
        "    return x if isinstance(x, Value) else Value(x)",
        "levels = [lambda v, D: (v[0] * g(D)), lambda v, D: (v[0] + v[1])]"
        "  # E_k of v[0..k] and D, the level below",
        "leaves = []",
        "def derivative(k):  # d E_k / d v[k], the leaves v[k], v[k+1], ... all standing for v[k]",
        "    leaves.append(Value(0.75))",
        "    D = derivative(k + 1) if k + 1 < len(levels) else None",
        "    E = levels[k](leaves, D)",
        "    for x in leaves:",
        "        x.grad = 0",
        "    E.backward(create_graph=True)",
        "    total = g(leaves[k].grad)",
        "    for x in leaves[k + 1:]:",
        "        total = total + g(x.grad)",
        "    return total",
        "got = derivative(0)",
        "got = got.data if isinstance(got, Value) else got",
        "print('expected (sympy): 1.0; actual:', got)",
    ]
    assert printed(reproducer) == "expected (sympy): 1.0; actual: 2"
