"""Checks of the ops an engine has beyond the table (see :mod:`autograd.testing.identify`).

``extra_ops``
    Each identified op is checked like a table op: alone at the identification points
    and inside random graphs of it, ``add`` and ``mul`` (fan-out and reuse, as
    :func:`autograd.testing.strategies.graphs` draws them), against sympy's derivative
    of the catalogue row; a disagreement is ``wrong_gradient`` only when central
    differences confirm it (``inconclusive`` otherwise), and exactly on rational graphs
    when the row is closed over the rationals and the engine keeps Fractions.
``self_consistency``
    An op nothing identifies has no reference, so the engine is checked against itself:
    its backward against its own forward, alone and inside random graphs with reuse.
    :func:`taylor_order` needs no tolerance: for a right gradient g the remainder
    ``|f(x + h) - f(x) - h g|`` shrinks like h**2, for a wrong one like h; the observed
    order over a few halvings of h separates them.  Order 1 at two step scales 1000
    apart is ``wrong_gradient``; order 1 at the first only is ``inconclusive``; a
    derivative whose one-sided slopes differ (a kink: the function has no derivative
    there) is not judged.  It cannot see a wrong FORWARD (nothing says what the function
    is), only a gradient that does not belong to the forward.

Both run in one registered check (:func:`extra_op_outcomes`), on the runner's searches; an
engine with no extra op gets none.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

from autograd.testing import oracles, verdicts
from autograd.testing import strategies as gs
from autograd.testing.boundary import EngineRaised, engine_call
from autograd.testing.checks.common import run_graph, where
from autograd.testing.checks.registry import Run, check
from autograd.testing.engines import Engine, resolve_engine
from autograd.testing.findings import CheckOutcome, Finding, outcome
from autograd.testing.graph import Graph, Node, OracleInconclusive
from autograd.testing.identify import AGREE_RTOL, ExtraOp, engine_values, registered_extras, unjudged_methods
from autograd.testing.ops import OPS
from autograd.testing.runner import Trials, search

__all__ = ["TAYLOR_HALVINGS", "TaylorVerdict", "check_extra_ops", "extra_op_outcomes", "taylor_order"]

#: Halvings of the step in one order test, and the first step (relative to max(1, |x|)).
TAYLOR_HALVINGS = 5
TAYLOR_STEP = 1e-3
#: The smaller scale that must show the same order before a gradient is called wrong.
CONFIRM_SCALE = 1e-3
#: Nodes per graph in the searches (small graphs shrink fast and read well).
MAX_NODES = 5
EPS = 2.0**-52


def _forward_at(eng: Engine, graph: Graph, leaves: list[float]) -> float:
    """The output's value with the leaves moved to ``leaves``; what the engine raises is
    :class:`EngineRaised`, which says where."""
    values = graph.build(eng, leaves)
    return float(engine_call("forward", float, eng.data(values[graph.out])))


def _real(g: Any) -> float:
    """A gradient as a float.  One that is no number (only a type with ``__float__`` is one:
    ``float("2.5")`` would read a string as one) is the engine's defect, raised like its errors."""
    if not hasattr(type(g), "__float__"):
        raise EngineRaised("backward()", TypeError(f"the gradient is {g!r}, not a number"))
    return float(engine_call("backward()", float, g))


# ---------------------------------------------------------------------- the order test
class TaylorVerdict:
    """What the remainders say: ``right``, ``wrong`` (order 1) or ``unclear``; the orders seen."""

    def __init__(self, verdict: str, orders: list[float], remainders: list[float]) -> None:
        self.verdict, self.orders, self.remainders = verdict, orders, remainders

    def __repr__(self) -> str:
        return f"TaylorVerdict({self.verdict!r}, orders={[round(o, 2) for o in self.orders]})"


def taylor_order(f: Callable[[float], float], g: float, h0: float) -> TaylorVerdict:
    """The order of ``|f(h) - f(0) - h g|`` as h halves from ``h0`` (``f`` along one direction).

    ``right`` when the remainder shrinks like h**2 (or stays at rounding level), ``wrong``
    when it shrinks like h, well above rounding, at every halving; ``unclear`` otherwise.
    """
    f0 = f(0.0)
    hs = [h0 / 2**k for k in range(TAYLOR_HALVINGS)]
    values = [f(h) for h in hs]
    rem = [abs(fh - f0 - h * g) for h, fh in zip(hs, values, strict=True)]
    noise = 64 * EPS * max([abs(f0), *map(abs, values)])  # the rounding of the forward itself
    if max(rem) <= noise:
        return TaylorVerdict("right", [], rem)
    orders = [math.log2(a / b) if a > 0 and b > 0 else math.nan for a, b in itertools.pairwise(rem)]
    if all(r > 100 * noise for r in rem) and all(abs(o - 1) < 0.25 for o in orders):
        return TaylorVerdict("wrong", orders, rem)
    if all(o > 1.6 or r <= 100 * noise for o, r in zip(orders, rem[1:], strict=True)):
        return TaylorVerdict("right", orders, rem)
    return TaylorVerdict("unclear", orders, rem)


def _both_ways(f: Callable[[float], float], g: float, h0: float) -> TaylorVerdict | None:
    """The forward step's verdict when the remainder is of order 1 ahead AND behind, else None.

    A kink just beside the point bends one side only; a wrong gradient shows on both.
    """
    ahead = taylor_order(f, g, h0)
    if ahead.verdict != "wrong" or taylor_order(lambda t: f(-t), -g, h0).verdict != "wrong":
        return None
    return ahead


def _taylor_reproducer(eng: Engine, graph: Graph, i: int) -> str:
    """The graph's gradient, and central differences of the engine's own forward along x_i."""
    names = graph.names()
    n = len(graph.leaves)
    body = [
        f"    {names[n + k]} = {OPS[node.op].source([names[a] for a in node.args], node.const)}"
        for k, node in enumerate(graph.nodes)
    ]
    leaves = ", ".join(names[:n])
    return "\n".join(
        [
            eng.import_line(),
            f"def f({leaves}):",
            *(f"    {nm} = {eng.class_name}({nm})" for nm in names[:n]),
            *body,
            f"    return {names[graph.out]}",
            f"point = {list(graph.leaves)!r}",
            "out = f(*point)",
            f"out.{eng.backward_method}()",
            "",
            "def forward(x):",
            f"    return f(*point[:{i}], x, *point[{i + 1}:]).{eng.data_attr}",
            f"x = point[{i}]",
            "h = 1e-6 * max(1.0, abs(x))",
            "central = (forward(x + h) - forward(x - h)) / (2 * h)",
            f"leaves = f.__code__.co_varnames[:{n}]",
            f"print('expected (central differences of the forward): d/dx{i} =', central)",
            "# the engine's gradient of the same call:",
            f"vals = [{eng.class_name}(v) for v in point]",
            "# (rebuilt with Values kept, to read the leaf's gradient)",
            *_keep_leaves(eng, graph, names),
            f"print('actual (backward()):                          d/dx{i} =', vals[{i}].{eng.grad_attr})",
        ]
    )


def _keep_leaves(eng: Engine, graph: Graph, names: list[str]) -> list[str]:
    n = len(graph.leaves)
    lines = [f"{names[i]} = vals[{i}]" for i in range(n)]
    for k, node in enumerate(graph.nodes):
        lines.append(f"{names[n + k]} = {OPS[node.op].source([names[a] for a in node.args], node.const)}")
    lines.append(f"{names[graph.out]}.{eng.backward_method}()")
    return lines


# ---------------------------------------------------------------------- judging one graph
def _crash(eng: Engine, check: str, graph: Graph, raised: EngineRaised, op: str) -> Finding:
    return Finding(
        "crash", check, f"{raised.stage} of {where(graph)} raises {raised}", op, graph.snippet(eng),
        "no exception", str(raised),
    )  # fmt: skip


def _listed(xs: Any) -> str:
    return "[" + ", ".join(repr(x) for x in xs) + "]"


def _judge_known(eng: Engine, check: str, op: str) -> Callable[[Graph], list[Finding]]:
    """The findings on a graph of an identified op: sympy, confirmed by differences, both on the
    gradients of one run (exact rationals need no second vote)."""

    def judge(graph: Graph) -> list[Finding]:
        try:
            _, grads = run_graph(eng, graph)
        except EngineRaised as raised:
            return [_crash(eng, check, graph, raised, op)]
        exact = graph.rational and eng.exact
        try:
            if exact:
                oracles.assert_grads_exact(graph, eng, grads=grads)
            else:
                oracles.assert_grads_symbolic(graph, eng, grads=grads)
            return []
        except oracles.GradientMismatch as mismatch:
            report = mismatch.report
        except OracleInconclusive as exc:
            return [Finding("inconclusive", check, f"{where(graph)}: {exc.reason}", op)]
        expected = _listed(float(r.oracle) for r in report.rows)
        actual = _listed(r.engine for r in report.rows)
        if exact:
            summary = f"{where(graph)}: engine {actual}, sympy {expected} (confirmed by exact rationals)"
        else:
            vote = verdicts.second_vote(
                verdicts.Vote("sympy", True, expected),
                lambda: oracles.fd_vote(graph, eng, grads, "central differences"),
            )
            summary = f"{where(graph)}: engine {actual}; {vote.text}"
            if vote.kind != "defect":
                return [Finding("inconclusive", check, summary, op)]
        found = Finding(
            "wrong_gradient",
            check,
            summary,
            op,
            graph.snippet(eng, expected),
            expected,
            actual,
            point=graph.leaves,
        )
        return [found]

    return judge


def _judge_unknown(eng: Engine, check: str, op: str) -> Callable[[Graph], list[Finding]]:
    """The findings on a graph of an unidentified op: backward vs the engine's own forward (a
    graph whose every derivative sits on a kink is not judged: inconclusive)."""

    def judge(graph: Graph) -> list[Finding]:
        try:
            _, grads = run_graph(eng, graph)
            slopes = [_real(g) for g in grads]
        except EngineRaised as raised:
            return [_crash(eng, check, graph, raised, op)]
        point = [float(x) for x in graph.leaves]
        kinks = 0  # derivatives at a point where the function has none: not a case to judge
        for i, (g, slope) in enumerate(zip(grads, slopes, strict=True)):

            def along(t: float, i: int = i) -> float:
                moved = list(point)
                moved[i] += t
                return _forward_at(eng, graph, moved)

            scale = max(1.0, abs(point[i]))
            try:
                first = _both_ways(along, slope, TAYLOR_STEP * scale)
                if first is None:
                    continue
                again = _both_ways(along, slope, TAYLOR_STEP * CONFIRM_SCALE * scale)
                h = 1e-6 * scale
                ahead, here, behind = along(h), along(0.0), along(-h)
            except EngineRaised as raised:  # the forward refuses a nearby point: no verdict here
                summary = f"{where(graph)}: the {raised.stage} raises {raised} near the point"
                return [Finding("inconclusive", check, summary, op)]
            central = (ahead - behind) / (2 * h)
            right, left = (ahead - here) / h, (here - behind) / h  # one-sided slopes: a kink if they differ
            kink = abs(right - left) >= 0.1 * min(abs(slope - right), abs(slope - left))
            if kink:  # (hypot at 0, say): no derivative there, so no gradient can be wrong
                kinks += 1
                continue
            orders = ", ".join(f"{o:.2f}" for o in first.orders)
            if again is None:
                summary = (
                    f"d/dx{i} of {where(graph)}: the Taylor remainder shrinks like h (orders {orders}), "
                    "but not at a 1000 times smaller step: not confirmed, unresolved"
                )
                return [Finding("inconclusive", check, summary, op)]
            summary = (
                f"d/dx{i} of {where(graph)}: engine {g!r}, central differences of its own forward "
                f"{central!r}; the Taylor remainder shrinks like h, not h^2 (orders {orders}), at two "
                "step scales 1000 apart"
            )
            repro = _taylor_reproducer(eng, graph, i)
            found = Finding(
                "wrong_gradient", check, summary, op, repro, repr(central), repr(g), point=graph.leaves
            )
            return [found]
        if grads and kinks == len(grads):  # no derivative anywhere here: nothing could be judged
            return [Finding("inconclusive", check, f"{where(graph)}: every derivative sits on a kink", op)]
        return []

    return judge


# ---------------------------------------------------------------------- searches
def _check_op(eng: Engine, extra: ExtraOp, trials: Trials, check: str, run: Run) -> None:
    """One extra op: alone at the points where it was identified, then in the runner's searches
    of random graphs of it, ``add`` and ``mul`` (on rationals too when it keeps them exact)."""
    spec = extra.spec
    judge = (_judge_known if extra.known is not None else _judge_unknown)(eng, check, spec.name)
    const = spec.consts[0] if spec.consts else None
    for at in engine_values(eng, extra.method, extra.arity, extra.number):  # alone, where identified
        args = (at,) if extra.arity == 1 else at
        if not spec.domain([float(a) for a in args], const):
            continue
        graph = Graph(tuple(args), (Node(spec.name, tuple(range(extra.arity)), const),))
        trials.record((check,), judge(graph), len(graph.code()))
    ops = [spec.name, *(o for o in ("add", "mul") if eng.supports(o))]
    modes = [False, True] if eng.exact and spec.rational(const) else [False]
    for exact in modes:
        try:
            strategy = gs.graphs(eng, exact=exact, ops=ops, max_nodes=MAX_NODES)
        except ValueError:  # no usable operands in this mode
            continue
        having = strategy.filter(lambda g: any(n.op == spec.name for n in g.nodes))
        search(trials, (check,), having, judge, run.examples, run.seed, spec.name, run.mode)


def _what(extra: ExtraOp, judged: int, inconclusive: int) -> str:
    """What an extra op was found to be and how it was checked: never "checked" when nothing was."""
    what = extra.known if extra.known else "not identified"
    if extra.by_name:  # its values agree with the row's only roughly: judged against it all the same
        what += f" (by its name: its values differ from the catalogue's by more than {AGREE_RTOL:g} relative)"
    if not judged:
        return f"{what}: not judged (0 cases judged, {inconclusive} inconclusive)"
    return what if extra.known else f"{what}: checked by self-consistency"


@check("extra_ops", "self_consistency", order=60)
def check_extra_ops(run: Run) -> list[CheckOutcome]:
    """``extra_ops`` (identified ops, against the catalogue) and ``self_consistency`` (the rest).

    Also lists every extra op found, identified or not, as a fact (``convention``).
    """
    eng, trials = run.eng, Trials()
    with registered_extras(eng, unknown=True) as extras:
        judged: dict[str, tuple[int, int]] = {}  # form -> (judged, inconclusive), each op's own
        for extra in extras:
            check = "extra_ops" if extra.known is not None else "self_consistency"
            before = trials.judged[check], trials.inconclusive[check]
            _check_op(eng, extra, trials, check, run)
            judged[extra.form] = (trials.judged[check] - before[0], trials.inconclusive[check] - before[1])
    listed = [f"{e.form} ({_what(e, *judged[e.form])})" for e in extras]
    facts = (
        [Finding("convention", "extra_ops", f"ops beyond the table: {', '.join(listed)}")] if extras else []
    )
    facts += [
        Finding("convention", "extra_ops", f"{form} is not judged: {why}")
        for form, why in unjudged_methods(eng).items()
    ]
    n_known = sum(e.known is not None for e in extras)
    why_known = f"{n_known} extra ops identified by their values, checked as the catalogue's"
    why_unknown = f"{len(extras) - n_known} extra ops nothing identifies: backward vs their own forward"
    return [
        outcome(
            "extra_ops", facts + trials.findings("extra_ops"), judged=trials.judged["extra_ops"],
            inconclusive=trials.inconclusive["extra_ops"], unit="graphs", reason=why_known,
        ),
        outcome(
            "self_consistency", trials.findings("self_consistency"), judged=trials.judged["self_consistency"],
            inconclusive=trials.inconclusive["self_consistency"], unit="graphs", reason=why_unknown,
        ),
    ]  # fmt: skip


def extra_op_outcomes(engine: Any, examples: int = 40, seed: int = 0) -> list[CheckOutcome]:
    """:func:`check_extra_ops` on ``engine`` on its own."""
    return check_extra_ops(Run(resolve_engine(engine), examples, seed))
