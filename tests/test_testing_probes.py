"""The audit's probes (autograd.testing.probes) on the fixture engines of tests/engines/ and on ours.

Each fixture engine is ``tests.engines.sound`` changed in one place; each probe must find
exactly that change, nothing on ``sound``, and no defect on our engine.
"""

import json
import math
import os
import subprocess
import sys

import pytest

import autograd
from autograd.testing import audit, resolve_engine
from autograd.testing.boundary import child_path
from autograd.testing.findings import DEFECT_KINDS, FINDING_KINDS
from autograd.testing.graph import OracleInconclusive
from autograd.testing.ops import OPS
from autograd.testing.oracles import definition_differences
from autograd.testing.probes import PROBES as REGISTRY
from autograd.testing.probes import determinism
from autograd.testing.probes import edges as probe_edges
from tests.engines import (
    accepts_strings,
    exp_flushes,
    exp_partial_ulps,
    float_only,
    floatifies,
    hangs_in_fresh_interpreters,
    interior_accumulates,
    missing_ops,
    pow0_crash,
    recursive,
    refuses_hash_seed,
    refuses_int_constants,
    set_parents,
    sigmoid_overflow,
    sound,
    tanh_tiny,
    wrong_rule,
)

#: What a probe may report about a correct engine: facts.  Everything else must be caused.
FACTS = {"convention", "unsupported", "depth_limit", "reference_cycles"}

#: fixture -> the findings (kind, op) it must cause beyond the facts; nothing else may appear.
CAUSED = {
    sound: set(),
    float_only: set(),
    floatifies: set(),
    missing_ops: set(),
    interior_accumulates: set(),
    recursive: set(),
    pow0_crash: {("crash", "powc")},
    tanh_tiny: {("wrong_value", "tanh")},
    sigmoid_overflow: {("crash", "sigmoid")},
    wrong_rule: {("wrong_gradient", "exp")},
    exp_flushes: {("wrong_gradient", "exp")},
    exp_partial_ulps: {("wrong_gradient", "exp")},
    # no validation at all: (-1.0) ** 0.5 becomes a complex data value too (out_of_domain)
    accepts_strings: {("accepts_invalid", None), ("accepts_invalid", "mul"), ("accepts_invalid", "powc")},
    set_parents: {("nondeterministic", None)},
}

#: The probes judged here; nested, memory and time have test modules of their own
#: (tests/test_testing_probe_*.py), as the depth bisection has.
PROBES = {name: probe for name, probe in REGISTRY.items() if name not in ("nested", "memory", "time")}


def run(probe, engine):
    return PROBES[probe](engine, examples=10, seed=0)


def caused(outcomes):
    return {(f.kind, f.op) for o in outcomes for f in o.findings if f.kind not in FACTS}


@pytest.mark.parametrize("fixture", list(CAUSED), ids=lambda m: m.__name__.split(".")[-1])
def test_each_fixture_causes_exactly_its_findings(fixture):
    outcomes = [run(name, fixture.Value) for name in PROBES if name != "depth"]  # depth: below
    assert caused(outcomes) == CAUSED[fixture]  # edge points: also tests/test_testing_edges.py
    for outcome in outcomes:
        assert all(f.kind in FINDING_KINDS for f in outcome.findings)
        has_defect = any(f.kind in DEFECT_KINDS for f in outcome.findings)
        assert outcome.status in (("failed",) if has_defect else ("passed", "not_applicable")), outcome


@pytest.mark.slow
def test_our_engine_has_no_defect_and_its_conventions_are_listed():
    outcomes = {name: run(name, autograd) for name in PROBES}
    assert caused(outcomes.values()) == set()
    assert all(o.status == "passed" for o in outcomes.values())
    assert outcomes["support"].findings == []  # every op of the table, exact int and Fraction data
    summaries = [f.summary for f in outcomes["conventions"].findings]
    # the engine's documented semantics (autograd/engine.py docstring)
    assert "leaf gradients doubled, interior ones unchanged" in summaries[0]
    assert "the output's gradient is assigned 1" in summaries[0]
    assert summaries[1] == "relu'(0) is taken as 0"
    (depth,) = outcomes["depth"].findings
    assert depth.kind == "depth_limit" and "100,000 steps" in depth.summary


def test_one_defect_does_not_hide_another():
    class Both(pow0_crash.Value, tanh_tiny.Value):
        pass

    assert caused([run("edge_points", Both)]) == {("crash", "powc"), ("wrong_value", "tanh")}


# the depth bisection (in a child interpreter): tests/test_testing_probe_depth.py


def test_depth_restores_the_recursion_limit():
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(before + 123)
    try:
        run("depth", recursive.Value)
        assert sys.getrecursionlimit() == before + 123
    finally:
        sys.setrecursionlimit(before)


def determinism_program(fixture, builds):
    eng = resolve_engine(fixture.Value)
    return eng, determinism.determinism_body(eng, builds)


def fresh_gradient(fixture, seed):
    """d y/d x of the determinism graph, built once in a fresh interpreter with this hash seed."""
    eng, body = determinism_program(fixture, 1)
    out, err = determinism._run_fresh(f"{eng.import_line()}\n{body}", seed).communicate(timeout=60)
    assert not err
    return determinism._result(out)[0][0]


def test_set_ordered_parents_differ_across_the_fixed_hash_seeds_only():
    # the probe's own seeds: its verdict never depends on this process's (random) hash seed
    assert len({fresh_gradient(set_parents, s) for s in determinism.HASH_SEEDS}) > 1
    assert len({fresh_gradient(sound, s) for s in determinism.HASH_SEEDS}) == 1
    # within one process the fixture always sums in the same order: the seeds must find it
    eng, body = determinism_program(set_parents, 5)
    assert len({json.dumps(grads) for grads in determinism._run_in_process(eng, body)}) == 1
    (finding,) = run("determinism", set_parents.Value).findings
    assert "PYTHONHASHSEED=" in finding.actual
    assert "(this process, build 1)" in finding.actual  # where each gradient was first seen


def test_a_nondeterministic_finding_lists_each_gradient_where_first_seen_and_reproduces_two_seeds():
    told = determinism.probe_determinism(set_parents.Value, examples=2)
    places = 1 + len(determinism.HASH_SEEDS)  # this process and each seed, two builds each
    assert (told.name, told.unit, told.judged) == ("determinism", "builds", 2 * places)
    assert told.reason == (
        "2 builds of an 11-leaf float graph with fan-out, in this process and in fresh "
        "interpreters with PYTHONHASHSEED in 0, 1, 2, 3"
    )
    (finding,) = told.findings
    eng, body = determinism_program(set_parents, 1)
    runs = [("this process", determinism._run_in_process(eng, body)[0][0])]
    runs += [(f"PYTHONHASHSEED={s}", fresh_gradient(set_parents, s)) for s in determinism.HASH_SEEDS]
    firsts = {}
    for where, g in runs:
        firsts.setdefault(g, f"{g} ({where}, build 1)")
    assert (finding.check, finding.expected) == ("determinism", "the same bits in every run")
    assert finding.actual == "; ".join(firsts.values())
    assert finding.summary == (
        f"the same float graph gives {len(firsts)} different gradients across runs: dy/dx = "
        + ", ".join(list(firsts.values())[:4])
    )
    seeds = dict(runs)
    assert run_reproducer(finding.reproducer) == (
        f"PYTHONHASHSEED=0: d y/d x in each build: {[seeds['PYTHONHASHSEED=0']] * 2!r}\n"
        f"PYTHONHASHSEED=1: d y/d x in each build: {[seeds['PYTHONHASHSEED=1']] * 2!r}\n"
        "expected: one value, the same in every build and under every seed; actual: above\n"
    )


def test_a_fresh_interpreter_keeps_the_environment_and_gets_the_seed_and_the_path(monkeypatch, tmp_path):
    monkeypatch.setenv("AUTOGRAD_TEST_MARK", "kept")  # an engine's own setting, say
    monkeypatch.delenv("PYTHONPATH", raising=False)  # the path given is what imports the engine,
    monkeypatch.chdir(tmp_path)  # not the working directory
    program = (
        "import os, tests.engines.sound\n"
        "print(os.environ['PYTHONHASHSEED'], os.environ['AUTOGRAD_TEST_MARK'])"
    )
    out, err = determinism._run_fresh(program, "3").communicate(timeout=60)
    assert (out, err) == ("3 kept\n", "")


def test_the_determinism_outcome_counts_each_build_in_each_interpreter():
    runs = 1 + len(determinism.HASH_SEEDS)  # this process, then one fresh interpreter per seed
    for examples, builds in ((1, 2), (30, 10)):  # at least two builds, at most ten
        told = determinism.probe_determinism(sound.Value, examples=examples)
        assert (told.name, told.status, told.unit) == ("determinism", "passed", "builds")
        assert told.judged == builds * runs
        assert told.reason == (
            f"{builds} builds of an 11-leaf float graph with fan-out, in this process and in fresh "
            "interpreters with PYTHONHASHSEED in 0, 1, 2, 3"
        )


def test_an_interpreter_that_fails_is_named_by_its_seed_with_its_last_words():
    told = determinism.probe_determinism(refuses_hash_seed.Value, examples=2)
    assert told.judged == 2 * 3  # this process, seeds 0 and 1
    assert told.reason == (
        "2 builds of an 11-leaf float graph with fan-out, in this process and in fresh interpreters with "
        "PYTHONHASHSEED in 0, 1, 2, 3; PYTHONHASHSEED=2: refuses_hash_seed: will not run under hash seed 2; "
        "PYTHONHASHSEED=3: no output"
    )


@pytest.mark.slow
def test_an_interpreter_past_its_time_is_named_and_the_next_seeds_are_still_judged(monkeypatch):
    monkeypatch.setattr(determinism, "CHILD_TIMEOUT", 3)
    told = determinism.probe_determinism(hangs_in_fresh_interpreters.Value, examples=2)
    assert told.judged == 2 * 4  # this process, seeds 0, 2 and 3
    assert told.reason.endswith("; PYTHONHASHSEED=1: timed out")


def test_a_run_that_printed_no_result_says_which_line_it_looked_for():
    with pytest.raises(ValueError, match="no line starting with 'determinism-result: ' in the output"):
        determinism._result("the engine's own chatter\n")


class _DriftsOnEachBackward(sound.Value):
    """Every backward() call adds its running count to the leaf gradients: no two builds agree."""

    calls = 0

    def backward(self):
        type(self).calls += 1
        super().backward()
        for node in self._topological_order():
            if not node._prev:
                node.grad += type(self).calls


@pytest.mark.slow  # builds in fresh interpreters, a minute of CPU
def test_a_nondeterministic_summary_names_four_gradients_and_the_actual_all_of_them():
    # five builds in each place, each backward() adding one more to dy/dx: at least five different
    # gradients (1 + 4.5 .. 5 + 4.5 in every fresh interpreter), of which the summary names the first four
    (finding,) = determinism.probe_determinism(_DriftsOnEachBackward, examples=5).findings
    assert finding.kind == "nondeterministic"
    assert finding.actual.count(", build ") >= 5
    assert finding.summary.count(", build ") == 4


def test_the_fan_out_weights_sum_differently_in_another_order():
    w = determinism.FAN_OUT_WEIGHTS
    assert math.fsum(w) == 4.5
    assert {sum(w), sum(reversed(w)), sum(sorted(w))} != {4.5}


class _SeedAddedNothingZeroed(sound.Value):
    """backward() adds 1 to the output's gradient and zeroes nothing: every gradient accumulates."""

    def backward(self):
        self.grad += 1
        for node in reversed(self._topological_order()):
            node._backward()


class _SeedKept(sound.Value):
    """backward() seeds the output with 1 only when it holds no gradient: one left on it is used."""

    def backward(self):
        seed = self.grad or 1
        super().backward()
        if seed != 1:  # as if seeded with it: every gradient of this pass scaled
            for node in self._topological_order():
                node.grad *= seed


@pytest.mark.parametrize(
    ("fixture", "facts"),
    [(sound.Value, "leaf gradients doubled, interior ones unchanged (interior nodes hold the latest pass"
                   " only), the output's unchanged; the output's gradient is assigned 1 (a gradient left on"
                   " it is overwritten)"),
     # y = (a*b)*a at a = 3, b = 2: the first pass gives a 2ab = 12, b a*a = 9, h = a*b a = 3, y 1;
     # the second seeds y with 2, so h gets 3 + 2a = 9, a 12 + 2h + 9b = 42, b 9 + 9a = 36
     (_SeedAddedNothingZeroed, "leaf gradients 12.0 -> 42.0 and 9.0 -> 36.0, interior ones 3.0 -> 9.0,"
                               " the output's doubled; the output's gradient is increased by 1 (a gradient"
                               " left on it flows back too)"),
     (_SeedKept, "leaf gradients doubled, interior ones unchanged (interior nodes hold the latest pass"
                 " only), the output's unchanged; the output's gradient is 5.0 after backward() (5.0 was"
                 " left on it)")],
    ids=["sound", "seed_added", "seed_kept"],
)  # fmt: skip
def test_the_backward_conventions_are_told_in_full(fixture, facts):
    # a second backward() on y = (a*b)*a, then backward() from a gradient of 5.0 left on y
    (told,) = [f.summary for f in run("conventions", fixture).findings if "second backward()" in f.summary]
    assert told == "a second backward() on y = (a*b)*a: " + facts


class _FreesItsGraphAndRefusesReluAtZero(sound.Value):
    """backward() once per output (its graph freed, as torch without retain_graph), relu undefined at 0."""

    def backward(self):
        if getattr(self, "_freed", False):
            raise RuntimeError("backward: the graph was freed by the first call")
        super().backward()
        self._freed = True

    def relu(self):
        if self.data == 0:
            raise ValueError("relu: undefined at 0")
        return super().relu()


class _ReluSlopeOneAtZero(sound.Value):
    def relu(self):
        return self._with_partials(max(self.data, 0 * self.data), (self,), (1 if self.data >= 0 else 0,))


@pytest.mark.slow
def test_the_conventions_outcome_says_what_it_told_and_what_it_could_not():
    told = run("conventions", _ReluSlopeOneAtZero)
    assert (told.name, told.status, told.unit, told.judged) == ("conventions", "passed", "facts", 2)
    assert told.reason == "second backward(), output gradient seeding, relu'(0)"
    (relu,) = [f for f in told.findings if f.op == "relu"]
    assert relu.summary == "relu'(0) is taken as 1"
    assert run_reproducer(relu.reproducer) == "relu'(0) = 1\n"
    neither = run("conventions", _FreesItsGraphAndRefusesReluAtZero)
    assert (neither.findings, neither.judged) == ([], 0)
    assert neither.reason == (
        "second backward(), output gradient seeding, relu'(0); backward conventions not determined: "
        "RuntimeError: backward: the graph was freed by the first call; relu'(0) not determined: "
        "ValueError: relu: undefined at 0"
    )


def test_conventions_are_facts_about_interior_accumulation():
    mine = run("conventions", interior_accumulates.Value)
    base = run("conventions", sound.Value)
    assert mine.status == base.status == "passed"
    assert {f.check for f in mine.findings + base.findings} == {"conventions"}
    assert "interior ones doubled (interior gradients accumulate across calls)" in mine.findings[0].summary
    assert "interior ones unchanged (interior nodes hold the latest pass only)" in base.findings[0].summary
    # neither doubled nor kept, a change is shown as it is: at a = 3, b = 2 the first pass gives
    # dy/da = 2ab = 12, dy/db = a*a = 9, h.grad = a = 3; the second adds to h.grad another 3 (6),
    # to a 1 * h + 6 * b = 18 (30), to b 6 * a = 18 (27)
    assert "leaf gradients 12.0 -> 30.0 and 9.0 -> 27.0" in mine.findings[0].summary


class _SeedIsTheOutputsValue(sound.Value):
    """backward() leaves the output's own value as its gradient (a wrong seed, told as it is)."""

    def backward(self):
        super().backward()
        self.grad = self.data


def test_the_output_gradient_after_backward_is_shown_as_the_engine_left_it():
    # the seeding graph is y = (a*b)*a at a = 3, b = 2: y = 18, its gradient left at 18.0
    (told,) = [f.summary for f in run("conventions", _SeedIsTheOutputsValue).findings if f.op is None]
    assert told.endswith("; the output's gradient is 18.0 after backward() (5.0 was left on it)")


def unsupported_ops(fixture):
    return {f.op for f in run("support", fixture.Value).findings if f.op is not None}


def test_missing_ops_are_reported_and_never_applied():
    assert unsupported_ops(missing_ops) - unsupported_ops(sound) == {
        "neg", "radd", "rsub", "mulc", "rdiv", "exp", "log", "tanh", "relu", "sigmoid",
    }  # fmt: skip
    summaries = " ".join(f.summary for f in run("support", missing_ops.Value).findings)
    assert "x ** 2 is not supported" in summaries


@pytest.mark.parametrize(
    ("fixture", "op", "summary", "printed"),
    [(missing_ops, "exp", "x.exp() is not supported (AttributeError: 'Value' object has no attribute 'exp')",
      "x.exp(): unsupported, AttributeError 'Value' object has no attribute 'exp'"),
     (refuses_int_constants, "mulc",
      "2 * x, -3 * x not supported (TypeError: int constant 2 refused: give a Fraction or a float)",
      "2 * x: unsupported, TypeError int constant 2 refused: give a Fraction or a float"),
     (float_only, "addc",
      "x + Fraction(1, 2) not supported (TypeError: Value: only floats, got Fraction(1, 2))",
      "x + Fraction(1, 2): unsupported, TypeError Value: only floats, got Fraction(1, 2)")],
    ids=["op_missing", "constants_refused", "fraction_constant_refused"],
)  # fmt: skip
def test_an_unsupported_op_says_what_it_raised_and_its_reproducer_shows_it(fixture, op, summary, printed):
    (finding,) = [f for f in run("support", fixture.Value).findings if f.op == op]
    assert (finding.kind, finding.check, finding.summary) == ("unsupported", "support", summary)
    assert run_reproducer(finding.reproducer) == printed + "\n"
    # the same lines on an engine that has the op say so: the reproducer tells when it is fixed
    source = printed.split(":")[0]
    fixed = finding.reproducer.replace(
        f"from tests.engines.{fixture.__name__.rsplit('.', 1)[1]} ", "from tests.engines.sound "
    )
    assert run_reproducer(fixed) == f"{source}: supported\n"


def test_the_support_outcome_counts_every_op_of_the_table_and_both_number_types():
    outcome = run("support", missing_ops.Value)
    ops = [name for name, spec in OPS.items() if not spec.variadic]  # vsum and dot are optional
    assert (outcome.name, outcome.status, outcome.unit) == ("support", "passed", "ops and number types")
    assert outcome.judged == len(ops) + 2
    told = f"{len(ops)} ops of the table (their reflected forms and constants), int and Fraction data"
    assert outcome.reason == told
    assert outcome.findings and all(f.check == "support" for f in outcome.findings)
    by_op = {f.op: f.summary for f in outcome.findings}
    # a constant of the op's own (x ** 2), both operands named (x ** y)
    refused = "TypeError: unsupported operand type(s) for ** or pow():"
    assert by_op["powc"] == f"x ** 2 is not supported ({refused} 'Value' and 'int')"
    assert by_op["vpow"] == f"x ** y is not supported ({refused} 'Value' and 'Value')"


def test_the_number_types_reproducer_shows_each_type_through_v_times_v_plus_v():
    (numbers,) = [f for f in run("support", float_only.Value).findings if f.op is None]
    # v = 3: v*v+v = 12, d/dv = 2v + 1 = 7, as floats; Fraction(1, 3): refused by the constructor
    assert run_reproducer(numbers.reproducer) == (
        "3 expected exact: v*v+v = 12 and d/dv = 7 ; actual: 12.0 7.0\n"
        "Fraction(1, 3) refused: TypeError Value: only floats, got Fraction(1, 3)\n"
    )


class _IntSumsRefused(sound.Value):
    """Takes int data, but refuses to add two ints."""

    def __add__(self, other):
        other = self._lift(other)
        if isinstance(self.data, int) and isinstance(other.data, int):
            raise TypeError(f"add: two ints ({self.data!r}, {other.data!r})")
        return super().__add__(other)


class _TanhNamesItsOperand(sound.Value):
    def tanh(self):
        raise NotImplementedError(f"tanh of {self.data!r}: not implemented")


class _TanhRaisesEveryOtherCall(sound.Value):
    calls = 0

    def tanh(self):
        type(self).calls += 1
        if type(self).calls % 2:
            raise RuntimeError("tanh: warming up")
        return super().tanh()


@pytest.mark.parametrize(
    ("fixture", "op", "told"),
    [(_IntSumsRefused, None, "int data: refused by + - * / or backward()"),
     # the error of the op at 1.5, the operand the reproducer builds too
     (_TanhNamesItsOperand, "tanh",
      "x.tanh() is not supported (NotImplementedError: tanh of 1.5: not implemented)"),
     # refused when probed, computed when tried again: what the engine said, nothing
     (_TanhRaisesEveryOtherCall, "tanh", "x.tanh() is not supported (no error)")],
    ids=["int_sums_refused", "error_names_the_operand", "raised_only_once"],
)  # fmt: skip
def test_what_an_engine_lacks_is_told_as_it_raised_it(fixture, op, told):
    assert [f.summary for f in run("support", fixture).findings if f.op == op] == [told]


@pytest.mark.parametrize(
    ("fixture", "fact"),
    [(float_only, "int data: silently converted to float (3 -> 3.0); Fraction data: refused (TypeError:"
                  " Value: only floats"),
     (floatifies, "Fraction data: silently converted to float (Fraction(1, 3) -> 0.3333333333333333)")],
)  # fmt: skip
def test_number_types_the_engine_lacks_are_facts(fixture, fact):
    outcome = run("support", fixture.Value)
    (numbers,) = [f for f in outcome.findings if f.op is None]
    assert numbers.kind == "unsupported" and fact in numbers.summary
    assert outcome.status == "passed"


def run_reproducer(code):
    env = dict(os.environ, PYTHONPATH=child_path())
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize(
    ("fixture", "probe", "shows"),
    [(accepts_strings, "bad_inputs", "'abc' expected: an error at once; actual: accepted, then TypeError"),
     (recursive, "depth", "actual: RecursionError"),
     (set_parents, "determinism", "PYTHONHASHSEED=1: d y/d x in each build:")],
)  # fmt: skip
def test_reproducers_import_the_engine_under_test_and_show_expected_vs_actual(fixture, probe, shows):
    finding = run(probe, fixture.Value).findings[0]
    assert f"from {fixture.__name__} import Value" in finding.reproducer
    assert shows in run_reproducer(finding.reproducer)


def test_our_engine_refuses_every_bad_input_at_once():
    outcome = run("bad_inputs", autograd)
    assert outcome.findings == [] and outcome.status == "passed"
    assert "'abc'" in outcome.reason and "v * 's'" in outcome.reason


@pytest.mark.slow
def test_probes_reach_a_foreign_engine_through_its_own_names():
    # a Scalar with .value, .gradient and backwards() (the audit's fixture), found by behaviour
    eng = resolve_engine("tests.engines.audit_scalar_backwards")
    (facts,) = run("conventions", eng).findings  # it has no relu: no relu'(0)
    assert "from tests.engines.audit_scalar_backwards import Scalar" in facts.reproducer
    assert "y.backwards()" in facts.reproducer and "a.gradient" in facts.reproducer
    assert "after two backward():" in run_reproducer(facts.reproducer)
    (invalid,) = run("bad_inputs", eng).findings  # it makes float(True) and keeps NaN and the infinities
    kept = "float('nan') (never fails), float('inf') (never fails), float('-inf') (never fails), True"
    assert kept in invalid.summary
    assert "v = Scalar(bad)" in invalid.reproducer and "y.value" in invalid.reproducer
    assert "True expected: an error at once; actual: accepted" in run_reproducer(invalid.reproducer)
    assert run("determinism", eng).findings == []  # its program reads .gradient after backwards()
    # the same names on an engine that keeps ints exact and refuses Fraction: nothing but facts
    assert caused([run(name, "tests.engines.scalar_backwards") for name in PROBES]) == set()


# ---------------------------------------------------------------------- false alarms met on real engines
@pytest.mark.slow
def test_the_audit_never_feeds_an_engine_an_op_it_lacks():
    # pyfit 1.0.2 has no negation and no powers: the stateful check fell back to -x and drew
    # x ** 2, and linearity multiplied Values by Fractions from the left (missing_ops has no
    # reflected ops either); each would be a false crash of the engine (docs/audits/pyfit.md).
    report = audit("tests.engines.missing_ops", examples=10)
    assert report.defects == []
    assert report.checks["stateful"] == "passed"  # on the ops it has
    assert report.checks["linearity"] == "passed"  # Value(a) * f + Value(b) * g: no c * x needed


class BackwardRaises(sound.Value):
    """backward() fails on graphs of more than three nodes (the adapter's discovery uses y = x * 1)."""

    def backward(self):
        if len(self._topological_order()) > 3:
            raise RuntimeError("backward is broken")
        super().backward()


@pytest.mark.slow
def test_a_probe_that_cannot_run_says_why_and_blames_nothing():
    seeds = run("determinism", BackwardRaises)
    assert seeds.status == "not_applicable" and seeds.findings == []
    assert "could not be differentiated (RuntimeError: backward is broken)" in seeds.reason
    assert seeds.reason.count("PYTHONHASHSEED=") == len(determinism.HASH_SEEDS)  # each child failed
    conventions = run("conventions", BackwardRaises)
    assert conventions.status == "passed"
    assert "backward conventions not determined: RuntimeError" in conventions.reason
    assert [f.summary for f in conventions.findings] == ["relu'(0) is taken as 0"]  # x.relu(): 2 nodes


def test_an_oracle_that_cannot_judge_a_point_gives_no_verdict(monkeypatch):
    def cannot_judge(*args, **kwargs):
        raise OracleInconclusive("cannot judge")

    monkeypatch.setattr(probe_edges, "_fd_row", cannot_judge)
    monkeypatch.setattr(definition_differences, "MAX_STEPS", 1)  # nor the definition's differences
    # sympy rejects wrong_rule's exp gradient, neither differences can say: no confirmation
    outcome = run("edge_points", wrong_rule.Value)
    assert ("inconclusive", "exp") in caused([outcome]) and ("wrong_gradient", "exp") not in caused([outcome])
    assert outcome.inconclusive >= 1
    # sympy accepts the sound engine's gradients: no verdict and nothing inconclusive (its range
    # limits are conventions, facts found without finite differences)
    base = run("edge_points", sound.Value)
    assert (base.status, caused([base]), base.inconclusive) == ("passed", set(), 0)


# ---------------------------------------------------------------------- bad inputs: what happens next
class _ComplexFailsInAdd(accepts_strings.Value):
    def __add__(self, other):
        if isinstance(self.data, complex):
            raise TypeError("add: complex data")
        return super().__add__(other)


class _ComplexFailsInBackward(accepts_strings.Value):
    def backward(self):
        if isinstance(self.data, complex):
            raise TypeError("backward: complex data")
        return super().backward()


def test_an_accepted_bad_input_is_followed_to_where_it_fails_or_to_its_numbers():
    (invalid, _) = run("bad_inputs", accepts_strings.Value).findings
    said = dict(part.split(": accepted, ", 1) for part in invalid.actual.split("; "))
    assert said["'abc'"].startswith("fails later, in v * v: TypeError")
    # (1+2j)**2 + (1+2j) = -2+6j, and d/dv (v*v + v) = 2v + 1 = 3+4j; True: 1 + 1 = 2, 2 + 1 = 3
    assert said["complex(1, 2)"] == "never fails: v * v + v = (-2+6j), its gradient (3+4j)"
    assert said["True"] == "never fails: v * v + v = 2, its gradient 3"


class _ProductIsNone(accepts_strings.Value):
    def __mul__(self, other):
        return None  # so v * v + v is None + v


@pytest.mark.parametrize(
    ("engine", "where"),
    [(_ProductIsNone, "v * v + v: TypeError: unsupported operand type(s) for +: 'complex' and 'NoneType'"),
     (_ComplexFailsInAdd, "v * v + v: TypeError: add: complex data"),
     (_ComplexFailsInBackward, "backward(): TypeError: backward: complex data")],
)  # fmt: skip
def test_the_step_an_accepted_bad_input_fails_in_is_named(engine, where):
    (invalid, _) = run("bad_inputs", engine).findings
    assert f"complex(1, 2): accepted, fails later, in {where}" in invalid.actual


def test_a_str_operand_accepted_is_a_finding_with_its_data_and_a_reproducer_that_shows_it():
    # v * 's' with v = 2 is 'ss' in Python: an engine that multiplies its data unchecked accepts it
    (_, mul) = run("bad_inputs", accepts_strings.Value).findings
    assert (mul.kind, mul.check, mul.op) == ("accepts_invalid", "bad_inputs", "mul")
    assert mul.summary == "v * 's' with v = 2 is accepted: data 'ss'"
    assert (mul.expected, mul.actual) == ("TypeError naming the op and the str", "accepted, data 'ss'")
    shown = "expected: TypeError for v * 's'; actual: accepted, data = 'ss'\n"
    assert run_reproducer(mul.reproducer) == shown
    # pasted for an engine that refuses it, it says so
    theirs = f"from {accepts_strings.__name__} import Value"
    ours = mul.reproducer.replace(theirs, "from autograd import Value")
    assert run_reproducer(ours).startswith("refused: TypeError(")


def test_the_bad_inputs_outcome_names_what_it_fed_and_counts_each_input():
    outcome = run("bad_inputs", accepts_strings.Value)
    assert (outcome.name, outcome.unit, outcome.judged) == ("bad_inputs", "inputs", 9)  # 8 data, 1 operand
    fed = "'abc', None, complex(1, 2), float('nan'), float('inf'), float('-inf'), True, [1]"
    assert outcome.reason == f"8 invalid data values ({fed}) and v * 's'"
    (data, _) = outcome.findings
    assert (data.kind, data.check, data.op) == ("accepts_invalid", "bad_inputs", None)
    assert data.expected == "TypeError or ValueError when the Value is made"


class _RefusesIntsAndReadsStrProductsLazily(sound.Value):
    """int data refused (the probe then starts from 2.0); v * 's' is accepted, and its data fails
    only when read, as a lazy engine's would."""

    @staticmethod
    def check(x):
        if isinstance(x, int):
            raise TypeError(f"Value: float data only, got {x!r}")
        return sound.check_number(x)

    def _lift(self, other):  # an int constant is taken as a float
        return other if isinstance(other, sound.Core) else type(self)(float(other))

    def __mul__(self, other):
        if not isinstance(other, str):
            return super().__mul__(other)
        out = type(self)(self.data)
        out.pending = other
        return out

    @property
    def data(self):
        if getattr(self, "pending", None) is not None:
            raise TypeError(f"mul: cannot multiply {self._data!r} by {self.pending!r}")
        return self._data

    @data.setter
    def data(self, value):
        self._data = value


def test_a_str_operand_accepted_with_unreadable_data_is_found_from_a_float_start():
    (mul,) = run("bad_inputs", _RefusesIntsAndReadsStrProductsLazily).findings
    cannot = "a Value whose data cannot be read (TypeError: mul: cannot multiply 2.0 by 's')"
    assert mul.summary == f"v * 's' with v = 2.0 is accepted: data {cannot}"
    assert mul.actual == f"accepted, data {cannot}"
    assert "v = _RefusesIntsAndReadsStrProductsLazily(2.0)" in mul.reproducer
