"""The state machine of the ``stateful`` check: building, ``backward()`` from any node, zeroing.

A run interleaves building nodes, ``backward()`` from any node and zeroing leaves (a leaf holding
a gradient, often followed at once by a pass reaching it: a zeroing shows only in the passes
after it).  The model is independent of the engine's rules: every node's exact value comes from
the op table's plain-number column, every local partial from sympy's diff, and after
``backward()`` from ``y`` :func:`~autograd.testing.checks.conventions.model_backward` updates the
model gradients under the convention (ours by default; the audit passes the one it observed), as
:func:`~autograd.testing.checks.conventions.model_new_operation` does after each new op.
After every step every gradient must equal the model's exactly (floats: within the tolerance
derived pass by pass).  :class:`GradientMachine` holds the rules every engine gets; the rule
classes below it are added by :func:`~autograd.testing.checks.stateful.stateful_machine` when the
engine can take them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any, ClassVar

import sympy  # type: ignore[import-untyped]
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from autograd.testing import strategies as gs
from autograd.testing.boundary import EngineRaised
from autograd.testing.checks.conventions import (
    BackwardConvention,
    model_backward,
    model_new_operation,
    reachable,
)
from autograd.testing.checks.properties import agrees, leaf_tolerances
from autograd.testing.engines import Engine
from autograd.testing.graph import Graph, Node, OracleInconclusive
from autograd.testing.ops import OPS
from autograd.testing.oracles.reference import certify
from autograd.testing.reproducers import grad_assignment

__all__ = [
    "SEEN",
    "BinaryRule",
    "EngineCrash",
    "GradientMachine",
    "HigherOrderRules",
    "ModelMismatch",
    "UnaryRule",
    "ZeroGradRule",
]


class ModelMismatch(AssertionError):
    """The engine's gradients differ from the state machine's model (the message says where,
    then the reproducer).  The model's own faults are other exceptions and propagate."""


class EngineCrash(Exception):
    """The engine raised inside the state machine; ``.reproducer`` replays the steps so far."""

    def __init__(self, message: str, reproducer: str) -> None:
        super().__init__(message)
        self.reproducer = reproducer


#: The comment a stateful reproducer ends with: the gradients the harness read when it failed.
SEEN = "# the harness read:"


def _shown(eng: Engine, g: Any) -> str:
    """A gradient as the reproducer prints it: a Value (create_graph) by its number."""
    if not isinstance(g, eng.Value):
        return str(g)
    try:
        return str(eng.data(g))
    except EngineRaised as raised:
        return f"{g!r} (reading its number raises {raised.line()})"


class GradientMachine(RuleBasedStateMachine):
    """The machine's rules and model; :func:`stateful_machine` makes one for an engine (the
    rules an engine can take, and the setup below as class attributes)."""

    eng: ClassVar[Engine]
    convention: ClassVar[BackwardConvention]
    rational: ClassVar[bool]  # the leaves are Fractions, judged by equality; else floats
    settable: ClassVar[bool]  # the engine's gradients can be written (zero_grad)
    higher: ClassVar[bool]  # create_graph steps are judged
    binary_ops: ClassVar[list[str]]
    unary_ops: ClassVar[list[tuple[str, Any]]]
    fallback: ClassVar[tuple[str, int] | None]  # an op valid everywhere: (name, operands)
    not_judged: ClassVar[tuple[str, ...]] = ()  # what this machine does not exercise, and why
    runs: ClassVar[int] = 0
    unjudged: ClassVar[int] = 0

    def __init__(self) -> None:
        super().__init__()
        type(self).runs += 1
        self.unjudged_here = False  # a pass of this run could not be judged
        self.tol: list[float] = []  # floats: how far each leaf gradient may be from the model
        self.values: list[Any] = []  # engine Values
        self.args: list[tuple[int, ...] | None] = []  # None for a leaf
        self.ops: list[tuple[str, Any]] = []
        self.exact: list[Fraction] = []  # each node's exact value
        self.model: list[Fraction] = []
        self.script: list[str] = []  # what was done, as Python using the engine's names
        self.passed: set[int] = set()  # interior nodes some backward() pass went through
        self.freed: set[int] = set()  # nodes of a graph a pass freed (convention graph="freed")
        # create_graph steps (higher-order engines): sympy's expression of every slot, which
        # gradients are Values, d(leaf k's Value gradient)/d(leaf j), and the interior
        # gradients not judged since a pass from a gradient (engine-dependent)
        self.exprs: list[Any] = []
        self.is_value: list[bool] = []
        self.second: dict[int, dict[int, Fraction]] = {}
        self.unknown: set[int] = set()

    # ---- rules
    @initialize(value=gs.rational_leaves)
    def first_leaf(self, value: Fraction) -> None:
        self.leaf(value)  # so that every rule is enabled from the first step

    @rule(value=gs.rational_leaves)
    def leaf(self, value: Fraction) -> None:
        number: Any = value if self.rational else float(value)
        value = Fraction(number)  # the model holds the very number the engine got
        self.script.append(f"v{len(self.values)} = {self.eng.class_name}({number!r})")
        self.values.append(self._engine(self.eng.make, number))
        self.tol.append(0.0)
        self.args.append(None)
        self.ops.append(("", None))
        self.exact.append(value)
        self.model.append(Fraction(0))
        self.exprs.append(sympy.Symbol(f"v{len(self.exprs)}", real=True))
        self.is_value.append(False)

    def _add(self, op: str, c: Any, args: tuple[int, ...]) -> None:
        self.script.append(f"v{len(self.values)} = {OPS[op].source([f'v{a}' for a in args], c)}")
        self.values.append(self._engine(self.eng.apply, OPS[op], [self.values[a] for a in args], c))
        self.tol.append(0.0)
        self.args.append(args)
        self.ops.append((op, c))
        self.exact.append(Fraction(OPS[op].num([self.exact[a] for a in args], c)))
        self.model.append(Fraction(0))
        self.exprs.append(OPS[op].sym([self.exprs[a] for a in args], c))
        self.is_value.append(False)
        model_new_operation(self.model, args, self.convention)
        if self.convention.operands == "clear":  # each operand's gradient is exactly 0 now
            for a in args:
                self.tol[a] = 0.0
                self.is_value[a] = False
                self.second.pop(a, None)
                self.unknown.discard(a)

    def _valid(self, op: str, c: Any, args: tuple[int, ...]) -> bool:
        vals = [self.exact[a] for a in args]
        if not OPS[op].domain([float(v) for v in vals], c) or (op == "div" and vals[1] == 0):
            return False
        return bool(abs(OPS[op].num(vals, c)) <= 1000)

    def _fallback(self, a: int) -> None:
        """-a, or a + a for an engine without (exact) negation; nothing without either."""
        if self.fallback is not None:
            name, arity = self.fallback
            self._add(name, None, (a,) * arity)

    @rule(data=st.data())
    def backward(self, data: Any) -> None:
        self._backward_from(data.draw(st.integers(0, len(self.values) - 1)))
        # hypothesis turns some rules off for a whole run (swarm testing): zeroing, judged
        # only by a pass after it, is drawn from here too, so that no run lacks it
        if self.settable and self._holding() and data.draw(st.booleans()):
            self._zero_grad(data)

    def _judgeable(self, y: int) -> bool:
        """Whether a plain backward() from ``y`` can be judged: with accumulated interior
        gradients, a stale one flows on, and so do those of the nodes an engine builds inside
        one op (micrograd's x - y is x + y * -1): what a second pass over an interior node
        gives depends on the engine's insides, so only fresh subgraphs are checked."""
        stale = self.convention.interior == "accumulate" and self._interior(y) & self.passed
        return not (stale or self._crosses_freed(y))

    def _crosses_freed(self, y: int) -> bool:
        """Whether a pass from ``y`` would go over a graph an earlier pass freed (no program may)."""
        return bool(reachable(self.args, y) & self.freed)

    def _free(self, y: int) -> None:
        """After a pass from ``y`` on an engine that frees graphs: every node built so far on the
        pass's graph (MyGrad clears all of it) takes part in no later pass; leaves stay usable."""
        if self.convention.graph == "freed":
            went = reachable(self.args, y)
            built = range(len(self.values))
            self.freed |= {k for k in built if self.args[k] is not None and reachable(self.args, k) & went}

    def _interior(self, y: int) -> set[int]:
        return {k for k in reachable(self.args, y) if self.args[k] is not None}

    def _backward_from(self, y: int) -> None:
        if not self._judgeable(y):
            return
        reached = self._interior(y)
        self.passed |= reached
        self.script.append(f"v{y}.{self.eng.backward_method}()")
        self._engine(self.eng.backward, self.values[y])
        model_backward(self.args, self.ops, self.exact, self.model, y, self.convention)
        self._free(y)
        if not self.rational:
            self._widen(y)
        for k in reached:
            self.is_value[k] = False  # interior gradients are numbers again
        self.unknown -= reached

    def _leaves(self) -> list[int]:
        return [i for i, a in enumerate(self.args) if a is None]

    def _widen(self, y: int) -> None:
        """Floats: each leaf reached from ``y`` may now be off by this pass's derived
        tolerance more (or only by it, when the convention resets leaves)."""
        slots = sorted(reachable(self.args, y))
        leaves = [k for k in slots if self.args[k] is None]
        if self.args[y] is None:
            tols = {y: 0.0}  # backward() on a leaf: the seed 1 is exact
        else:
            inner = [k for k in slots if self.args[k] is not None]
            index = {k: i for i, k in enumerate(leaves + inner)}
            nodes = tuple(
                Node(self.ops[k][0], tuple(index[a] for a in self.args[k] or ()), self.ops[k][1])
                for k in inner
            )
            graph = Graph(tuple(float(self.exact[k]) for k in leaves), nodes)
            try:
                tols = dict(zip(leaves, leaf_tolerances(graph, self.eng.precision), strict=True))
            except OracleInconclusive:  # no tolerance: these leaves are not judged until zeroed
                if not self.unjudged_here:
                    self.unjudged_here = True
                    type(self).unjudged += 1
                self.unknown |= set(leaves)
                return
        for k, t in tols.items():
            self.tol[k] = self.tol[k] + t if self.convention.leaves == "accumulate" else t

    def _holding(self) -> list[int]:
        """The leaves whose gradients are not 0 (as the model has them)."""
        return [k for k in self._leaves() if self.model[k] != 0]

    def _zero_grad(self, data: Any) -> None:
        """A leaf's gradient set to 0 (preferring one that holds a gradient), half the time
        followed by a pass that reaches it (the rule of :class:`ZeroGradRule`)."""
        k = data.draw(st.sampled_from(self._holding() if data.draw(st.booleans()) else self._leaves()))
        self.script.append(grad_assignment(self.eng, f"v{k}", self.values[k], 0))
        self._engine(self.eng.set_grad, self.values[k], 0)
        self.model[k] = Fraction(0)
        self.tol[k] = 0.0
        self.is_value[k] = False
        self.second.pop(k, None)
        if not self.rational:
            self.unknown.discard(k)
        if data.draw(st.booleans()):
            # (k itself is one: from a leaf nothing interior is reached)
            reaching = [y for y in range(len(self.values)) if k in reachable(self.args, y)]
            self._backward_from(data.draw(st.sampled_from([y for y in reaching if self._judgeable(y)])))

    @invariant()
    def gradients_match_model(self) -> None:
        got = [self._engine(self.eng.grad, v) for v in self.values]
        for k, want in enumerate(self.model):
            if k in self.unknown:
                continue
            if not self.rational:
                if self.args[k] is None and not agrees(got[k], want, lambda: self.tol[k]):  # noqa: B023
                    raise ModelMismatch(
                        f"stateful: leaf v{k} has grad {got[k]!r}, model says {float(want)!r} "
                        f"(tolerance {self.tol[k]:.3g})\n{self._reproducer(got)}"
                    )
                continue
            if self.higher:
                is_value = isinstance(got[k], self.eng.Value)
                if is_value != self.is_value[k]:
                    raise ModelMismatch(
                        f"stateful: node v{k} ({self.ops[k][0] or 'leaf'}) has grad {got[k]!r}, "
                        f"model says {'a Value' if self.is_value[k] else 'a number'}\n"
                        + self._reproducer(got)
                    )
                got[k] = self._engine(self.eng.data, got[k]) if is_value else got[k]
            if got[k] != want:
                raise ModelMismatch(
                    f"stateful: node v{k} ({self.ops[k][0] or 'leaf'}) has grad {got[k]!r}, "
                    f"model says {want}\n{self._reproducer(got)}"
                )

    def _engine(self, call: Callable[..., Any], *args: Any) -> Any:
        """``call(*args)``, an :class:`Engine` method: what the engine raised there
        (``EngineRaised``) becomes an :class:`EngineCrash` with the script so far."""
        try:
            return call(*args)
        except EngineRaised as raised:
            exc = raised.exc
            raise EngineCrash(f"{type(exc).__name__}: {exc}", self._reproducer()) from exc

    def _reproducer(self, got: Sequence[Any] = ()) -> str:
        """The steps so far as a script that prints expected vs actual gradients (and, after a
        wrong gradient, what the harness read from the engine, ``got``, as a comment)."""
        grad = self.eng.grad_attr
        expected = [
            "?"
            if i in self.unknown or not (self.rational or self.args[i] is None)
            else str(m if self.rational else float(m))
            for i, m in enumerate(self.model)
        ]
        # a Value gradient (create_graph) shows its number; any other (a 0-d array, whose `data`
        # is its buffer) shows itself
        grads = ", ".join(f"v{i}.{grad}" for i in range(len(self.values)))
        return "\n".join(
            [
                "from fractions import Fraction",
                self.eng.import_line(),
                *self.script,
                f"print('expected:', {expected!r})",
                f"print('actual:  ', [str(g.{self.eng.data_attr} if isinstance(g, {self.eng.class_name})"
                f" else g) for g in [{grads}]])",
                *([f"{SEEN} {[_shown(self.eng, g) for g in got]!r}"] if got else []),
            ]
        )


class ZeroGradRule(GradientMachine):
    """Zeroing a leaf's gradient (an engine whose gradients can be written)."""

    # Zeroing is judged by the passes after it (a total kept aside comes back only then): it
    # waits until a leaf holds a gradient, prefers such a leaf, and half the time a pass that
    # reaches the zeroed leaf follows at once, so that this sequence is common in a short run.
    @precondition(lambda self: bool(self._holding()))
    @rule(data=st.data())
    def zero_grad(self, data: Any) -> None:
        self._zero_grad(data)


class BinaryRule(GradientMachine):
    """A binary op of the machine's on two nodes drawn."""

    @rule(data=st.data())
    def binary(self, data: Any) -> None:
        op = data.draw(st.sampled_from(self.binary_ops))
        n = len(self.values)
        a, b = data.draw(st.integers(0, n - 1)), data.draw(st.integers(0, n - 1))
        # outside the domain (b == 0 for div): fall back to an op valid everywhere
        if self._valid(op, None, (a, b)):
            self._add(op, None, (a, b))
        else:
            self._fallback(a)


class UnaryRule(GradientMachine):
    """A unary op of the machine's (with its constant) on a node drawn."""

    @rule(data=st.data())
    def unary(self, data: Any) -> None:
        op = data.draw(st.sampled_from(self.unary_ops))
        a = data.draw(st.integers(0, len(self.values) - 1))
        name, c = op
        if self._valid(name, c, (a,)) and not (name == "relu" and self.exact[a] == 0):
            self._add(name, c, (a,))
        else:
            self._fallback(a)


class HigherOrderRules(GradientMachine):
    """create_graph passes and the derivative of a leaf's Value gradient (higher-order engines)."""

    @rule(data=st.data())
    def backward_create_graph(self, data: Any) -> None:
        # a coin flip prefers the newest node, whose second derivatives involve the most ops
        newest = len(self.values) - 1
        y = newest if data.draw(st.booleans()) else data.draw(st.integers(0, newest))
        if self._crosses_freed(y):
            return
        self.script.append(f"v{y}.{self.eng.backward_method}(create_graph=True)")
        self._engine(functools.partial(self.eng.backward, create_graph=True), self.values[y])
        model_backward(self.args, self.ops, self.exact, self.model, y, self.convention)
        self._free(y)
        reached = reachable(self.args, y)
        leaves = [k for k in range(len(self.values)) if self.args[k] is None]
        symbols, point = [self.exprs[j] for j in leaves], [self.exact[j] for j in leaves]
        for k in reached:
            self.is_value[k] = True
            if self.args[k] is None and self.args[y] is not None:
                first = sympy.diff(self.exprs[y], self.exprs[k])
                row = self.second.setdefault(k, {})
                for j in leaves:
                    (d,) = certify(symbols, [sympy.diff(first, self.exprs[j])], point)
                    row[j] = row.get(j, Fraction(0)) + d.value  # rational ops: a Fraction
        self.unknown -= reached
        if data.draw(st.booleans()):  # at once, half the time: the commonest way to use it
            self.differentiate_a_gradient(data)

    @precondition(lambda self: any(self.is_value[k] for k in self._leaves()))
    @rule(data=st.data())
    def differentiate_a_gradient(self, data: Any) -> None:
        k = data.draw(st.sampled_from([k for k in self._leaves() if self.is_value[k]]))
        g = self._engine(self.eng.grad, self.values[k])
        if not isinstance(g, self.eng.Value):
            raise ModelMismatch(f"stateful: leaf v{k}'s gradient {g!r} is not a Value")
        want = self.second.get(k, {})
        self.script.append(f"g = v{k}.{self.eng.grad_attr}")
        for j in self._leaves():
            self.script.append(grad_assignment(self.eng, f"v{j}", self.values[j], 0))
            self._engine(self.eng.set_grad, self.values[j], 0)
            self.model[j] = want.get(j, Fraction(0))
            self.is_value[j] = False
            self.second.pop(j, None)
        self.script.append(f"g.{self.eng.backward_method}()")
        self._engine(self.eng.backward, g)
        self.unknown = {i for i, a in enumerate(self.args) if a is not None}
