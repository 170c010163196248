"""A scalar reverse-mode autograd engine.

A ``Value`` wraps one real number and remembers the Values it was computed from
(``_prev``) and the rule that sends gradient back to them (``_back``).  Each
operation below does two things: compute the value, and name the module-level
rule that says how gradient flows back.  Rules are plain functions shared by
every node (HIPS autograd's ``defvjp`` table, written as functions), never
closures: a closure that captures its own output node would put every node in a
reference cycle, and then Python's cyclic GC, not arithmetic, dominates the run
time.  A finished graph is freed by reference counting alone.

Semantics
---------
* ``y.backward()`` sets ``node.grad`` to d(y)/d(node) for every node reachable
  from ``y``.  Nodes are visited in topological order without recursion: a node
  fires its rule exactly once, after every consumer has delivered its share.
* A plain number an op meets (the 2 in ``x * 2``, ``2 - x``, ``2 ** x``, ``x ** 2``)
  is a constant: it rides along in the graph as a leaf, but no rule sends it
  gradient (PyTorch gives constants none), so its gradient, never computed,
  cannot overflow and stop a pass.  A Value the user made is never a constant.
* Leaves (Values not produced by an op: weights, inputs) *accumulate*
  gradient across ``backward()`` calls, as in PyTorch: two calls without zeroing
  give exactly twice the leaf gradients (each pass sums its own shares from 0
  and adds the total once, so this holds bit for bit with floats too).
  Interior nodes hold the gradient of the latest pass only.  Reset leaves with
  ``Module.zero_grad()`` (or ``v.grad = 0``).
* ``backward()`` keeps its visit marks on the nodes: two threads must not run
  it at the same time over shared nodes.
* Arithmetic is duck-typed: with ``int`` and ``fractions.Fraction`` data,
  ``+ - * /``, negation and integer powers stay exact (``int / int`` gives a
  Fraction, never a rounded float).  ``exp``, ``log``, ``tanh``, ``sigmoid``,
  non-integer powers and ``Value ** Value`` give floats (``Value ** Value`` of
  two ints stays exact, an int or a Fraction; its gradient involves a log, a float).
* Values hold finite real numbers only.  ``bool`` is rejected (``True`` is an
  int in Python, but almost always a mistake here), and so are NaN and the
  infinities.  Every error is raised by the operation that goes wrong, naming
  it and its operands: ``TypeError`` for non-numbers, ``ValueError`` for
  points outside an op's domain, ``ZeroDivisionError`` for division by zero and
  ``0 ** negative``, ``OverflowError`` when a result (or, in ``backward()``, a
  gradient) is too large for a float.
* ``relu``'s derivative at 0 is taken as 0, as in PyTorch.  ``x ** c`` with
  ``0 < c < 1`` at ``x == 0`` has an infinite derivative and is refused.

Higher order
------------
* ``y.backward(create_graph=True)`` runs each op's rule twin over Values (the
  table ``_RULES`` keeps each op's two rules side by side), so every reachable
  ``grad`` becomes a Value built from the graph's own nodes, differentiable
  again to any order, exact with int and Fraction data.  The accumulation
  rules are the first-order ones: leaves accumulate (a leaf's earlier
  gradient, number or Value, plus this pass's Value), interior nodes hold the
  latest pass only.  A following plain ``backward()`` sets interior grads to
  numbers again; a leaf that holds a Value keeps accumulating into a Value (as
  in PyTorch) until it is reset (``zero_grad()`` or ``v.grad = 0``).
* A Value stored in ``x.grad`` that depends on ``x`` is a reference cycle
  (PyTorch has the same): graphs differentiated with ``create_graph=True`` are
  freed by Python's cyclic garbage collector, not by reference counting.
* ``grad(output, inputs, create_graph=False)`` returns d(output)/d(input)
  without touching any ``.grad`` (every grad below ``output`` is put back), so
  it makes no cycle: the way to take derivatives of derivatives.
  ``hessian(f, inputs)`` and ``hvp(f, inputs, v)`` are built on it.
* A derivative that is infinite is refused when its node would be built, as in
  first order: ``x ** 1.5`` at ``x == 0`` differentiates once (to 0), but
  ``create_graph=True`` raises, since its second derivative is infinite there.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from numbers import Real
from typing import Any, Union

__all__ = ["Value", "dot", "grad", "hessian", "hvp", "vsum"]

#: The numbers a Value accepts: anything registered as ``numbers.Real`` except bool.
Scalar = Union[int, float, Fraction]
Operand = Union["Value", int, float, Fraction]
Rule = Callable[["Value"], None]

_INF = math.inf
_NEG_INF = -math.inf  # a constant: -_INF would build a new float at every check
_ZERO = 0  # (see _topological_order)


class Value:
    """One real number in a computation graph, with its gradient."""

    __slots__ = ("data", "grad", "_a", "_b", "_back", "_mark")

    data: Any
    grad: Any
    # The operands sit in two slots rather than in a tuple (one allocation, and
    # one object for the cyclic GC to track, less per node): _a and _b for a
    # binary op, _a alone for a unary op (_b is None), and for an n-ary op
    # (vsum, dot) a tuple of all operands in _a.  ``_prev`` gives them as a tuple.
    _a: Any
    _b: Any
    _back: Rule | None
    _mark: object  # backward()'s visit mark (see there)

    def __init__(self, data: Scalar) -> None:
        self.data = _check_number("Value", data)
        self.grad = 0
        self._a = self._b = self._back = self._mark = None

    @property
    def _prev(self) -> tuple[Value, ...]:
        """The operands this Value was computed from, in order (empty for a leaf)."""
        return _operands(self._a, self._b)

    @property
    def op(self) -> str:
        """The name of the operation that produced this Value ('' for a leaf)."""
        return "" if self._back is None else _RULE_NAMES[self._back]

    def __repr__(self) -> str:
        op = f", op={self.op!r}" if self._back is not None else ""
        return f"Value(data={self.data!r}, grad={self.grad!r}{op})"

    # ------------------------------------------------------------------ arithmetic
    def __add__(self, other: Operand) -> Value:
        if type(other) is not Value and not isinstance(other, Value):
            c = _wrap(other, "add", self)
            return _node(self.data + c.data, self, c, _addc_back)
        data = self.data + other.data
        if not _NEG_INF < data < _INF:
            raise _overflow("add", (self, other))
        # _node's work, inlined in the three commonest ops: a call costs ~10% here
        out: Value = _new(Value)
        out.data = data
        out.grad = 0
        out._a = self
        out._b = other
        out._back = _add_back
        out._mark = None
        return out

    def __sub__(self, other: Operand) -> Value:
        if type(other) is not Value and not isinstance(other, Value):
            c = _wrap(other, "sub", self)
            return _node(self.data - c.data, self, c, _subc_back)
        data = self.data - other.data
        if not _NEG_INF < data < _INF:
            raise _overflow("sub", (self, other))
        # _node's work, inlined (see __add__)
        out: Value = _new(Value)
        out.data = data
        out.grad = 0
        out._a = self
        out._b = other
        out._back = _sub_back
        out._mark = None
        return out

    def __mul__(self, other: Operand) -> Value:
        if type(other) is not Value and not isinstance(other, Value):
            c = _wrap(other, "mul", self)
            return _node(self.data * c.data, self, c, _mulc_back)
        data = self.data * other.data
        if not _NEG_INF < data < _INF:
            raise _overflow("mul", (self, other))
        # _node's work, inlined (see __add__)
        out: Value = _new(Value)
        out.data = data
        out.grad = 0
        out._a = self
        out._b = other
        out._back = _mul_back
        out._mark = None
        return out

    def __truediv__(self, other: Operand) -> Value:
        if isinstance(other, Value):
            back = _div_back
        else:
            other, back = _wrap(other, "div", self), _divc_back
        if other.data == 0:
            raise ZeroDivisionError(f"div: cannot divide {self.data!r} by zero ({other!r})")
        return _node(_div(self.data, other.data), self, other, back)

    def __neg__(self) -> Value:
        return _node(-self.data, self, None, _neg_back)

    # Python calls the reflected ops below only with a number on the left (``2 * x``):
    # a constant too, wrapped with the rule that sends it nothing (see _addc_back).
    def __radd__(self, other: Operand) -> Value:
        c = _wrap(other, "add", self)
        return _node(c.data + self.data, c, self, _radd_back)

    def __rsub__(self, other: Operand) -> Value:
        c = _wrap(other, "sub", self)
        return _node(c.data - self.data, c, self, _rsub_back)

    def __rmul__(self, other: Operand) -> Value:
        c = _wrap(other, "mul", self)
        return _node(c.data * self.data, c, self, _rmul_back)

    def __rtruediv__(self, other: Operand) -> Value:
        c = _wrap(other, "div", self)
        if self.data == 0:
            raise ZeroDivisionError(f"div: cannot divide {c.data!r} by zero ({self!r})")
        return _node(_div(c.data, self.data), c, self, _rdiv_back)

    def __pow__(self, exponent: Operand) -> Value:
        if isinstance(exponent, Value):
            return _value_pow(self, exponent, _value_pow_back)
        c = _check_number("pow", exponent, self)
        x = self.data
        if x < 0 and c % 1 != 0:
            raise ValueError(f"pow: negative base {x!r} with non-integer exponent {c!r}")
        if x == 0 and c < 0:
            raise ZeroDivisionError(f"pow: 0 cannot be raised to the negative power {c!r}")
        if x == 0 and 0 < c < 1:
            raise ValueError(f"pow: {x!r} ** {c!r} has an infinite derivative")
        try:
            out = _pow(x, c)
        except OverflowError:
            out = _INF
        # The exponent rides along as a constant leaf in the _b slot, so the rule
        # can read it like any operand; _pow_back sends it no gradient.
        return _node(out, self, _constant(c), _pow_back)

    def __rpow__(self, base: Operand) -> Value:
        return _value_pow(_wrap(base, "pow", self), self, _rpow_back)

    # ------------------------------------------------------------------ functions
    def exp(self) -> Value:
        """e ** self (inf past the float range)."""
        try:
            out = math.exp(self.data)
        except OverflowError:
            out = _INF
        return _node(out, self, None, _exp_back)

    def log(self) -> Value:
        """The natural logarithm; ``ValueError`` naming the argument unless it is > 0."""
        if self.data <= 0:
            raise ValueError(f"log: argument must be > 0, got {self.data!r}")
        return _node(math.log(self.data), self, None, _log_back)

    def tanh(self) -> Value:
        """The hyperbolic tangent (gradient ``1 - tanh**2``)."""
        x = self.data
        try:
            out = math.tanh(x)
        except OverflowError:  # an int or Fraction beyond float range, where tanh is +-1
            out = 1.0 if x > 0 else -1.0
        return _node(out, self, None, _tanh_back)

    def relu(self) -> Value:
        """max(self, 0); the gradient at 0 is 0 (the convention)."""
        x = self.data
        # x - x: 0 of x's type, never -0.0
        return _node(x if x > 0 else x - x, self, None, _relu_back)

    def sigmoid(self) -> Value:
        """The logistic function 1 / (1 + e ** -self), without overflow at either end."""
        x = self.data
        try:
            if x >= 0:  # two branches so that exp never sees a large positive argument
                out = 1.0 / (1.0 + math.exp(-x))
            else:
                e = math.exp(x)
                out = e / (1.0 + e)
        except OverflowError:  # an int or Fraction beyond float range
            out = 1.0 if x > 0 else 0.0
        return _node(out, self, None, _sigmoid_back)

    # ------------------------------------------------------------------ backward
    def backward(self, create_graph: bool = False) -> None:
        """Set every reachable node's ``grad`` to d(self)/d(node); leaves accumulate.

        Walking the nodes in topological order backwards (see
        ``_topological_order``) fires each node's rule once, when all of its
        gradient has arrived.  By default the gradients are plain numbers.  With
        ``create_graph=True`` each rule's twin over Values runs instead (the
        table ``_RULES``), so every reachable ``grad`` is a Value built from the
        graph's own nodes, which can be differentiated again.
        """
        if self._back is None:  # a leaf on its own: d(self)/d(self) = 1
            self.grad = _accumulate(self.grad, _constant(1)) if create_graph else self.grad + 1
            return
        order, leaves, before = _topological_order(self)
        try:
            if create_graph:
                self.grad = _constant(1)
                for node in reversed(order):
                    if type(node.grad) is Value:  # else nothing reached it: all its shares are 0
                        _GRAPH_RULES[node._back](node)  # type: ignore[index]
            else:
                self.grad = 1
                for node in reversed(order):
                    node._back(node)  # type: ignore[misc]  # only interior nodes are listed
        except BaseException as exc:  # e.g. float ** int out of range inside the pow rule
            for leaf in leaves:  # leave the leaves as they were before this pass
                leaf.grad = 0
            for leaf, earlier in zip(leaves, before):
                leaf.grad = earlier
            if isinstance(exc, OverflowError):
                raise OverflowError(f"backward: the gradient through {node.op} {node!r} overflowed") from exc
            raise
        if create_graph:
            for leaf, earlier in zip(leaves, before):
                leaf.grad = _accumulate(earlier, leaf.grad)
            for node in (*order, *leaves):
                if type(node.grad) is not Value:  # no share reached it
                    node.grad = _constant(0)
            return
        for leaf, earlier in zip(leaves, before):
            leaf.grad = earlier + leaf.grad
        for leaf in leaves:
            total = leaf.grad
            try:
                if _NEG_INF < total < _INF:
                    continue
            except TypeError:  # a Value kept from backward(create_graph=True); its + checked overflow
                continue
            raise OverflowError(f"backward: the gradient reaching {leaf!r} overflowed")

    # ------------------------------------------------------------------ debugging
    def to_dot(self) -> str:
        """The graph below this node as Graphviz DOT text (render with ``dot -Tpng``)."""
        lines = ["digraph autograd {", "  rankdir=LR;", "  node [shape=box];"]
        for node in _reachable(self):
            label = f"{node.op or 'leaf'}\ndata {node.data!r}\ngrad {node.grad!r}"
            lines.append(f'  n{id(node)} [label="{_dot_escape(label)}"];')
            for child in node._prev:
                lines.append(f"  n{id(child)} -> n{id(node)};")
        lines.append("}")
        return "\n".join(lines)


# ---------------------------------------------------------------------- n-ary ops
def vsum(values: Iterable[Operand]) -> Value:
    """The sum of many Values as ONE node (instead of a chain of ``add`` nodes)."""
    terms = tuple(_as_value(v, "vsum") for v in values)
    total: Any = 0
    for v in terms:
        total += v.data
    return _node(total, terms, None, _vsum_back)


def dot(ws: Sequence[Operand], xs: Sequence[Operand], start: Operand = 0) -> Value:
    """``start + ws[0]*xs[0] + ws[1]*xs[1] + ...`` as ONE node.

    The terms are added in exactly that order, so the result is bit-for-bit the
    one of ``sum((w * x for w, x in zip(ws, xs)), start)``.
    """
    if len(ws) != len(xs):
        raise ValueError(f"dot: length mismatch, {len(ws)} weights and {len(xs)} inputs")
    operands: tuple[Any, ...] = (*ws, *xs, start)
    if type(start) is Value:
        # All Values, the usual case: the type check rides along in the summing loop
        # (one loop instead of two: a neuron's forward pass is mostly this loop).
        total = start.data
        for w, x in zip(ws, xs):
            if type(w) is not Value or type(x) is not Value:
                break
            total += w.data * x.data
        else:
            return _node(total, operands, None, _dot_back)
    # numbers among the operands: make them constants, then sum again from the start
    operands = tuple(v if type(v) is Value else _as_value(v, "dot") for v in operands)
    n = len(ws)
    total = operands[-1].data
    for w, x in zip(operands[:n], operands[n:-1]):
        total += w.data * x.data
    return _node(total, operands, None, _dot_back)


# ---------------------------------------------------------------------- the graph walk
def _topological_order(root: Value) -> tuple[list[Value], list[Value], list[Any]]:
    """The interior nodes below ``root`` in topological order, its leaves, and what they held.

    An iterative depth-first search (an explicit stack, never recursion) marks
    each node it visits, so each interior node is listed exactly once, after
    every node it feeds on.  A node used twice by one op (``a * a``) is listed
    once and later simply receives two shares.  On the way it prepares the
    pass: every interior node's ``grad`` is set to 0 (a pass's gradient only),
    and so is every leaf's (each pass sums a leaf's shares from 0 and adds the
    total once).  ``before[i]`` is the gradient ``leaves[i]`` held before the
    pass; the leaves after the first ``len(before)`` held the int 0 already.
    """
    # Each node's _mark says where the search is with it.  The marks are
    # new objects for every pass, so a mark left by an earlier pass (even
    # one cut short by an error) never matches and nothing needs resetting.
    opened, listed = object(), object()
    order: list[Value] = []
    leaves: list[Value] = []  # each leaf once: first those kept with their gradient in before,
    before: list[Any] = []
    zeroed: list[Value] = []  # then those that held the int 0
    stack = [root]
    # bound methods, looked up once: this loop runs once per edge of the graph
    push, list_node, keep_leaf, keep_grad = stack.append, order.append, leaves.append, before.append
    list_zeroed = zeroed.append
    while stack:
        node = stack.pop()
        mark = node._mark
        if mark is opened:  # its inputs are all listed now
            node._mark = listed
            list_node(node)
        elif mark is not listed:  # first visit: list it after its inputs
            node._mark = opened
            node.grad = 0  # interior: this pass's gradient only
            push(node)
            a, b = node._a, node._b
            for child in (a, b) if b is not None else a if type(a) is tuple else (a,):
                if child._mark is listed:
                    continue  # already listed in this pass (leaves are listed at once)
                if child._back is None:
                    child._mark = listed
                    # After zero_grad() a leaf holds the int 0 (CPython has one int 0, so `is` finds
                    # it): its shares can be summed in place, 0 + total being total.  Anything else
                    # (0.0, -0.0, a Value) is kept and added back after the pass.
                    if child.grad is _ZERO:
                        list_zeroed(child)
                    else:
                        keep_leaf(child)
                        keep_grad(child.grad)
                        child.grad = 0
                else:
                    push(child)  # (an opened child would mean a cycle)
        # listed: a stale second copy on the stack, already listed
    leaves += zeroed
    return order, leaves, before


def _reachable(root: Value) -> list[Value]:
    """Every node below ``root`` (itself included) once, leaves too, without recursion."""
    seen = {id(root)}
    nodes, stack = [], [root]
    while stack:
        node = stack.pop()
        nodes.append(node)
        for child in node._prev:
            if id(child) not in seen:
                seen.add(id(child))
                stack.append(child)
    return nodes


# ---------------------------------------------------------------------- rules
# Each op has two rules, written next to each other.  Both receive the output
# node, whose .grad is final, and add each operand's share of it.  The first,
# on numbers, is backward()'s fast path; the second, its twin for
# backward(create_graph=True), is the same formula over Values: where the first
# reads a number (``b.data``, ``out.data``), the twin uses the node itself
# (``b``, ``out``), so that the gradient it builds depends on the graph and can
# be differentiated again.  Shares are added (+=, or _give), never assigned: an
# operand may be used by several ops, or twice by one op.
def _add_back(out: Value) -> None:
    a, b = out._a, out._b
    a.grad += out.grad
    b.grad += out.grad


def _add_back_graph(out: Value) -> None:
    _give(out._a, out.grad)
    _give(out._b, out.grad)


def _sub_back(out: Value) -> None:
    a, b = out._a, out._b
    a.grad += out.grad
    b.grad -= out.grad


def _sub_back_graph(out: Value) -> None:
    _give(out._a, out.grad)
    _give(out._b, -out.grad)


def _mul_back(out: Value) -> None:
    a, b = out._a, out._b
    a.grad += out.grad * b.data
    b.grad += out.grad * a.data


def _mul_back_graph(out: Value) -> None:
    a, b = out._a, out._b
    _give(a, out.grad * b)
    _give(b, out.grad * a)


def _div_back(out: Value) -> None:
    a, b = out._a, out._b
    a.grad += _div(out.grad, b.data)
    b.grad -= _div(out.grad * out.data, b.data)  # d(a/b)/db = -(a/b)/b


def _div_back_graph(out: Value) -> None:
    a, b = out._a, out._b
    _give(a, out.grad / b)
    _give(b, -(out.grad * out / b))


def _neg_back(out: Value) -> None:
    a = out._a
    a.grad -= out.grad


def _neg_back_graph(out: Value) -> None:
    _give(out._a, -out.grad)


def _pow_back(out: Value) -> None:
    a, exponent = out._a, out._b  # the exponent is a constant: it gets no gradient
    c = exponent.data
    if c != 0:  # d(x**0)/dx = 0 everywhere, including at x = 0
        a.grad += out.grad * (c * _pow(a.data, c - 1))


def _pow_back_graph(out: Value) -> None:
    # a ** (c - 1) is an op like any other: at a = 0 with 1 < c < 2 it refuses
    # to be built, because its own derivative (the second one) is infinite
    a, c = out._a, out._b.data
    if c != 0:
        _give(a, out.grad * (c * a ** (c - 1)))


def _value_pow_back(out: Value) -> None:
    a, b = out._a, out._b
    # the partial first, then the incoming gradient: b * a ** (b - 1) is 0 where a ** (b - 1)
    # underflows, and a huge gradient times a huge b would overflow first (inf * 0: nan)
    a.grad += out.grad * (b.data * _pow(a.data, b.data - 1))
    b.grad += out.grad * (out.data * math.log(a.data))


def _value_pow_back_graph(out: Value) -> None:
    a, b = out._a, out._b
    _give(a, out.grad * (b * a ** (b - 1)))
    _give(b, out.grad * (out * a.log()))


# A number an op meets (the 2 in ``x * 2``, ``2 * x`` and ``2 ** x``) is wrapped
# into a constant leaf, and the op takes the rule below that sends that constant
# nothing: its gradient is never computed (as PyTorch gives constants none), so
# it cannot overflow and stop a pass whose gradients are finite.  The rule is
# picked when the node is built, so ordinary ops pay nothing for it.  ``x ** c``
# is the same case (_pow_back).  The name says where the constant sits: ``c``
# after the op for the right operand (``x - c``), ``r`` before it for the left
# one (``c - x``, Python's reflected ``__rsub__``).
def _addc_back(out: Value) -> None:
    a = out._a
    a.grad += out.grad


def _addc_back_graph(out: Value) -> None:
    _give(out._a, out.grad)


def _radd_back(out: Value) -> None:
    b = out._b
    b.grad += out.grad


def _radd_back_graph(out: Value) -> None:
    _give(out._b, out.grad)


def _subc_back(out: Value) -> None:
    a = out._a
    a.grad += out.grad


def _subc_back_graph(out: Value) -> None:
    _give(out._a, out.grad)


def _rsub_back(out: Value) -> None:
    b = out._b
    b.grad -= out.grad


def _rsub_back_graph(out: Value) -> None:
    _give(out._b, -out.grad)


def _mulc_back(out: Value) -> None:
    a = out._a
    a.grad += out.grad * out._b.data


def _mulc_back_graph(out: Value) -> None:
    _give(out._a, out.grad * out._b.data)


def _rmul_back(out: Value) -> None:
    b = out._b
    b.grad += out.grad * out._a.data


def _rmul_back_graph(out: Value) -> None:
    _give(out._b, out.grad * out._a.data)


def _divc_back(out: Value) -> None:
    a = out._a
    a.grad += _div(out.grad, out._b.data)


def _divc_back_graph(out: Value) -> None:
    _give(out._a, out.grad / out._b.data)


def _rdiv_back(out: Value) -> None:
    x = out._b
    x.grad -= _div(out.grad * out.data, x.data)  # d(c/x)/dx = -(c/x)/x


def _rdiv_back_graph(out: Value) -> None:
    x = out._b
    if out._a.data != 0:  # 0 / x is 0 for every x: its derivatives too (that of -(0/x)/x holds 1/x)
        _give(x, -(out.grad * out / x))


def _rpow_back(out: Value) -> None:
    b = out._b
    b.grad += out.grad * out.data * math.log(out._a.data)


def _rpow_back_graph(out: Value) -> None:
    _give(out._b, out.grad * out * math.log(out._a.data))


def _exp_back(out: Value) -> None:
    a = out._a
    a.grad += out.grad * out.data


def _exp_back_graph(out: Value) -> None:
    _give(out._a, out.grad * out)


def _log_back(out: Value) -> None:
    a = out._a
    a.grad += _div(out.grad, a.data)


def _log_back_graph(out: Value) -> None:
    a = out._a
    _give(a, out.grad / a)


def _tanh_back(out: Value) -> None:
    a = out._a
    a.grad += out.grad * (1 - out.data * out.data)


def _tanh_back_graph(out: Value) -> None:
    _give(out._a, out.grad * (1 - out * out))


def _relu_back(out: Value) -> None:
    a = out._a
    if out.data > 0:
        a.grad += out.grad


def _relu_back_graph(out: Value) -> None:
    # the slope is a constant 0 or 1, so relu's own second derivative is 0 (away from the kink)
    if out.data > 0:
        _give(out._a, out.grad)


def _sigmoid_back(out: Value) -> None:
    a = out._a
    a.grad += out.grad * out.data * (1 - out.data)


def _sigmoid_back_graph(out: Value) -> None:
    _give(out._a, out.grad * out * (1 - out))


def _vsum_back(out: Value) -> None:
    g = out.grad
    for v in out._prev:
        v.grad += g


def _vsum_back_graph(out: Value) -> None:
    g = out.grad
    for v in out._prev:
        _give(v, g)


def _dot_back(out: Value) -> None:
    g = out.grad
    if not g:  # nothing arrives (as behind an inactive relu): every share is 0, as relu's rule has it
        return
    prev = out._a
    n = len(prev) // 2  # prev = (*ws, *xs, start)
    for w, x in zip(prev[:n], prev[n:-1]):
        w.grad += g * x.data
        x.grad += g * w.data
    prev[-1].grad += g


def _dot_back_graph(out: Value) -> None:
    g = out.grad
    prev = out._a
    n = len(prev) // 2
    for w, x in zip(prev[:n], prev[n:-1]):
        _give(w, g * x)
        _give(x, g * w)
    _give(prev[-1], g)


def _give(node: Value, share: Value) -> None:
    """The twins' ``node.grad += share``: a graph pass starts every grad at the number 0,
    and the first share is kept as it is (no ``0 + share`` node)."""
    grad = node.grad
    node.grad = grad + share if type(grad) is Value else share


# The rule table: each op's name, its rule on numbers and the rule's twin over
# Values.  The two agree (tests/test_higher_order.py and the harness check that
# graph-mode gradients equal the fast path's, exactly on rational graphs).
_RULES: dict[Rule, tuple[str, Rule]] = {
    _add_back: ("add", _add_back_graph),
    _sub_back: ("sub", _sub_back_graph),
    _mul_back: ("mul", _mul_back_graph),
    _div_back: ("div", _div_back_graph),
    _neg_back: ("neg", _neg_back_graph),
    _pow_back: ("pow", _pow_back_graph),
    _value_pow_back: ("pow", _value_pow_back_graph),
    _addc_back: ("add", _addc_back_graph),
    _radd_back: ("add", _radd_back_graph),
    _subc_back: ("sub", _subc_back_graph),
    _rsub_back: ("sub", _rsub_back_graph),
    _mulc_back: ("mul", _mulc_back_graph),
    _rmul_back: ("mul", _rmul_back_graph),
    _divc_back: ("div", _divc_back_graph),
    _rdiv_back: ("div", _rdiv_back_graph),
    _rpow_back: ("pow", _rpow_back_graph),
    _exp_back: ("exp", _exp_back_graph),
    _log_back: ("log", _log_back_graph),
    _tanh_back: ("tanh", _tanh_back_graph),
    _relu_back: ("relu", _relu_back_graph),
    _sigmoid_back: ("sigmoid", _sigmoid_back_graph),
    _vsum_back: ("vsum", _vsum_back_graph),
    _dot_back: ("dot", _dot_back_graph),
}
_RULE_NAMES: dict[Rule, str] = {rule: name for rule, (name, _) in _RULES.items()}
_GRAPH_RULES: dict[Rule, Rule] = {rule: twin for rule, (_, twin) in _RULES.items()}


# ---------------------------------------------------------------------- higher order
def grad(output: Value, inputs: Iterable[Value], create_graph: bool = False) -> list[Any]:
    """d(output)/d(input) for each of ``inputs``, touching no ``.grad`` (like ``torch.autograd.grad``).

    The results are numbers, or with ``create_graph=True`` Values that depend on
    the graph, so that ``grad`` can take them again.  An input that ``output``
    does not depend on gets 0.  Every ``.grad`` below ``output`` is kept and
    put back afterwards, so the pass leaves no trace (and no reference cycle).
    """
    if not isinstance(output, Value):
        raise TypeError(f"grad: output must be a Value, got {output!r} ({type(output).__name__})")
    inputs = _values_list("grad", inputs)
    saved = {id(node): (node, node.grad) for node in (*_reachable(output), *inputs)}
    for node, _ in saved.values():
        node.grad = 0  # so that the leaves' results are this pass's shares alone
    try:
        output.backward(create_graph=create_graph)
        grads = [v.grad for v in inputs]
    finally:
        for node, before in saved.values():
            node.grad = before
    if create_graph:  # an input output does not depend on still holds the number 0
        return [g if type(g) is Value else _constant(g) for g in grads]
    return grads


def hessian(f: Callable[..., Value], inputs: Sequence[Scalar]) -> list[list[Any]]:
    """The matrix of second derivatives ``H[i][j] = d2 f / dx_i dx_j`` at ``inputs``.

    ``f`` takes one Value per input (like ``gradcheck``); ``inputs`` are numbers.
    One pass builds the gradient as Values, then one pass per input differentiates it.
    """
    xs = _leaves("hessian", inputs)
    return [grad(g, xs) for g in _gradient_graph("hessian", f, xs)]


def hvp(f: Callable[..., Value], inputs: Sequence[Scalar], v: Sequence[Scalar]) -> list[Any]:
    """The Hessian of ``f`` at ``inputs`` times the vector ``v``, without forming the Hessian.

    Two passes whatever the number of inputs: d/dx of (gradient . v).
    """
    xs = _leaves("hvp", inputs)
    if isinstance(v, Value) or not isinstance(v, Sequence):
        raise TypeError(f"hvp: v must be a list of numbers, got {v!r} ({type(v).__name__})")
    if len(v) != len(xs):
        raise ValueError(f"hvp: v has {len(v)} entries but there are {len(xs)} inputs")
    direction = [_check_number("hvp", c) for c in v]
    return grad(dot(_gradient_graph("hvp", f, xs), direction), xs)


def _leaves(op: str, inputs: Sequence[Scalar]) -> list[Value]:
    """A new leaf for each of ``inputs``, which must be numbers (for hessian and hvp)."""
    if isinstance(inputs, Value) or not isinstance(inputs, Sequence):
        raise TypeError(f"{op}: inputs must be a list of numbers, got {inputs!r} ({type(inputs).__name__})")
    xs = []
    for x in inputs:
        if isinstance(x, Value):
            raise TypeError(f"{op}: inputs are numbers (f receives Values made from them), got {x!r}")
        xs.append(_constant(_check_number(op, x)))
    return xs


def _gradient_graph(op: str, f: Callable[..., Value], xs: list[Value]) -> list[Any]:
    """The gradient of ``f`` at the leaves ``xs``, as Values (for hessian and hvp)."""
    out = f(*xs)
    if not isinstance(out, Value):
        raise TypeError(f"{op}: f must return a Value, got {out!r} ({type(out).__name__})")
    return grad(out, xs, create_graph=True)


def _values_list(op: str, values: Iterable[Value]) -> list[Value]:
    if isinstance(values, Value):
        raise TypeError(f"{op}: inputs must be a list of Values, got the single Value {values!r}; pass [it]")
    try:
        values = list(values)
    except TypeError:
        raise TypeError(f"{op}: inputs must be a list of Values, got {values!r}") from None
    for i, v in enumerate(values):
        if not isinstance(v, Value):
            raise TypeError(f"{op}: inputs[{i}] is {v!r} ({type(v).__name__}), not a Value")
    return values


def _accumulate(before: Any, now: Any) -> Value:
    """A leaf's gradient after a create_graph pass: its earlier gradient plus this pass's Value."""
    if type(now) is not Value:  # no share reached the leaf in this pass
        return before if type(before) is Value else _constant(before)
    if before == 0:  # (never true of a Value: Values compare by identity)
        return now  # no `0 + now` node
    return before + now  # type: ignore[no-any-return]


# ---------------------------------------------------------------------- helpers
_new = object.__new__


def _node(data: Any, a: Any, b: Any, back: Rule) -> Value:
    """A new interior node with operands ``a`` and ``b`` (see Value's slots).

    Refuses a result too large for a float.
    """
    if not _NEG_INF < data < _INF:
        raise _overflow(_RULE_NAMES[back], _operands(a, b))
    out: Value = _new(Value)
    out.data = data
    out.grad = 0
    out._a = a
    out._b = b
    out._back = back
    out._mark = None
    return out


def _overflow(op: str, operands: tuple[Value, ...]) -> OverflowError:
    shown = ", ".join(repr(v.data) for v in operands)
    return OverflowError(f"{op}: result of {op}({shown}) is too large for a float")


def _operands(a: Any, b: Any) -> tuple[Value, ...]:
    """The operands kept in a node's _a and _b slots, as a tuple."""
    if b is not None:
        return (a, b)
    if a is None:
        return ()
    return a if type(a) is tuple else (a,)


def _value_pow(base: Value, exponent: Value, back: Rule) -> Value:
    x, y = base.data, exponent.data
    if x <= 0:
        raise ValueError(f"pow: a Value exponent needs a base > 0, got base {x!r} ** {y!r}")
    try:
        out = _pow(x, y)
    except OverflowError:
        out = _INF
    return _node(out, base, exponent, back)


def _check_number(op: str, x: Any, *context: Any) -> Any:
    """Return ``x`` if it is a finite real number, else raise naming ``op``."""
    if type(x) in _EXACT_TYPES or (isinstance(x, Real) and not isinstance(x, bool)):
        if _NEG_INF < x < _INF:
            return x
        raise ValueError(f"{op}: {x!r} is not finite; Values hold finite numbers only")
    with_ = f" with {context[0]!r}" if context else ""
    if isinstance(x, bool):
        raise TypeError(f"{op}: bool {x!r}{with_} is not accepted as a number; use int({x!r})")
    raise TypeError(f"{op}: expected a real number or Value{with_}, got {x!r} ({type(x).__name__})")


def _as_value(x: Any, op: str) -> Value:
    if isinstance(x, Value):
        return x
    return _constant(_check_number(op, x))


def _wrap(x: Any, op: str, value: Value) -> Value:
    """The number ``x`` that ``op`` meets beside ``value``, as a constant leaf (checked first)."""
    return _constant(_check_number(op, x, value))


def _constant(x: Any) -> Value:
    leaf: Value = _new(Value)
    leaf.data = x
    leaf.grad = 0
    leaf._a = leaf._b = leaf._back = leaf._mark = None
    return leaf


def _div(x: Any, y: Any) -> Any:
    """``x / y``, exact for ints (Python's int / int would round to a float)."""
    if type(x) is int and type(y) is int:
        return Fraction(x, y)
    return x / y


def _pow(x: Any, c: Any) -> Any:
    """``x ** c``, exact for an int base and negative int exponent."""
    if type(x) is int and type(c) is int and c < 0:
        return Fraction(x) ** c
    return x**c


def _dot_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


_EXACT_TYPES = (int, float, Fraction)
