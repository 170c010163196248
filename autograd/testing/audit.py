"""Audit any scalar autograd engine: ``audit(target) -> AuditReport``.

The audit finds the engine's scalar class (see :mod:`autograd.testing.engines`),
probes which ops and number types it has, and then runs independent checks that
collect :class:`~autograd.testing.findings.Finding`\\ s instead of stopping at the
first failure:

* ``exact`` (engines that keep ``Fraction`` data exact) and ``symbolic`` (float
  graphs) run once per op of the table, on random graphs made of that op plus
  ``add`` and ``mul``, so that a defect in one op cannot hide another.  The
  ``symbolic`` search also checks forward values (reported under ``forward``).
* ``linearity``, ``build_order``, ``chain_sweep`` and ``stateful`` need exact
  arithmetic; ``mlp`` is a small network's loss made of the ops the engine has.
* ``second_order`` runs :mod:`autograd.testing.higher`'s check when the engine
  differentiates its own gradients; the probes of :mod:`autograd.testing.probes`
  (depth, determinism, bad inputs, edge points, conventions) run as they are.

Soundness first: a float gradient that disagrees with sympy is a
``wrong_gradient`` only when a second, independent method agrees that it is wrong
(exact rationals when the graph is rational and the engine keeps Fractions,
otherwise finite differences with their own tolerance); otherwise it is
``inconclusive``.  A forward value is ``wrong_value`` only when it is off both from
the 50-digit reference and from a plain float evaluation of the same program.
An exception the engine raises on a point inside the op's domain is a ``crash``.
Each defect is reported once per (kind, op), with the smallest failing example
found (hypothesis shrinks, deterministically: ``derandomize``, no database, the
given seed), cut down to the single node that fails on its own when there is one,
as a runnable reproducer that imports the engine under test and prints expected
vs actual.  Conventions (what a second ``backward()`` does) are facts, never
failures: the stateful check models the convention it observes.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from hypothesis.stateful import run_state_machine_as_test

from autograd.testing import oracles
from autograd.testing import strategies as gs
from autograd.testing.checks import (
    BackwardConvention,
    EngineCrash,
    backward_convention,
    check_build_order,
    check_chain_sweep,
    check_linearity,
    stateful_machine,
)
from autograd.testing.engines import Engine, EngineNotFound, resolve_engine
from autograd.testing.findings import DEFECT_KINDS, FINDING_KINDS, CheckOutcome, Finding
from autograd.testing.graph import Graph, Node
from autograd.testing.identify import extra_capabilities
from autograd.testing.ops import OPS, display, sym_const
from autograd.testing.selfcheck import extra_op_outcomes

__all__ = [
    "DEFECT_KINDS",
    "SCHEMA_VERSION",
    "AuditCase",
    "AuditReport",
    "CheckOutcome",
    "EngineNotFound",
    "Finding",
    "audit",
]

#: Version of the ``--json`` schema (documented in the README); bumped on any incompatible change.
SCHEMA_VERSION = 1
#: Examples per search (per op for ``exact`` and ``symbolic``) at default settings.
DEFAULT_EXAMPLES = 40
#: Nodes per generated graph in the per-op searches (small graphs shrink fast and read well).
MAX_NODES = 5

_Inconclusive: Any = getattr(oracles, "OracleInconclusive", ())  # contract C2, once it lands
_KIND_ORDER = {k: i for i, k in enumerate(FINDING_KINDS)}


# ---------------------------------------------------------------------- the report
@dataclass(frozen=True)
class AuditCase:
    """One pytest case of :meth:`AuditReport.pytest_cases`: a defect, or the clean bill."""

    id: str
    finding: Finding | None
    text: str

    def check(self) -> None:
        """Raise ``AssertionError`` with the defect and its reproducer (a clean bill passes)."""
        if self.finding is not None:
            raise AssertionError(self.text)

    def __str__(self) -> str:
        return self.id


@dataclass
class AuditReport:
    engine: str
    class_name: str
    capabilities: dict[str, Any]
    outcomes: dict[str, CheckOutcome]
    examples: int = DEFAULT_EXAMPLES
    seed: int = 0
    seconds: float = 0.0
    accessors: dict[str, str] = field(default_factory=dict)

    @property
    def checks(self) -> dict[str, str]:
        """``{check: "passed" | "failed" | "not_applicable"}``."""
        return {name: outcome.status for name, outcome in self.outcomes.items()}

    @property
    def findings(self) -> list[Finding]:
        """Every finding once: defects by (kind, op), information by (kind, op, summary)."""
        seen: dict[tuple[Any, ...], Finding] = {}
        for outcome in self.outcomes.values():
            for f in outcome.findings:
                key = (f.kind, f.op) if f.kind in DEFECT_KINDS else (f.kind, f.op, f.summary)
                seen.setdefault(key, f)
        return sorted(seen.values(), key=lambda f: (_KIND_ORDER.get(f.kind, 99), f.op or "", f.check))

    @property
    def defects(self) -> list[Finding]:
        return [f for f in self.findings if f.kind in DEFECT_KINDS]

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": SCHEMA_VERSION,
            "engine": self.engine,
            "class": self.class_name,
            "accessors": self.accessors,
            "capabilities": self.capabilities,
            "checks": self.checks,
            "reasons": {n: o.reason for n, o in self.outcomes.items() if o.reason},
            "findings": [
                {
                    "kind": f.kind,
                    "check": f.check,
                    "op": f.op,
                    "form": display(f.op),
                    "summary": f.summary,
                    "reproducer": f.reproducer,
                    "expected": f.expected,
                    "actual": f.actual,
                }
                for f in self.findings
            ],
            "defects": len(self.defects),
            "settings": {"examples": self.examples, "seed": self.seed},
            "seconds": round(self.seconds, 1),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, default=str)

    def verdict(self) -> str:
        defects = self.defects
        if not defects:
            return f"verdict: no defects found in {self.engine} ({len(self.checks)} checks)"
        counts: dict[str, int] = {}
        for f in defects:
            counts[f.kind] = counts.get(f.kind, 0) + 1
        kinds = ", ".join(f"{k} {n}" for k, n in counts.items())
        return f"verdict: {len(defects)} defect{'s' * (len(defects) != 1)} in {self.engine} ({kinds})"

    def __str__(self) -> str:
        caps = self.capabilities
        acc = self.accessors
        lines = [
            f"audit of {self.engine}: class {self.class_name} (number .{acc.get('data')}, "
            f"gradient .{acc.get('grad')}, {acc.get('backward')}())",
            f"settings: {self.examples} examples per search, seed {self.seed}; {self.seconds:.1f} s",
            f"ops: {', '.join(map(str, map(display, caps['ops'])))}"
            + (
                f"; missing: {', '.join(map(str, map(display, caps['missing_ops'])))}"
                if caps["missing_ops"]
                else ""
            ),
            f"numbers: int {caps['int']}, Fraction {caps['fraction']}; higher order: "
            f"{'yes' if caps['higher_order'] else 'no'}",
            "checks: " + ", ".join(f"{n} {s}" for n, s in self.checks.items()),
        ]
        findings = self.findings
        for kind in FINDING_KINDS:
            group = [f for f in findings if f.kind == kind]
            if group:
                lines.append(f"\n{kind} ({len(group)})" + (" -- DEFECT" if kind in DEFECT_KINDS else ""))
                lines += [f"  [{f.check}] {f'{display(f.op)}: ' if f.op else ''}{f.summary}" for f in group]
        reproducible = [f for f in findings if f.reproducer and f.kind in (*DEFECT_KINDS, "inconclusive")]
        if reproducible:
            lines.append("\nreproducers")
            for f in reproducible:
                lines.append(f"--- {f.kind} {display(f.op) or ''} [{f.check}]".rstrip())
                lines.append(f.reproducer)
        lines.append("")
        lines.append(self.verdict())
        return "\n".join(lines)

    def pytest_cases(self) -> list[AuditCase]:
        """One case per defect (its reproducer in the message), or one passing case if there are none.

        ``@pytest.mark.parametrize("case", audit("pkg.engine").pytest_cases(), ids=str)``
        then ``def test_engine(case): case.check()``: see the README.
        """
        if not self.defects:
            return [AuditCase(f"{self.engine}: no defects", None, self.verdict())]
        return [
            AuditCase(
                f"{f.kind}-{f.op or f.check}",
                f,
                f"{f.kind} [{f.check}] {f.summary}\nexpected: {f.expected}\nactual:   {f.actual}\n"
                f"reproduce with:\n{f.reproducer}",
            )
            for f in self.defects
        ]


# ---------------------------------------------------------------------- running an engine
class _EngineRaised(Exception):
    def __init__(self, stage: str, exc: BaseException) -> None:
        super().__init__(f"{type(exc).__name__}: {exc}")
        self.stage, self.exc = stage, exc


def _run(eng: Engine, graph: Graph) -> tuple[Any, list[Any]]:
    """The engine's output value and leaf gradients; ``_EngineRaised`` says where it raised."""
    try:
        values = graph.build(eng)
        out = eng.data(values[graph.out])
    except Exception as exc:
        raise _EngineRaised("forward", exc) from exc
    try:
        eng.backward(values[graph.out])
        grads = [eng.grad(v) for v in values[: len(graph.leaves)]]
    except Exception as exc:
        raise _EngineRaised("backward()", exc) from exc
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


def _expr(graph: Graph) -> str:
    """The program as one Python expression of the leaves, as the engine runs it (``x0 ** 0``)."""
    n = len(graph.leaves)
    exprs = [f"x{i}" for i in range(n)]
    for node in graph.nodes:
        exprs.append(
            OPS[node.op].source([exprs[a] if a < n else f"({exprs[a]})" for a in node.args], node.const)
        )
    return exprs[graph.out]


def _where(graph: Graph) -> str:
    """``expression at x0 = ..., x1 = ...``, or a short description of a big graph."""
    expr, point = _expr(graph), _point(graph)
    if len(expr) + len(point) > 160:
        return f"a graph of {len(graph.nodes)} nodes on {len(graph.leaves)} leaves (see the reproducer)"
    return f"{expr} at {point}"


def _point(graph: Graph) -> str:
    return ", ".join(f"x{i} = {_num(x)}" for i, x in enumerate(graph.leaves))


def _numbers_source(xs: Iterable[Any]) -> str:
    return "[" + ", ".join(_num(x) for x in xs) + "]"


def _num(x: Any) -> str:
    if isinstance(x, Fraction):
        return repr(x) if x.denominator != 1 else str(x.numerator)
    try:
        return repr(float(x)) if not isinstance(x, int | float) else repr(x)
    except (TypeError, ValueError):
        return repr(x)


def _value_snippet(eng: Engine, graph: Graph, expected: str) -> str:
    """Like ``graph.snippet(eng, expected)`` but printing the output value instead of gradients."""
    lines = graph.snippet(eng, expected).splitlines()[:-2]
    lines.append(f"print('actual:  ', {graph.names()[graph.out]}.{eng.data_attr})")
    return "\n".join(lines)


# ---------------------------------------------------------------------- trials
class _Trials:
    """The findings of one check, the smallest example kept per (kind, op)."""

    def __init__(self, check: str) -> None:
        self.check = check
        self.best: dict[tuple[str, str | None], tuple[int, Finding]] = {}
        self.ran = 0

    def add(self, finding: Finding, size: int) -> None:
        key = (finding.kind, finding.op)
        if key not in self.best or size < self.best[key][0]:
            self.best[key] = (size, finding)

    @property
    def findings(self) -> list[Finding]:
        return [f for _, f in self.best.values()]

    def outcome(self, name: str | None = None, reason: str = "") -> CheckOutcome:
        found = [f for f in self.findings if f.check == (name or self.check)]
        failed = any(f.kind in DEFECT_KINDS for f in found)
        return CheckOutcome(name or self.check, "failed" if failed else "passed", found, reason)


def _crash(eng: Engine, check: str, graph: Graph, raised: _EngineRaised, op: str | None) -> Finding:
    """A crash, cut down to the single node that raises on its own when there is one."""
    for node_op, single in _single_nodes(graph) if len(graph.nodes) > 1 else ():
        try:
            _run(eng, single)
        except _EngineRaised as again:
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
    except Exception:  # sympy cannot evaluate it here (e.g. a pole): say only that it must not raise
        return ""


def _rational_version(graph: Graph) -> Graph | None:
    """The same program on exact rationals (floats are rationals), or None if an op is not closed."""
    nodes = tuple(
        Node(n.op, n.args, Fraction(n.const) if isinstance(n.const, float) else n.const) for n in graph.nodes
    )
    exact = Graph(tuple(Fraction(x) for x in graph.leaves), nodes, graph.output)
    return exact if exact.rational else None


def _confirm_gradient(eng: Engine, graph: Graph) -> tuple[str | None, str]:
    """(the independent method that confirms a wrong gradient, or None; what it said)."""
    exact = _rational_version(graph) if eng.exact else None
    if exact is not None:
        try:
            oracles.assert_grads_exact(exact, eng)
            return None, "exact rationals agree with the engine: the float program's rounding explains it"
        except oracles.GradientMismatch:
            return "exact rationals", ""
        except Exception:  # the exact oracle cannot judge: finite differences may
            pass
    try:
        oracles.assert_grads_fd(graph, eng)
    except oracles.GradientMismatch:
        return "finite differences", ""
    except Exception as exc:
        return None, f"finite differences could not judge ({type(exc).__name__}: {exc})"
    return None, "finite differences agree with the engine"


def _gradient_findings(eng: Engine, check: str, graph: Graph, op: str | None) -> list[Finding]:
    """Symbolic oracle on a float graph, confirmed before it is called wrong."""
    try:
        oracles.assert_grads_symbolic(graph, eng)
        return []
    except oracles.GradientMismatch as mismatch:
        report = mismatch.report
    except _Inconclusive as exc:
        return [Finding("inconclusive", check, f"{_where(graph)}: {exc.reason}", op)]
    except Exception as exc:  # our oracle failed on this graph: never the engine's fault
        return [
            Finding("inconclusive", check, f"oracle error on {_expr(graph)}: {type(exc).__name__}: {exc}", op)
        ]
    method, why = _confirm_gradient(eng, graph)
    expected = _numbers_source(r.oracle for r in report.rows)
    actual = _numbers_source(r.engine for r in report.rows)
    wrong = ", ".join(f"d/d{r.name}" for r in report.rows if not r.ok)
    if method is None:
        kind, verdict = (
            "inconclusive",
            f"sympy disagrees beyond the derived tolerance, but {why}; not a defect",
        )
    else:
        kind, verdict = "wrong_gradient", f"engine {actual}, sympy {expected} (confirmed by {method})"
    return [
        Finding(
            kind,
            check,
            f"{wrong} of {_where(graph)}: {verdict}",
            op,
            graph.snippet(eng, expected),
            expected,
            actual,
        )
    ]


def _forward_finding(eng: Engine, graph: Graph, got: Any, op: str | None) -> list[Finding]:
    """Float graph: the output value vs the 50-digit reference, confirmed by a float evaluation."""
    try:
        want, _ = graph.mp_value_and_gradient()
        _, tol = oracles.symbolic_tolerances(graph)
        off_reference = not abs(want - got) <= tol
        plain = graph()  # the same program in Python floats, with the table's float functions
        off_plain = not abs(plain - got) <= tol
    except Exception:  # the reference cannot judge this point (or the engine gave no number)
        return []
    if not (off_reference and off_plain):
        return []
    expected = _num(want)
    return [
        Finding(
            "wrong_value", "forward",
            f"{_where(graph)}: engine {got!r}, expected {expected} (tolerance {tol:.3g}; "
            f"a float evaluation gives {plain!r})",
            op, _value_snippet(eng, graph, expected), expected, repr(got),
        )
    ]  # fmt: skip


def _float_trial(eng: Engine, check: str, op: str | None) -> Callable[[Graph], list[Finding]]:
    def trial(graph: Graph) -> list[Finding]:
        try:
            got, _ = _run(eng, graph)
        except _EngineRaised as raised:
            return [_crash(eng, check, graph, raised, op)]
        findings = _forward_finding(eng, graph, got, op) if check == "symbolic" else []
        findings += _gradient_findings(eng, check, graph, op)
        return [
            _blame(f, graph, lambda node_op, single: _gradient_findings(eng, check, single, node_op))
            for f in findings
        ]

    return trial


def _blame(finding: Finding, graph: Graph, single_trial: Callable[[str, Graph], list[Finding]]) -> Finding:
    """A confirmed wrong gradient, moved onto the single node that is wrong on its own (if any).

    The nodes of the op under test are tried first; ``single_trial(op, one_node_graph)``
    checks one node on the operand values it saw in ``graph``.
    """
    if finding.kind != "wrong_gradient":
        return finding
    if len(graph.nodes) == 1:
        return finding if finding.op else replace(finding, op=graph.nodes[0].op)
    singles = sorted(_single_nodes(graph), key=lambda s: s[0] != finding.op)
    for node_op, single in singles:
        wrong = [f for f in single_trial(node_op, single) if f.kind == "wrong_gradient"]
        if wrong:
            return wrong[0]
    return finding


def _exact_trial(eng: Engine, op: str | None) -> Callable[[Graph], list[Finding]]:
    """Rational graph, exact engine: value and gradient must equal sympy's exactly."""

    def trial(graph: Graph) -> list[Finding]:
        try:
            got, grads = _run(eng, graph)
        except _EngineRaised as raised:
            return [_crash(eng, "exact", graph, raised, op)]
        findings = []
        values = graph.evaluate()  # exact: rational ops on Fractions
        if type(got) in (int, Fraction) and got != values[graph.out]:
            expected = _num(values[graph.out])
            findings.append(
                Finding(
                    "wrong_value", "exact", f"{_where(graph)}: engine {got!r}, exactly {expected}",
                    op, _value_snippet(eng, graph, expected), expected, repr(got),
                )
            )  # fmt: skip
        try:
            oracles.assert_grads_exact(graph, eng)
        except oracles.GradientMismatch as mismatch:
            rows = mismatch.report.rows
            expected = _numbers_source(r.oracle for r in rows)
            actual = _numbers_source(grads)
            if all(type(g) in (int, Fraction) for g in grads):  # exact arithmetic: no rounding explains it
                wrong = ", ".join(f"d/d{r.name}" for r in rows if not r.ok)
                wrong_gradient = Finding(
                    "wrong_gradient", "exact",
                    f"{wrong} of {_where(graph)}: engine {actual}, exactly {expected}",
                    op, graph.snippet(eng, expected), expected, actual,
                )  # fmt: skip
                findings.append(_blame(wrong_gradient, graph, lambda o, single: _exact_trial(eng, o)(single)))
            else:
                findings.append(
                    Finding(
                        "inconclusive",
                        "exact",
                        f"{_expr(graph)}: the engine's gradients are not exact numbers",
                        op,
                    )
                )
        except Exception as exc:
            findings.append(
                Finding("inconclusive", "exact", f"oracle error: {type(exc).__name__}: {exc}", op)
            )
        return findings

    return trial


def _size(example: Any) -> int:
    if isinstance(example, Graph):
        return len(example.code())
    if isinstance(example, tuple):
        return sum(_size(e) for e in example)
    return len(repr(example))


def _search(
    trials: _Trials,
    strategy: st.SearchStrategy[Any],
    trial: Callable[[Any], list[Finding]],
    examples: int,
    seed: int,
    focus: str | None = None,
) -> None:
    """Run ``trial`` on ``examples`` examples; a defect is shrunk; every finding lands in ``trials``.

    With ``focus`` (the op under test) only a defect of that op (or of no single op)
    stops the search to shrink it: one blamed on another op (which has its own
    search) is recorded and the search goes on, so it cannot hide this op's defects.
    Nothing hypothesis raises escapes (flaky engines, exception groups): the findings
    were recorded as they happened.
    """

    @settings(
        max_examples=examples, derandomize=True, database=None, deadline=None, verbosity=Verbosity.quiet,
        suppress_health_check=list(HealthCheck), report_multiple_bugs=False,
        phases=(Phase.explicit, Phase.generate, Phase.shrink),
    )  # fmt: skip
    @hypothesis_seed(seed)
    @given(strategy)
    def run(example: Any) -> None:
        trials.ran += 1
        found = trial(example)
        size = _size(example)
        for f in found:
            trials.add(f, len(f.reproducer) or size)
        if any(f.kind in DEFECT_KINDS and (focus is None or f.op in (focus, None)) for f in found):
            raise _DefectFound

    with contextlib.suppress(Exception):  # the trials hold everything that was found
        run()


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
def _check_per_op(eng: Engine, ops: list[str], examples: int, seed: int) -> list[CheckOutcome]:
    symbolic, exact = _Trials("symbolic"), _Trials("exact")
    exact_ops = [op for op in ops if eng.exact and _rational_op(eng, op)]
    for op in ops:
        if op in exact_ops:
            strategy = _op_graphs(eng, op, exact=True)
            if strategy is not None:
                _search(exact, strategy, _exact_trial(eng, op), examples, seed, op)
        strategy = _op_graphs(eng, op, exact=False)
        if strategy is not None:
            _search(symbolic, strategy, _float_trial(eng, "symbolic", op), examples, seed, op)
    ran = f"{examples} examples for each of {len(ops)} ops"
    outcomes = [symbolic.outcome(reason=ran), symbolic.outcome("forward", reason=ran)]
    if eng.exact:
        outcomes.insert(
            0, exact.outcome(reason=f"{examples} examples for each of {len(exact_ops)} rational ops")
        )
    else:
        outcomes.insert(0, _not_applicable("exact", eng))
    # a finding of one check may carry another check's name (forward values found by the symbolic search)
    return outcomes


def _rational_op(eng: Engine, op: str) -> bool:
    spec = OPS[op]
    if spec.consts:
        return any(spec.rational(c) for c in spec.usable_consts(eng))
    return bool(spec.rational(None))


def _not_applicable(name: str, eng: Engine) -> CheckOutcome:
    how = eng.number_types["fraction"]
    why = {"refused": "refuses Fraction data", "float": "turns Fraction data into floats"}.get(how, how)
    return CheckOutcome(
        name, "not_applicable", [], f"needs exact arithmetic; the engine {why} (checked on floats)"
    )


def _exact_property(
    name: str, eng: Engine, strategy: Callable[[], st.SearchStrategy[Any]], prop: Callable[[Any, Any], None],
    graphs_of: Callable[[Any], list[Graph]], examples: int, seed: int,
) -> CheckOutcome:  # fmt: skip
    """An exact property of the old suite (linearity, build order, chain sweep) as a finding search."""
    if not eng.exact:
        return _not_applicable(name, eng)
    trials = _Trials(name)

    def trial(example: Any) -> list[Finding]:
        graphs = graphs_of(example)
        for g in graphs:
            try:
                _run(eng, g)
            except _EngineRaised as raised:
                return [_crash(eng, name, g, raised, None)]
        try:
            prop(eng, example)
        except AssertionError as exc:
            for g in graphs:  # a wrong rule behind it? then that is the finding, with its op
                blamed = [f for f in _exact_trial(eng, None)(g) if f.kind in DEFECT_KINDS]
                if blamed:
                    return [replace(f, check=name) for f in blamed]
            text = str(exc)
            first = text.splitlines()[0]
            return [Finding("wrong_gradient", name, f"{first} (exact arithmetic)", None, text, "", "")]
        except Exception as exc:
            code = graphs[0].snippet(eng) if graphs else ""
            return [
                Finding("crash", name, f"{type(exc).__name__}: {exc}", None, code, "no exception", str(exc))
            ]
        return []

    try:
        strat = strategy()
    except ValueError as exc:
        return CheckOutcome(name, "not_applicable", [], str(exc))
    _search(trials, strat, trial, examples, seed)
    return trials.outcome(reason=f"{examples} examples, exact arithmetic")


def _linear_combination(example: tuple[Graph, Graph, Fraction, Fraction]) -> list[Graph]:
    """f, g and ``Value(a) * f + Value(b) * g`` as one graph (what check_linearity runs): the
    coefficients are two more leaves after f's, so every node slot moves up by two."""
    f, g, a, b = example
    n = len(f.leaves)

    def moved(nodes: Iterable[Node], shift: int) -> list[Node]:
        return [Node(m.op, tuple(x if x < n else x + shift for x in m.args), m.const) for m in nodes]

    nodes = moved(f.nodes, 2) + moved(g.nodes, 2 + len(f.nodes))
    f_out = f.out if f.out < n else f.out + 2
    g_out = g.out if g.out < n else g.out + 2 + len(f.nodes)
    top = n + 2 + len(nodes)
    nodes += [Node("mul", (n, f_out)), Node("mul", (n + 1, g_out)), Node("add", (top, top + 1))]
    return [f, g, Graph((*f.leaves, a, b), tuple(nodes))]


def _chain(example: tuple[Fraction, Fraction, int]) -> list[Graph]:
    """The chain of check_chain_sweep as a graph."""
    w, x, n = example
    return [Graph((w, x), (Node("mul", (0, 1)), *(Node("mul", (0, 2 + i)) for i in range(n - 1))))]


def _check_mlp(eng: Engine, examples: int, seed: int) -> CheckOutcome:
    trials = _Trials("mlp")
    nonlins = [n for n in ("tanh", "relu") if eng.supports(n)]
    _search(trials, gs.mlp_graphs(eng), _float_trial(eng, "mlp", None), max(1, examples // 4), seed)
    return trials.outcome(reason=f"hidden layers: {', '.join(nonlins) or 'linear (no tanh or relu)'}")


def _check_stateful(eng: Engine, examples: int, seed: int) -> tuple[CheckOutcome, BackwardConvention | None]:
    if not eng.exact:
        return _not_applicable("stateful", eng), None
    convention = backward_convention(eng)
    if convention is None:
        return CheckOutcome(
            "stateful", "not_applicable",
            [Finding("inconclusive", "stateful", "two backward() calls on x*x*c match no known convention")],
            "the engine's backward() convention matches none the model knows",
        ), None  # fmt: skip
    trials = _Trials("stateful")
    try:
        run_state_machine_as_test(
            stateful_machine(eng, convention),
            settings=settings(
                max_examples=max(1, examples // 2), stateful_step_count=15, derandomize=True, database=None,
                deadline=None, suppress_health_check=list(HealthCheck), verbosity=Verbosity.quiet,
                report_multiple_bugs=False,
            ),
        )  # fmt: skip
    except Exception as raised:
        exc = _first_failure(raised)
        if isinstance(exc, EngineCrash):
            trials.add(
                Finding("crash", "stateful", f"raises {exc}", None, exc.reproducer, "no exception", str(exc)),
                0,
            )
        elif isinstance(exc, AssertionError):
            summary, _, script = str(exc).partition("\n")
            trials.add(
                Finding("wrong_gradient", "stateful", f"{summary} (exact, the convention as observed)", None,
                        script, *_expected_actual(script)), 0
            )  # fmt: skip
        else:  # hypothesis's or our own trouble: never the engine's defect
            trials.add(
                Finding("inconclusive", "stateful", f"the check failed: {type(exc).__name__}: {exc}"), 0
            )
    return trials.outcome(reason="backward() convention: " + "; ".join(convention.describe())), convention


def _check_second_order(eng: Engine, examples: int, seed: int) -> CheckOutcome:
    """The hook for :mod:`autograd.testing.higher`: its ``check_second_order(engine, graph)`` on
    random graphs, when the engine differentiates its own gradients (capability ``higher_order``).

    A Hessian off from sympy's is a ``wrong_gradient`` when exact (a rational graph on an
    exact engine) or confirmed by ``assert_hessian_fd``; otherwise ``inconclusive``.  An
    exception of ``engine_derivatives`` (the engine's own passes) is a ``crash``.
    """
    name = "second_order"
    if not eng.higher_order:
        return CheckOutcome(name, "not_applicable", [], "backward(create_graph=True) is not supported")
    try:
        higher = importlib.import_module("autograd.testing.higher")
    except ImportError:
        return CheckOutcome(name, "not_applicable", [], "autograd.testing.higher is not available")
    check = getattr(higher, "check_second_order", None)
    if check is None:
        return CheckOutcome(name, "not_applicable", [], "autograd.testing.higher has no check_second_order")
    derivatives = getattr(higher, "engine_derivatives", None)
    hessian_fd = getattr(higher, "assert_hessian_fd", None)
    trials = _Trials(name)

    def trial(graph: Graph) -> list[Finding]:
        try:
            if derivatives is not None:
                derivatives(graph, eng, 2)
        except Exception as exc:
            summary = f"second derivatives of {_where(graph)} raise {type(exc).__name__}: {exc}"
            return [Finding("crash", name, summary, None, graph.snippet(eng), "no exception", str(exc))]
        try:
            check(eng, graph)
            return []
        except oracles.GradientMismatch as mismatch:
            text = str(mismatch)
        except _Inconclusive as exc:
            return [Finding("inconclusive", name, f"{_where(graph)}: {exc.reason}")]
        except Exception as exc:  # the oracle's own failure
            return [
                Finding("inconclusive", name, f"oracle error on {_where(graph)}: {type(exc).__name__}: {exc}")
            ]
        confirmed = "exact rationals" if graph.rational and eng.exact else None
        if confirmed is None and hessian_fd is not None:
            try:
                hessian_fd(graph, eng)
            except oracles.GradientMismatch:
                confirmed = "finite differences of the engine's gradient"
            except Exception:  # finite differences cannot judge: unconfirmed
                confirmed = None
        kind = "wrong_gradient" if confirmed else "inconclusive"
        how = f"confirmed by {confirmed}" if confirmed else "not confirmed by a second method; not a defect"
        summary = f"second derivatives of {_where(graph)} differ from sympy's ({how})"
        return [Finding(kind, name, summary, None, text, "", "")]

    for exact in (True, False) if eng.exact else (False,):
        try:
            strategy = gs.graphs(eng, exact=exact, max_nodes=MAX_NODES)
        except ValueError:
            continue
        _search(trials, strategy, trial, max(1, examples // 2), seed)
    return trials.outcome(reason=f"{max(1, examples // 2)} graphs per arithmetic, Hessians vs sympy")


def _run_probes(eng: Engine, examples: int, seed: int) -> list[CheckOutcome]:
    """Every ``probe_*`` of :mod:`autograd.testing.probes` (contract C3), each on its own."""
    try:
        probes = importlib.import_module("autograd.testing.probes")
    except ImportError:
        return []
    outcomes = []
    for name in sorted(n for n in dir(probes) if n.startswith("probe_")):
        check = name.removeprefix("probe_")
        try:
            outcome = getattr(probes, name)(eng, examples=examples, seed=seed)
        except Exception as exc:  # a probe's own failure is ours, never the engine's
            failed = Finding("inconclusive", check, f"probe failed: {type(exc).__name__}: {exc}")
            outcome = CheckOutcome(check, "not_applicable", [failed], "the probe itself failed")
        outcomes.append(outcome)
    return outcomes


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
        **extra_capabilities(eng),  # aliases ({"ln": "log"}) and extra_ops (form -> identified as)
    }


def _graph_checks(
    eng: Engine, ops: list[str], examples: int, seed: int
) -> tuple[dict[str, CheckOutcome], BackwardConvention | None]:
    """Every check of this module (the probes aside), and the backward() convention observed."""
    outcomes = {o.name: o for o in _check_per_op(eng, ops, examples, seed)}
    exact_properties: list[tuple[str, Any, Callable[[Any, Any], None], Callable[[Any], list[Graph]]]] = [
        ("linearity", lambda: gs.graph_pairs(eng), check_linearity, _linear_combination),
        ("build_order", lambda: gs.build_orders(eng), check_build_order, lambda ex: [ex[0]]),
        ("chain_sweep", gs.chain_sweeps, check_chain_sweep, _chain),
    ]
    for name, strategy, prop, graphs_of in exact_properties:
        outcomes[name] = _exact_property(name, eng, strategy, prop, graphs_of, examples, seed)
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
) -> AuditReport:
    """Audit an engine (anything :func:`~autograd.testing.engines.resolve_engine` takes).

    ``examples`` per search (each op gets its own), ``seed`` fixes every search
    (the same engine always gets the same report).  Raises
    :class:`~autograd.testing.engines.EngineNotFound` when no scalar class fits.
    """
    start = time.perf_counter()
    eng = resolve_engine(target, cls=cls, backward=backward, data=data, grad=grad)
    caps = capabilities(eng)
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
    outcomes: dict[str, CheckOutcome] = {
        "ops": CheckOutcome("ops", "passed", unsupported, "every op of the table probed")
    }
    graph_outcomes, convention = _graph_checks(eng, caps["ops"], examples, seed)
    outcomes.update(graph_outcomes)
    outcomes.update((o.name, o) for o in extra_op_outcomes(eng, examples, seed))
    probe_outcomes = _run_probes(eng, examples, seed)
    for outcome in probe_outcomes:
        outcomes[outcome.name] = outcome
    probe_kinds = {f.kind for o in probe_outcomes for f in o.findings}
    if "unsupported" in probe_kinds:  # the probes' own list of what is missing (same facts, one list)
        outcomes["ops"].findings.clear()
    if convention is not None and "convention" not in probe_kinds:
        # the probes report conventions; without them, the one observed for the stateful check is listed
        outcomes["stateful"].findings.extend(
            Finding("convention", "stateful", text) for text in convention.describe()
        )
    for outcome in outcomes.values():  # a check fails only with a defect finding (contract C3)
        if outcome.status == "failed" and not any(f.kind in DEFECT_KINDS for f in outcome.findings):
            outcome.status = "passed"
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
    return next((f for f in found if isinstance(f, EngineCrash | AssertionError)), found[0])


def _expected_actual(script: str) -> tuple[str, str]:
    """The expected and actual values a stateful reproducer prints (from its last lines)."""
    expected = actual = ""
    for line in script.splitlines():
        if line.startswith("print('expected:', "):
            expected = line.removeprefix("print('expected:', ").removesuffix(")")
    return expected, actual
