"""Audit any scalar autograd engine: ``audit(target) -> AuditReport``.

The audit finds the engine's scalar class (see :mod:`autograd.testing.engines`),
probes which ops and number types it has, and then runs independent checks that
collect :class:`~autograd.testing.findings.Finding`\\ s instead of stopping at the
first failure:

* ``exact`` (engines that keep ``Fraction`` data exact) and ``symbolic`` (float
  graphs) run once per op of the table, on random graphs made of that op plus
  ``add`` and ``mul``, so that a defect in one op cannot hide another.  The
  ``symbolic`` search also checks forward values (reported under ``forward``).
* ``linearity``, ``build_order``, ``chain_sweep`` and ``stateful`` are exact
  properties: equality where every number compared is exact, else (float engines,
  or one op's float gradient) the tolerance derived from the graph; ``mlp`` is a
  small network's loss made of the ops the engine has.
* ``second_order`` runs :mod:`autograd.testing.higher`'s check when the engine
  differentiates its own gradients; the probes of :mod:`autograd.testing.probes`
  (depth, determinism, bad inputs, edge points, conventions) run in the order of
  :data:`PROBES`.

Every check counts what it judged (graphs, runs, points) and what its oracles
could not decide (``OracleInconclusive``); a check that judged nothing is
``not_applicable`` (:func:`~autograd.testing.findings.outcome`).  The engine is
called through one boundary (:func:`~autograd.testing.boundary.engine_call`): what the engine raises is a
``crash``; what the harness raises propagates (never read as "no finding").

Soundness first: a float gradient that disagrees with sympy is a
``wrong_gradient`` only when a second, independent method agrees that it is wrong
(:func:`~autograd.testing.verdicts.second_vote`): finite differences of the graph's
forward in plain floats, with no margin beyond their own derived error and the engine's
derived tolerance (:data:`~autograd.testing.verdicts.SECOND_VOTE_FD`), judging the
gradients of the same run sympy judged; otherwise it is ``inconclusive``.  (A rational
graph on an engine that keeps Fractions is compared exactly.)  A forward value is
``wrong_value`` only when it is off both from the 50-digit reference and from a plain
float evaluation of the same program.
An exception the engine raises on a point inside the op's domain is a ``crash``.
Each defect is reported once per (kind, op), with the smallest failing example
found (hypothesis shrinks, deterministically: ``derandomize``, no database, the
given seed; the search of an op goes on after a defect for the op's others), cut
down to the single node that fails on its own when there is one, as a runnable
reproducer that imports the engine under test and prints expected vs actual.
Conventions (what a second ``backward()`` does) are facts, never failures: the
stateful check models the convention it observes.
"""

from __future__ import annotations

import functools
import itertools
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import mpmath  # type: ignore[import-untyped]
from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from hypothesis.errors import Flaky, Unsatisfiable
from hypothesis.stateful import run_state_machine_as_test

from autograd.testing import higher, oracles, probes, verdicts
from autograd.testing import strategies as gs
from autograd.testing.boundary import EngineRaised
from autograd.testing.checks import (
    SEEN,
    BackwardConvention,
    EngineCrash,
    ModelMismatch,
    PropertyViolated,
    backward_convention,
    chain_graph,
    check_build_order,
    check_chain_sweep,
    check_linearity,
    convention_gradients,
    convention_reproducer,
    linear_combination_graphs,
    stateful_machine,
)
from autograd.testing.engines import Engine, EngineNotFound, resolve_engine
from autograd.testing.findings import DEFECT_KINDS, CheckOutcome, Finding, outcome
from autograd.testing.graph import Graph, Node, OracleInconclusive, _mpf
from autograd.testing.identify import extra_capabilities
from autograd.testing.ops import OPS, sym_const
from autograd.testing.report import DEFAULT_EXAMPLES, SCHEMA_VERSION, AuditCase, AuditReport
from autograd.testing.selfcheck import extra_op_outcomes

__all__ = [
    "CHECKS",
    "DEFAULT_EXAMPLES",
    "DEFECT_KINDS",
    "PROBES",
    "SCHEMA_VERSION",
    "AuditCase",
    "AuditReport",
    "CheckOutcome",
    "EngineNotFound",
    "Finding",
    "SearchMode",
    "audit",
    "capabilities",
    "run_check",
    "run_checks",
]

#: Nodes per generated graph in the per-op searches (small graphs shrink fast and read well).
MAX_NODES = 5
#: The checks of the per-op searches (one exact and one float search per op).
PER_OP_CHECKS = ("exact", "symbolic", "forward")


# ---------------------------------------------------------------------- running an engine
def _as_number(stage: str, x: Any) -> Any:
    """The engine's number as a Python one (numpy's float64 is a float), else ``EngineRaised``.

    Only a type with ``__float__`` is a number: ``float("2.5")`` would read a string as one.
    """
    if isinstance(x, int | float | Fraction):
        return x
    try:
        if not hasattr(type(x), "__float__"):
            raise TypeError(type(x).__name__)
        return float(x)
    except (TypeError, ValueError) as exc:
        raise EngineRaised(stage, TypeError(f"the output's data is {x!r}, not a number")) from exc


def _run(eng: Engine, graph: Graph) -> tuple[Any, list[Any]]:
    """The engine's output value and leaf gradients; ``EngineRaised`` says where it raised."""
    values = graph.build(eng)
    out = _as_number("forward", eng.data(values[graph.out]))
    eng.backward(values[graph.out])
    grads = [eng.grad(v) for v in values[: len(graph.leaves)]]
    return out, grads


def _single_nodes(graph: Graph) -> list[tuple[str, Graph]]:
    """Each node of ``graph`` on its own: a one-node graph on the operand values it saw."""
    values = graph.evaluate()
    out = []
    for node in graph.nodes:
        slots = list(dict.fromkeys(node.args))
        leaves = [values[s] for s in slots]
        args = tuple(slots.index(a) for a in node.args)
        out.append((node.op, Graph(tuple(leaves), (Node(node.op, args, node.const),))))
    return out


def _where(graph: Graph) -> str:
    """``expression at x0 = ..., x1 = ...``, or a short description of a big graph."""
    expr, point = graph.expression(), _point(graph)
    if len(expr) + len(point) > 160:
        return f"a graph of {len(graph.nodes)} nodes on {len(graph.leaves)} leaves (see the reproducer)"
    return f"{expr} at {point}"


def _point(graph: Graph) -> str:
    """The leaves the expression uses (a leaf no path joins to the output is left out)."""
    used = graph.reaching()
    return ", ".join(f"x{i} = {_num(x)}" for i, x in enumerate(graph.leaves) if i in used)


def _numbers_source(xs: Iterable[Any]) -> str:
    return "[" + ", ".join(_num(x) for x in xs) + "]"


def _num(x: Any) -> str:
    try:
        if isinstance(x, Fraction):
            return repr(x) if x.denominator != 1 else str(x.numerator)
        if isinstance(x, int):
            return repr(x)
    except ValueError:  # more digits than str() converts (sys.get_int_max_str_digits): 17 of them
        return str(mpmath.nstr(mpmath.mpf(x.numerator) / x.denominator, 17))
    try:  # a float subclass (numpy's float64) too: a reproducer must run without the engine's types
        return repr(float(x))
    except (TypeError, ValueError):
        return repr(x)


def _value_snippet(eng: Engine, graph: Graph, expected: str) -> str:
    """Like ``graph.snippet(eng, expected)`` but printing the output value instead of gradients."""
    lines = graph.snippet(eng, expected).splitlines()[:-2]
    lines.append(f"print('actual:  ', {graph.names()[graph.out]}.{eng.data_attr})")
    return "\n".join(lines)


# ---------------------------------------------------------------------- trials
class _Trials:
    """What one search found for the checks it serves, and how many examples each judged."""

    def __init__(self) -> None:
        self.sized: list[tuple[int, Finding]] = []  # deduplicated, the smallest example kept
        self.judged: Counter[str] = Counter()
        self.inconclusive: Counter[str] = Counter()

    def record(self, checks: Sequence[str], found: list[Finding], size: int) -> None:
        """One example's findings; each check in ``checks`` judged it or was left inconclusive."""
        self.sized = verdicts.smallest([*self.sized, *((len(f.reproducer) or size, f) for f in found)])
        for check in checks:
            judged = verdicts.tally(f for f in found if f.check == check) == "judged"
            (self.judged if judged else self.inconclusive)[check] += 1

    def outcome(self, name: str, unit: str, reason: str) -> CheckOutcome:
        found = [f for _, f in self.sized if f.check == name]
        return outcome(
            name, found, judged=self.judged[name], inconclusive=self.inconclusive[name], unit=unit,
            reason=reason if self.judged[name] else f"nothing judged ({reason})",
        )  # fmt: skip


def _crash(eng: Engine, check: str, graph: Graph, raised: EngineRaised, op: str | None) -> Finding:
    """A crash, cut down to the single node that raises on its own when there is one (the cut
    needs the operands' values: when the float program cannot run either, the graph stays whole)."""
    try:
        singles = _single_nodes(graph) if len(graph.nodes) > 1 else []
    except (OverflowError, ValueError, ZeroDivisionError):  # Python's float arithmetic raised
        singles = []
    for node_op, single in singles:
        try:
            _run(eng, single)
        except EngineRaised as again:
            graph, raised, op = single, again, node_op
            break
    if op is None and len(graph.nodes) == 1:
        op = graph.nodes[0].op
    expected = _sympy_gradient(graph)
    return Finding(
        "crash",
        check,
        f"{raised.stage} of {_where(graph)} raises {raised}",
        op,
        graph.snippet(eng, expected or repr("no exception")),
        f"{expected} (no exception)" if expected else "no exception",
        str(raised),
    )


def _sympy_gradient(graph: Graph) -> str:
    """sympy's gradient at the graph's point as Python source (exact on rationals), or ''."""
    try:
        if graph.rational:
            symbols, _ = graph.sympy()
            point = {s: sym_const(x) for s, x in zip(symbols, graph.leaves, strict=True)}
            exact = [Fraction(str(d.xreplace(point))) for d in graph.sympy_gradient()]
            return _numbers_source(exact)
        _, grads = graph.mp_value_and_gradient()
        return _numbers_source(float(g) for g in grads)
    except (OracleInconclusive, ValueError, ZeroDivisionError):  # a pole: say only that it must not raise
        return ""


def _exact_numbers(xs: Iterable[Any]) -> bool:
    return all(type(x) in (int, Fraction) for x in xs)


def _gradient_findings(
    eng: Engine, check: str, graph: Graph, op: str | None, grads: Sequence[Any] | None = None
) -> list[Finding]:
    """Symbolic oracle on the gradients ``grads`` of one run of a float graph (the engine runs it
    when they are not given), confirmed by finite differences on the same numbers."""
    if grads is None:
        _, grads = _run(eng, graph)
    try:
        oracles.assert_grads_symbolic(graph, eng, grads=grads)
        return []
    except oracles.GradientMismatch as mismatch:
        report = mismatch.report
    except OracleInconclusive as exc:
        return [Finding("inconclusive", check, f"{_where(graph)}: {exc.reason}", op)]
    expected = _numbers_source(r.oracle for r in report.rows)
    actual = _numbers_source(r.engine for r in report.rows)
    wrong = ", ".join(f"d/d{r.name}" for r in report.rows if not r.ok)
    vote = verdicts.second_vote(
        verdicts.Vote("sympy", True, expected), lambda: oracles.fd_vote(graph, eng, grads)
    )
    kind = "wrong_gradient" if vote.kind == "defect" else "inconclusive"
    return [
        Finding(
            kind, check, f"{wrong} of {_where(graph)}: engine {actual}; {vote.text}", op,
            graph.snippet(eng, expected), expected, actual, point=graph.leaves,
        )
    ]  # fmt: skip


def _forward_finding(eng: Engine, graph: Graph, got: Any, op: str | None) -> list[Finding]:
    """Float graph: the output value vs the 50-digit reference, confirmed by a float evaluation."""
    try:
        want, _ = graph.mp_value_and_gradient()
        _, tol = oracles.symbolic_tolerances(graph)
    except OracleInconclusive as exc:
        return [Finding("inconclusive", "forward", f"{_where(graph)}: {exc.reason}", op)]
    # compared as mpmath numbers: any int, float or Fraction the engine gives, a huge one too
    off_reference = not abs(want - _mpf(got)) <= tol
    try:
        plain = graph.evaluate()[graph.out]  # the same program in Python floats (the table's functions)
    except (OverflowError, ValueError, ZeroDivisionError):
        plain = None
    expected = _num(want)

    def float_evaluation() -> verdicts.Vote:
        if plain is None:
            return verdicts.Vote("a float evaluation", None, "the float program cannot run")
        return verdicts.Vote("a float evaluation", not abs(_mpf(plain) - _mpf(got)) <= tol, repr(plain))

    vote = verdicts.second_vote(verdicts.Vote("the reference", off_reference, expected), float_evaluation)
    if vote.kind is None:
        return []
    if vote.kind == "inconclusive":
        return [Finding("inconclusive", "forward", f"{_where(graph)}: engine {got!r}; {vote.text}", op)]
    return [
        Finding(
            "wrong_value", "forward",
            f"{_where(graph)}: engine {got!r}, expected {expected} (tolerance {tol:.3g}; "
            f"a float evaluation gives {plain!r})",
            op, _value_snippet(eng, graph, expected), expected, repr(got), point=graph.leaves,
        )
    ]  # fmt: skip


def _float_findings(eng: Engine, check: str, graph: Graph, op: str | None, forward: bool) -> list[Finding]:
    """Run a float graph; its value (with ``forward``) and gradient judged, or the crash."""
    try:
        got, grads = _run(eng, graph)
    except EngineRaised as raised:
        return [_crash(eng, check, graph, raised, op)]
    findings = _forward_finding(eng, graph, got, op) if forward else []
    return findings + _gradient_findings(eng, check, graph, op, grads)


def _float_trial(
    eng: Engine, check: str, op: str | None, forward: bool = False
) -> Callable[[Graph], list[Finding]]:
    def single(node_op: str, graph: Graph) -> list[Finding]:
        return _float_findings(eng, check, graph, node_op, forward)

    def trial(graph: Graph) -> list[Finding]:
        return [_blame(f, graph, single) for f in _float_findings(eng, check, graph, op, forward)]

    return trial


def _blame(finding: Finding, graph: Graph, single_trial: Callable[[str, Graph], list[Finding]]) -> Finding:
    """A confirmed wrong gradient or value, moved onto the single node that is wrong on its own.

    The nodes of the op under test are tried first; ``single_trial(op, one_node_graph)``
    checks one node on the operand values it saw in ``graph``.
    """
    if finding.kind not in ("wrong_gradient", "wrong_value"):
        return finding
    if len(graph.nodes) == 1:
        return finding if finding.op else replace(finding, op=graph.nodes[0].op)
    singles = sorted(_single_nodes(graph), key=lambda s: s[0] != finding.op)
    for node_op, single in singles:
        wrong = [f for f in single_trial(node_op, single) if f.kind == finding.kind]
        if wrong:
            return wrong[0]
    return finding


def _exact_trial(eng: Engine, op: str | None) -> Callable[[Graph], list[Finding]]:
    """Rational graph, exact engine: value and gradient must equal sympy's exactly.  A value or
    gradient that is not an exact number cannot be judged by equality: inconclusive."""

    def trial(graph: Graph) -> list[Finding]:
        try:
            got, grads = _run(eng, graph)
        except EngineRaised as raised:
            return [_crash(eng, "exact", graph, raised, op)]
        findings = []
        values = graph.evaluate()  # exact: rational ops on Fractions
        if _exact_numbers([got]) and got != values[graph.out]:
            expected = _num(values[graph.out])
            findings.append(
                Finding(
                    "wrong_value", "exact", f"{_where(graph)}: engine {got!r}, exactly {expected}",
                    op, _value_snippet(eng, graph, expected), expected, repr(got), point=graph.leaves,
                )
            )  # fmt: skip
        if not _exact_numbers([got, *grads]):
            findings.append(
                Finding(
                    "inconclusive",
                    "exact",
                    f"{graph.expression()}: the engine's numbers are not all exact",
                    op,
                )
            )
            return findings
        try:
            oracles.assert_grads_exact(graph, eng, grads=grads)
        except oracles.GradientMismatch as mismatch:
            rows = mismatch.report.rows
            expected = _numbers_source(r.oracle for r in rows)
            actual = _numbers_source(grads)
            wrong = ", ".join(f"d/d{r.name}" for r in rows if not r.ok)
            wrong_gradient = Finding(
                "wrong_gradient", "exact",
                f"{wrong} of {_where(graph)}: engine {actual}, exactly {expected}",
                op, graph.snippet(eng, expected), expected, actual, point=graph.leaves,
            )  # fmt: skip
            findings.append(_blame(wrong_gradient, graph, lambda o, single: _exact_trial(eng, o)(single)))
        except OracleInconclusive as exc:
            findings.append(Finding("inconclusive", "exact", f"{_where(graph)}: {exc.reason}", op))
        return findings

    return trial


def _size(example: Any) -> int:
    if isinstance(example, Graph):
        return len(example.code())
    if isinstance(example, tuple):
        return sum(_size(e) for e in example)
    return len(repr(example))


@dataclass(frozen=True)
class SearchMode:
    """How the searches of :func:`run_checks` go on after a defect.

    ``shrink``: minimise each defect's example (hypothesis's shrink phase; the audit's way);
    without it the reproducer is the first failing example, cut down to one node where one
    fails on its own.  ``first_defect``: a check stops searching at its first defect (a
    verdict per check, as :func:`~autograd.testing.verify.verify_engine` needs, rather than
    every defect of every op).
    """

    shrink: bool = True
    first_defect: bool = False


_MODE: ContextVar[SearchMode] = ContextVar("audit_search_mode", default=SearchMode())  # noqa: B039 (frozen)


def _settings(examples: int, **extra: Any) -> settings:
    """The one hypothesis configuration of the audit: deterministic, quiet, no database (and no
    shrinking when the :class:`SearchMode` says so)."""
    if not _MODE.get().shrink:
        extra["phases"] = (Phase.explicit, Phase.generate)
    return settings(
        max_examples=examples, derandomize=True, database=None, deadline=None, verbosity=Verbosity.quiet,
        suppress_health_check=list(HealthCheck), report_multiple_bugs=False, **extra,
    )  # fmt: skip


def _search(
    trials: _Trials,
    checks: Sequence[str],
    strategy: st.SearchStrategy[Any],
    trial: Callable[[Any], list[Finding]],
    examples: int,
    seed: int,
    focus: str | None = None,
) -> None:
    """Run ``trial`` on ``examples`` examples for ``checks``; a defect is shrunk; every finding
    and every example's verdict lands in ``trials``.

    With ``focus`` (the op under test) only a defect of that op (or of no single op)
    stops the search to shrink it: one blamed on another op (which has its own
    search) is recorded and the search goes on, so it cannot hide this op's defects.
    A defect already recorded stops it no more: the search then goes on (new examples,
    the rest of the budget) for the other defects of the same op, so that a wrong value
    found first cannot hide a wrong gradient (``1 - x`` computed as ``x - 1``: its value is
    found on the first graph, the gradient of ``x * (1 - x)`` only on a later one).
    Hypothesis's own verdicts on the engine (a defect that does not replay, a filter
    that rejects everything) leave what was recorded as it is; any other exception is
    ours and propagates.
    """

    def one_round(budget: int, round_seed: int, known: set[tuple[Any, ...]]) -> int | None:
        """A search that stops at a defect not in ``known``: how many examples it drew up to
        that one, or None when it did not stop."""
        drawn = [0, 0]  # examples tried (shrinking included); how many of them up to the first stop

        @_settings(budget, phases=(Phase.explicit, Phase.generate, Phase.shrink))
        @hypothesis_seed(round_seed)
        @given(strategy)
        def run(example: Any) -> None:
            found = trial(example)
            trials.record(checks, found, _size(example))
            drawn[0] += 1
            if any(
                f.kind in DEFECT_KINDS
                and (focus is None or f.op in (focus, None))
                and verdicts.identity(f) not in known
                for f in found
            ):
                drawn[1] = drawn[1] or drawn[0]
                raise _DefectFound

        try:
            run()
        except _DefectFound:  # shrunk: the trials kept the smallest example
            return drawn[1]
        except Flaky:  # the engine answered differently on replay: recorded as it happened
            pass
        except Unsatisfiable:  # nothing could be drawn: the counts say nothing was judged
            pass
        return None

    budget = examples
    for round_ in itertools.count():
        known = {verdicts.identity(f) for _, f in trials.sized if f.kind in DEFECT_KINDS}
        failed = {f.check for _, f in trials.sized if f.kind in DEFECT_KINDS}
        if _MODE.get().first_defect and failed.issuperset(checks):
            return  # each check this search serves has its defect
        drawn = one_round(budget, seed + round_, known)  # another round draws other examples
        if drawn is None:  # the budget ran out with nothing new, or hypothesis gave its own verdict
            return
        budget -= drawn
        if budget <= 0:
            return


class _DefectFound(Exception):
    pass


def _op_graphs(eng: Engine, op: str, exact: bool) -> st.SearchStrategy[Graph] | None:
    """Graphs of ``op`` plus ``add`` and ``mul`` (those the engine has) in which ``op`` occurs."""
    ops = [o for o in dict.fromkeys((op, "add", "mul")) if eng.supports(o)]
    try:
        strategy = gs.graphs(eng, exact=exact, ops=ops, max_nodes=MAX_NODES)
    except ValueError:  # no usable constant for this op in this mode
        return None
    return strategy.filter(lambda g: any(n.op == op for n in g.nodes))


# ---------------------------------------------------------------------- the checks
def _check_per_op(
    eng: Engine, ops: list[str], examples: int, seed: int, checks: Sequence[str] = PER_OP_CHECKS
) -> list[CheckOutcome]:
    """The per-op searches of ``checks`` (of :data:`PER_OP_CHECKS`; ``forward`` comes from the
    float search of ``symbolic``): the outcomes of all three, those not run judging nothing."""
    symbolic, exact = _Trials(), _Trials()
    exact_ops = [op for op in ops if eng.exact and _rational_op(eng, op)]
    for op in ops:
        if op in exact_ops and "exact" in checks:
            strategy = _op_graphs(eng, op, exact=True)
            if strategy is not None:
                _search(exact, ("exact",), strategy, _exact_trial(eng, op), examples, seed, op)
        strategy = _op_graphs(eng, op, exact=False)
        float_checks = tuple(c for c in ("symbolic", "forward") if c in checks)
        if strategy is not None and float_checks:
            trial = _float_trial(eng, "symbolic", op, forward=True)
            _search(symbolic, float_checks, strategy, trial, examples, seed, op)
    ran = f"{examples} examples for each of {len(ops)} ops"
    outcomes = [symbolic.outcome("symbolic", "graphs", ran), symbolic.outcome("forward", "graphs", ran)]
    if eng.exact:
        reason = f"{examples} examples for each of {len(exact_ops)} rational ops"
        outcomes.insert(0, exact.outcome("exact", "graphs", reason))
    else:
        outcomes.insert(0, _not_applicable("exact", eng))
    return outcomes


def _rational_op(eng: Engine, op: str) -> bool:
    spec = OPS[op]
    if spec.consts:
        return any(spec.rational(c) for c in spec.usable_consts(eng))
    return bool(spec.rational(None))


def _not_applicable(name: str, eng: Engine) -> CheckOutcome:
    how = eng.number_types["fraction"]
    why = {"refused": "refuses Fraction data", "float": "turns Fraction data into floats"}.get(how, how)
    reason = f"needs exact arithmetic; the engine {why} (checked on floats)"
    return outcome(name, [], judged=0, unit="graphs", reason=reason)


def _floated(x: Any) -> Any:
    """An example of the exact properties on floats: every Fraction leaf or coefficient a float
    (nodes keep their constants: the engine took them when its ops were probed)."""
    if isinstance(x, Graph):
        return Graph(tuple(float(v) for v in x.leaves), x.nodes, x.output)
    if isinstance(x, Fraction):
        return float(x)
    if isinstance(x, tuple):
        return tuple(_floated(e) for e in x)
    return x


def _property_check(
    name: str, eng: Engine, strategy: Callable[[], st.SearchStrategy[Any]], prop: Callable[[Any, Any], None],
    graphs_of: Callable[[Any], list[Graph]], examples: int, seed: int,
) -> CheckOutcome:  # fmt: skip
    """A property of the old suite (linearity, build order, chain sweep) as a finding search:
    on Fractions for an engine that keeps them exact, else on floats (the property then
    judges with derived tolerances)."""
    try:
        strat = strategy()
    except ValueError as exc:  # no graphs of the ops this engine has
        return outcome(name, [], judged=0, unit="examples", reason=str(exc))
    if not eng.exact:
        strat = strat.map(_floated)
    single = _exact_trial(eng, None) if eng.exact else _float_trial(eng, name, None)

    def trial(example: Any) -> list[Finding]:
        graphs = graphs_of(example)
        for g in graphs:
            try:
                _run(eng, g)
            except EngineRaised as raised:
                return [_crash(eng, name, g, raised, None)]
        try:
            prop(eng, example)
        except OracleInconclusive as exc:  # no tolerance could be derived for these floats
            return [Finding("inconclusive", name, exc.reason)]
        except PropertyViolated as exc:
            for g in graphs:  # a wrong rule behind it? then that is the finding, with its op
                blamed = [f for f in single(g) if f.kind in DEFECT_KINDS]
                if blamed:
                    return [replace(f, check=name) for f in blamed]
            text = str(exc)
            how = "exact arithmetic" if eng.exact else "beyond the derived float tolerance"
            return [Finding("wrong_gradient", name, f"{text.splitlines()[0]} ({how})", None, text)]
        return []

    trials = _Trials()
    _search(trials, (name,), strat, trial, examples, seed)
    how = "exact arithmetic" if eng.exact else "floats, derived tolerances"
    return trials.outcome(name, "examples", f"{examples} examples, {how}")


def _chain(example: tuple[Any, Any, int]) -> list[Graph]:
    """The chain of check_chain_sweep as a graph."""
    return [chain_graph(*example)]


def _check_mlp(eng: Engine, examples: int, seed: int) -> CheckOutcome:
    trials = _Trials()
    nonlins = [n for n in ("tanh", "relu") if eng.supports(n)]
    _search(trials, ("mlp",), gs.mlp_graphs(eng), _float_trial(eng, "mlp", None), max(1, examples // 4), seed)
    return trials.outcome(
        "mlp", "networks", f"hidden layers: {', '.join(nonlins) or 'linear (no tanh or relu)'}"
    )


def _check_stateful(
    eng: Engine, examples: int, seed: int, declared: BackwardConvention | None = None
) -> tuple[CheckOutcome, BackwardConvention | None]:
    """The state machine of :func:`~autograd.testing.checks.stateful_machine` under the convention
    observed (on Fractions for an exact engine, else on floats with derived tolerances).

    A ``declared`` convention the engine does not follow is a ``wrong_gradient`` (its gradients
    after a second ``backward()`` are not the declared ones); the machine then models the one
    observed, so that it still judges everything beyond the convention (the declared one when
    the observed matches none)."""
    name = "stateful"
    try:
        observed = backward_convention(eng, exact=eng.exact)
    except EngineRaised as raised:
        reproducer = "" if declared is None else convention_reproducer(eng, declared, exact=eng.exact)
        summary = f"x * x * c, backward() twice: {raised}"
        crash = Finding("crash", name, summary, None, reproducer, "no exception", str(raised))
        return outcome(name, [crash], judged=1, unit="runs", reason="the convention probe raised"), None
    findings: list[Finding] = []
    if declared is not None and observed != declared:
        findings.append(_convention_finding(eng, declared, observed))
    convention = observed or declared
    if convention is None:
        return outcome(
            name, [Finding("inconclusive", name, "two backward() calls on x*x*c match no known convention")],
            judged=0, inconclusive=1, unit="runs",
            reason="the engine's backward() convention matches none the model knows",
        ), None  # fmt: skip
    machine = stateful_machine(eng, convention, exact=eng.exact)
    # the seed chooses the runs, as it does every search's; as many runs as examples: a defect
    # that needs steps in order (a pass, a zeroed gradient, another pass reaching it) is met in
    # few runs (tests/engines/planted_stateful: found for each of the seeds 0-49 with 20 runs,
    # missed for 1 with 10; the machine draws that sequence on purpose)
    try:
        run_state_machine_as_test(
            hypothesis_seed(seed)(machine), settings=_settings(max(1, examples), stateful_step_count=15)
        )
    except (EngineCrash, ModelMismatch, Flaky) as raised:  # Flaky: a failure that did not replay
        findings.append(_stateful_finding(_first_failure(raised)))
    how = "exact" if eng.exact else "floats: leaf gradients within derived tolerances"
    reason = f"{how}; backward() convention: " + "; ".join(convention.describe())
    reason += "".join(f"; not judged: {what}" for what in machine.not_judged)  # type: ignore[attr-defined]
    ran: int = machine.runs  # type: ignore[attr-defined]
    unjudged: int = machine.unjudged  # type: ignore[attr-defined]
    return outcome(
        name, findings, judged=ran - unjudged, inconclusive=unjudged, unit="runs", reason=reason
    ), observed


def _convention_finding(
    eng: Engine, declared: BackwardConvention, observed: BackwardConvention | None
) -> Finding:
    """The engine does not follow the ``declared`` backward() convention: what differs."""
    differs = [d for d in declared.describe() if observed is None or d not in observed.describe()]
    seen = "matches no known convention" if observed is None else "; ".join(observed.describe())
    summary = f"backward() does not follow the declared convention ({'; '.join(differs)}): observed {seen}"
    script = convention_reproducer(eng, declared, exact=eng.exact)
    actual = "?" if observed is None else repr(convention_gradients(observed, exact=eng.exact))
    return Finding("wrong_gradient", "stateful", summary, None, script, _expected_actual(script)[0], actual)


def _stateful_finding(exc: BaseException) -> Finding:
    if isinstance(exc, Flaky):  # the engine answered differently when hypothesis replayed the steps
        return Finding("inconclusive", "stateful", f"a failure that did not replay: {exc}")
    if isinstance(exc, EngineCrash):
        return Finding("crash", "stateful", f"raises {exc}", None, exc.reproducer, "no exception", str(exc))
    if isinstance(exc, ModelMismatch):
        summary, _, script = str(exc).partition("\n")
        return Finding(
            "wrong_gradient", "stateful", f"{summary} (the convention as observed)", None, script,
            *_expected_actual(script),
        )  # fmt: skip
    raise exc  # hypothesis's or our own trouble: never the engine's defect


def _hessian_fd_vote(eng: Engine, graph: Graph, got: dict[tuple[int, ...], Any]) -> verdicts.Vote:
    """Central differences of the reference gradient on the Hessian ``got`` of one engine run."""
    method = "finite differences of the reference gradient"
    try:
        higher.assert_hessian_fd(graph, eng, derivatives=got)
    except oracles.GradientMismatch:
        return verdicts.Vote(method, True)
    except OracleInconclusive as exc:
        return verdicts.Vote(method, None, exc.reason)
    return verdicts.Vote(method, False, "agree with the engine")


def _check_second_order(
    eng: Engine, examples: int, seed: int, ops: Sequence[str] | None = None
) -> CheckOutcome:
    """:func:`autograd.testing.higher.check_second_order` on random graphs, when the engine
    differentiates its own gradients (capability ``higher_order``).

    A Hessian off from sympy's is a ``wrong_gradient`` when exact (a rational graph on an
    exact engine) or confirmed by ``assert_hessian_fd`` on the same Hessian (differences of the
    reference gradient); otherwise ``inconclusive``.  An
    exception of ``engine_derivatives`` (the engine's own passes) is a ``crash``.  ``ops``
    limits the graphs to these ops (default: every op the engine has).
    """
    name = "second_order"
    if not eng.higher_order:
        return outcome(
            name, [], judged=0, unit="graphs", reason="backward(create_graph=True) is not supported"
        )
    trials = _Trials()

    def trial(graph: Graph) -> list[Finding]:
        try:
            got = higher.engine_derivatives(graph, eng, 2)
        except EngineRaised as raised:
            summary = f"second derivatives of {_where(graph)} raise {raised}"
            return [Finding("crash", name, summary, None, graph.snippet(eng), "no exception", str(raised))]
        try:
            higher.check_second_order(eng, graph, derivatives=got)
            return []
        except oracles.GradientMismatch as mismatch:
            text, rows = str(mismatch), mismatch.report.rows
        except OracleInconclusive as exc:
            return [Finding("inconclusive", name, f"{_where(graph)}: {exc.reason}")]
        expected, actual = _numbers_source(r.oracle for r in rows), _numbers_source(r.engine for r in rows)
        if graph.rational and eng.exact:  # an exact comparison needs no second vote
            summary = f"second derivatives of {_where(graph)} differ from sympy's exactly (rationals)"
            return [
                Finding("wrong_gradient", name, summary, None, text, expected, actual, point=graph.leaves)
            ]
        vote = verdicts.second_vote(verdicts.Vote("sympy", True), lambda: _hessian_fd_vote(eng, graph, got))
        kind = "wrong_gradient" if vote.kind == "defect" else "inconclusive"
        summary = f"second derivatives of {_where(graph)}: {vote.text}"
        return [Finding(kind, name, summary, None, text, expected, actual, point=graph.leaves)]

    per = max(1, examples // 2)
    for exact in (True, False) if eng.exact else (False,):
        try:
            strategy = gs.graphs(eng, exact=exact, ops=ops, max_nodes=MAX_NODES)
        except ValueError:  # no graphs of this arithmetic from the ops this engine has
            continue
        _search(trials, (name,), strategy, trial, per, seed)
    return trials.outcome(name, "graphs", f"{per} graphs per arithmetic, Hessians vs sympy")


#: The probes an audit runs, in this order (name, ``probe(engine, *, examples, seed) -> CheckOutcome``):
#: the registry :data:`autograd.testing.probes.PROBES` (a list here, so a test can run others).
PROBES: list[tuple[str, Callable[..., CheckOutcome]]] = list(probes.PROBES.items())


def _run_probe(
    name: str, probe: Callable[..., CheckOutcome], eng: Engine, examples: int, seed: int
) -> CheckOutcome:
    """One probe.  What the engine raises where the probe did not expect it leaves the probe not
    judged (a fact of the engine: the audit goes on, and says so); a probe's own failure propagates."""
    try:
        return probe(eng, examples=examples, seed=seed)
    except EngineRaised as raised:
        summary = f"{name} not judged: the engine raised {raised.line()} ({raised.stage})"
        found = [Finding("inconclusive", name, summary, actual=raised.line())]
        return outcome(name, found, judged=0, unit="runs", inconclusive=1, reason="cut short by the engine")


def _run_probes(eng: Engine, examples: int, seed: int) -> list[CheckOutcome]:
    """Every probe of :data:`PROBES`, each on its own (:func:`_run_probe`)."""
    return [_run_probe(name, probe, eng, examples, seed) for name, probe in PROBES]


# ---------------------------------------------------------------------- audit
#: How each op looks in Python, for the report of the ops an engine lacks.
_EXAMPLES = {
    **{
        n: OPS[n].source(["x", "y"][: OPS[n].arity], (OPS[n].consts or (None,))[0])
        for n in OPS
        if OPS[n].arity
    },
    "vsum": "vsum([x, y])",
    "dot": "dot([w], [x], b)",
}


def capabilities(eng: Engine) -> dict[str, Any]:
    ops = [op for op in OPS if eng.supports(op)]
    types = eng.number_types
    return {
        "ops": ops,
        "missing_ops": [op for op in OPS if op not in ops],
        "int": types["int"],
        "fraction": types["fraction"],
        "exact": eng.exact,
        "fused": [op for op in ("vsum", "dot") if op in ops],
        "higher_order": eng.higher_order,
        "precision": eng.precision,
        "gradient_api": eng.gradient_api,
        "gradient_convention": eng.gradient_convention,
        "adapter": eng.adapter or None,
        **extra_capabilities(eng),  # aliases ({"ln": "log"}) and extra_ops (form -> identified as)
    }


#: The exact properties: name -> (strategy of examples, property, the graphs an example runs).
_PROPERTIES: dict[
    str, tuple[Callable[[Engine], Any], Callable[[Any, Any], None], Callable[[Any], list[Graph]]]
] = {
    "linearity": (lambda eng: gs.graph_pairs(eng), check_linearity, linear_combination_graphs),
    "build_order": (lambda eng: gs.build_orders(eng), check_build_order, lambda ex: [ex[0]]),
    "chain_sweep": (lambda eng: gs.chain_sweeps(), check_chain_sweep, _chain),
}
#: The checks of this module, in report order (the probes of :data:`PROBES` follow them).
CHECKS = ("ops", "exact", "symbolic", "forward", *_PROPERTIES, "mlp", "stateful", "second_order")
#: The checks of the ops an engine has beyond the table (:mod:`autograd.testing.selfcheck`).
EXTRA_CHECKS = ("extra_ops", "self_consistency")


def _check_ops(eng: Engine, caps: dict[str, Any]) -> CheckOutcome:
    """The ops of the table and the number types the engine lacks (``unsupported`` facts)."""
    unsupported = [
        Finding("unsupported", "ops", f"{_EXAMPLES[op]} is not supported", op) for op in caps["missing_ops"]
    ]
    for kind, example in (
        ("int", f"{eng.class_name}(3) / {eng.class_name}(2)"),
        ("fraction", f"{eng.class_name}(Fraction(1, 3))"),
    ):
        if caps[kind] == "refused":
            unsupported.append(Finding("unsupported", "ops", f"{kind} data is refused ({example})"))
        elif caps[kind] == "float":
            unsupported.append(
                Finding("unsupported", "ops", f"{kind} data does not stay exact through + - * / ({example})")
            )
    return outcome(
        "ops",
        unsupported,
        judged=len(OPS) + 2,
        unit="ops and number types",
        reason="every op of the table probed",
    )


def run_check(
    name: str,
    engine: Any,
    *,
    examples: int = DEFAULT_EXAMPLES,
    seed: int = 0,
    ops: Sequence[str] | None = None,
    convention: BackwardConvention | None = None,
) -> CheckOutcome:
    """One check (of :data:`CHECKS`, :data:`EXTRA_CHECKS`) or probe (of :data:`PROBES`) on its
    own, by name; ``ops`` limits the per-op searches (``exact``, ``symbolic``, ``forward``) and
    ``second_order``'s graphs to these ops; ``convention`` declares the backward() convention
    ``stateful`` holds the engine to (default: none, the one observed is a fact)."""
    return run_checks([name], engine, examples=examples, seed=seed, ops=ops, convention=convention)[name]


def run_checks(
    names: Sequence[str],
    engine: Any,
    *,
    examples: int = DEFAULT_EXAMPLES,
    seed: int = 0,
    ops: Sequence[str] | None = None,
    convention: BackwardConvention | None = None,
    mode: SearchMode = SearchMode(),
) -> dict[str, CheckOutcome]:
    """:func:`run_check` for each of ``names``, ``{name: outcome}`` in their order, each check run
    once: ``exact``, ``symbolic`` and ``forward`` share the per-op searches they need, the extra-op
    checks theirs.  ``mode``: how a search goes on after a defect (:class:`SearchMode`)."""
    token = _MODE.set(mode)
    try:
        return _run_checks(names, engine, examples, seed, ops, convention)
    finally:
        _MODE.reset(token)


def _run_checks(
    names: Sequence[str], engine: Any, examples: int, seed: int, ops: Sequence[str] | None,
    convention: BackwardConvention | None,
) -> dict[str, CheckOutcome]:  # fmt: skip
    eng = resolve_engine(engine)
    known = [*CHECKS, *EXTRA_CHECKS, *dict(PROBES)]
    for name in names:
        if name not in known:
            raise ValueError(f"run_check: unknown check {name!r}; known: {known}")
    outcomes: dict[str, CheckOutcome] = {}
    per_op = [name for name in PER_OP_CHECKS if name in names]
    if per_op:
        chosen = [op for op in (ops or OPS) if eng.supports(op)]
        outcomes.update((o.name, o) for o in _check_per_op(eng, chosen, examples, seed, per_op))
    if set(EXTRA_CHECKS) & set(names):
        outcomes.update((o.name, o) for o in extra_op_outcomes(eng, examples, seed))
    for name in names:
        if name not in outcomes:
            outcomes[name] = _run_one(name, eng, examples, seed, ops, convention)
    return {name: outcomes[name] for name in names}


def _run_one(
    name: str, eng: Engine, examples: int, seed: int, ops: Sequence[str] | None,
    convention: BackwardConvention | None,
) -> CheckOutcome:  # fmt: skip
    """A check of :func:`run_checks` other than the per-op and extra-op ones."""
    probe = dict(PROBES).get(name)
    if probe is not None:
        return _run_probe(name, probe, eng, examples, seed)
    if name == "ops":
        return _check_ops(eng, capabilities(eng))
    if name in _PROPERTIES:
        strategy, prop, graphs_of = _PROPERTIES[name]
        return _property_check(name, eng, lambda: strategy(eng), prop, graphs_of, examples, seed)
    if name == "mlp":
        return _check_mlp(eng, examples, seed)
    if name == "stateful":
        return _check_stateful(eng, examples, seed, convention)[0]
    assert name == "second_order", name  # run_checks let only known names through
    return _check_second_order(eng, examples, seed, ops)


def _graph_checks(
    eng: Engine, ops: list[str], examples: int, seed: int
) -> tuple[dict[str, CheckOutcome], BackwardConvention | None]:
    """Every check of this module (the probes aside), and the backward() convention observed."""
    outcomes = {o.name: o for o in _check_per_op(eng, ops, examples, seed)}
    for name, (strategy, prop, graphs_of) in _PROPERTIES.items():
        outcomes[name] = _property_check(
            name, eng, functools.partial(strategy, eng), prop, graphs_of, examples, seed
        )
    outcomes["mlp"] = _check_mlp(eng, examples, seed)
    outcomes["stateful"], convention = _check_stateful(eng, examples, seed)
    outcomes["second_order"] = _check_second_order(eng, examples, seed)
    return outcomes, convention


def audit(
    target: Any = None,
    *,
    examples: int = DEFAULT_EXAMPLES,
    seed: int = 0,
    cls: str | None = None,
    backward: str | None = None,
    data: str | None = None,
    grad: str | None = None,
    adapter: Any = None,
) -> AuditReport:
    """Audit an engine (anything :func:`~autograd.testing.engines.resolve_engine` takes).

    ``examples`` per search (each op gets its own), ``seed`` fixes every search
    (the same engine always gets the same report); ``adapter`` audits an engine of any other
    API (see :class:`~autograd.testing.engines.Adapter`).  Raises
    :class:`~autograd.testing.engines.EngineNotFound` when no scalar class fits.
    """
    start = time.perf_counter()
    eng = resolve_engine(target, cls=cls, backward=backward, data=data, grad=grad, adapter=adapter)
    caps = capabilities(eng)
    outcomes: dict[str, CheckOutcome] = {"ops": _check_ops(eng, caps)}
    graph_outcomes, convention = _graph_checks(eng, caps["ops"], examples, seed)
    outcomes.update(graph_outcomes)
    outcomes.update((o.name, o) for o in extra_op_outcomes(eng, examples, seed))
    probe_outcomes = _run_probes(eng, examples, seed)
    for probe_outcome in probe_outcomes:
        outcomes[probe_outcome.name] = probe_outcome
    probe_kinds = {f.kind for o in probe_outcomes for f in o.findings}
    if "unsupported" in probe_kinds:  # the probes' own list of what is missing (same facts, one list)
        outcomes["ops"].findings.clear()
    if convention is not None and "convention" not in probe_kinds:
        # the probes report conventions; without them, the one observed for the stateful check is listed
        outcomes["stateful"].findings.extend(
            Finding("convention", "stateful", text) for text in convention.describe()
        )
    return AuditReport(
        engine=eng.name,
        class_name=eng.class_name,
        capabilities=caps,
        outcomes=outcomes,
        examples=examples,
        seed=seed,
        seconds=time.perf_counter() - start,
        accessors={"data": eng.data_attr, "grad": eng.grad_attr, "backward": eng.backward_method},
    )


def _first_failure(exc: BaseException) -> BaseException:
    """The first real failure inside hypothesis's exception groups (a crash or assertion first)."""
    members = list(getattr(exc, "exceptions", ()))
    if not members:
        return exc
    found = [_first_failure(m) for m in members]
    return next((f for f in found if isinstance(f, EngineCrash | ModelMismatch)), found[0])


def _expected_actual(script: str) -> tuple[str, str]:
    """The expected values a stateful reproducer prints and the actual ones the harness read
    (from its last lines; actual "" where the script does not say: run it)."""
    expected = actual = ""
    for line in script.splitlines():
        if line.startswith("print('expected:', "):
            expected = line.removeprefix("print('expected:', ").removesuffix(")")
        elif line.startswith(SEEN):
            actual = line.removeprefix(SEEN).strip()
    return expected, actual
