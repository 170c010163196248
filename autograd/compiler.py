"""Trace once, run straight-line Python: ``autograd.compile(f, example_inputs)``.

``compile`` calls ``f`` once on engine Values made from ``example_inputs`` (the
tracing run: the engine's own ops build the engine's own graph), then writes
the graph out as Python source, one line per op, forward pass then backward
pass, each op's rule from the engine's rule table emitted as code, and compiles
it with the builtin ``compile()``.  The result maps numbers to numbers, with no
Values, no graph and no loops.

Same numbers, same order
    The forward lines are the engine's arithmetic for each op (``dot`` is
    ``start + w0*x0 + w1*x1 + ...``, ``relu`` is ``x if x > 0 else x - x``);
    the backward lines fire the rules in the order ``backward()`` fires them
    (``engine._topological_order``), each gradient starting at the int 0 and
    receiving its shares with ``+=``/``-=``, as the engine's rules add them.
    So floats come out bit for bit the interpreter's, ints and Fractions
    exactly equal (the code is duck-typed like the engine).

Same errors
    The generated code checks nothing per op.  Where the engine would refuse
    something, Python raises too (division by zero, ``math.log`` of a
    non-positive number, ``math.exp`` overflow), an explicit guard is emitted
    (``pow``'s domain), or a non-finite number appears, which one ``sum`` over
    every value and leaf gradient detects at the end.  Then, and for inputs
    that are not plain ``int``/``float``/``Fraction``, the call is run again by
    the interpreter on the recorded graph (the engine's own ops): it raises
    the interpreter's error at the interpreter's op, with its message, or
    returns the interpreter's result.

What cannot be traced
    While ``f`` runs, a traced Value (one that depends on an input) refuses
    ``bool()``, ``< <= > >=``, ``float()``/``int()``/``round()`` and reading or
    writing ``.data``, raising :class:`TraceError` naming the line: Python
    control flow cannot follow a value that changes from call to call.
    ``backward()``/``grad()`` without ``create_graph=True`` inside ``f``
    computes plain numbers from the data, and is refused the same way; with
    ``create_graph=True`` the derivative is part of the graph and compiles like
    any op (Hessians, hvps, Newton steps), except through ``relu``, whose
    graph-mode rule builds a different graph on either side of its kink.
    Everything else ``f`` uses that is not an input is a constant baked into
    the code: :attr:`Compiled.constants` lists each with the line that made or
    first used it.

Tracing patches ``Value`` for the length of the call to ``f`` (a lock keeps
traces apart); another thread using the engine meanwhile would be traced too.
"""

from __future__ import annotations

import builtins
import linecache
import math
import re
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from autograd import engine
from autograd.engine import Value, dot, vsum

__all__ = ["Compiled", "Constant", "TraceError", "compile"]


class TraceError(TypeError):
    """``f`` did something with a traced Value that a trace cannot record (the message names the line)."""


@dataclass(frozen=True)
class Constant:
    """A number baked into the compiled code: a change to it needs a new ``compile``."""

    value: Any
    kind: str  # "number": a number f used as an operand; "Value": a Value that is not an input
    where: str  # the line of f that made it (number) or first used it (Value)

    def __str__(self) -> str:
        return f"{self.value!r} ({self.kind}, {self.where})"


# ---------------------------------------------------------------------- tracing
_ENGINE_GLOBALS = vars(engine)
_OWN_GLOBALS = globals()
_DATA_SLOT = Value.__dict__["data"]
#: engine functions whose reading of a traced value would bake a number into the trace, by name
_FIRST_ORDER_RULES = {rule.__name__ for rule in engine._RULES}
_RELU_GRAPH_RULE = engine._relu_back_graph.__name__


def _function_name(code: Any) -> str:
    """The name of the function running ``code`` (mutmut runs ``f`` as ``x_f__mutmut_N``)."""
    name: str = code.co_name
    if name.startswith("x_") and "__mutmut_" in name:
        return name[2 : name.index("__mutmut_")]
    return name


_TRACE_LOCK = threading.Lock()
_active: _Trace | None = None


class _Trace:
    """What one run of ``f`` created, and which Values depend on the inputs."""

    def __init__(self, inputs: list[Value]) -> None:
        self.inputs = inputs
        self.created: list[Value] = []  # every node the engine made during the run, in order
        self.made_at: dict[int, Any] = {}  # id(node) -> (code, line) of the user's code that made it
        self.traced: dict[int, bool] = {id(v): True for v in inputs}

    def new(self, cls: type) -> Any:
        node: Value = object.__new__(cls)
        self.created.append(node)
        frame = _user_frame(_caller())
        self.made_at[id(node)] = (frame.f_code, frame.f_lineno) if frame is not None else None
        return node

    def where(self, node: Value) -> str | None:
        """The user's line that made ``node`` during the trace (None if it was not made then)."""
        if id(node) not in self.made_at:
            return None
        at = self.made_at[id(node)]
        return "<unknown line>" if at is None else _line(*at)

    def is_traced(self, node: Value) -> bool:
        """Does ``node`` depend on an input?  (An iterative walk, memoised.)"""
        known = self.traced
        stack = [node]
        while stack:
            top = stack[-1]
            if id(top) in known:
                stack.pop()
                continue
            if top._back is None or id(top) not in self.made_at:  # a leaf, or made before the trace
                known[id(top)] = False
                stack.pop()
                continue
            operands = engine._operands(top._a, top._b)
            pending = [c for c in operands if id(c) not in known]
            if pending:
                stack.extend(pending)
                continue
            known[id(top)] = any(known[id(c)] for c in operands)
            stack.pop()
        return known[id(node)]


def _user_frame(frame: Any) -> Any:
    """The first frame outside the engine and this module (the user's code)."""
    while frame is not None and (
        frame.f_globals.get("__name__") in (engine.__name__, __name__) or _is_wrapper(frame)
    ):
        frame = frame.f_back
    return frame


def _caller() -> Any:
    """The frame that called the caller of this function, seen through mutmut's trampolines
    (under mutation testing each function here runs behind one)."""
    frame: Any = sys._getframe(2)
    while frame is not None and (frame.f_globals is _OWN_GLOBALS or _is_wrapper(frame)):
        frame = frame.f_back
    return frame


def _is_wrapper(frame: Any) -> bool:
    return str(frame.f_globals.get("__name__", "")).startswith("mutmut")


def _where(frame: Any) -> str:
    frame = _user_frame(frame)
    return "<unknown line>" if frame is None else _line(frame.f_code, frame.f_lineno)


def _line(code: Any, lineno: int) -> str:
    text = linecache.getline(code.co_filename, lineno).strip()
    shown = f": {text}" if text else ""
    return f"{code.co_filename}:{lineno} in {code.co_name}{shown}"


def _get_data(node: Value) -> Any:
    raw = _DATA_SLOT.__get__(node, Value)
    trace = _active
    frame = _caller()
    if trace is None or not trace.is_traced(node):
        return raw
    reader = _function_name(frame.f_code) if frame.f_globals is _ENGINE_GLOBALS else ""
    if reader in _FIRST_ORDER_RULES:
        raise TraceError(
            f"backward() or grad() without create_graph=True at {_where(frame)} computes plain numbers "
            "from the traced values, which the compiled code would keep as constants; pass create_graph=True"
        )
    if reader == _RELU_GRAPH_RULE:
        raise TraceError(
            f"a derivative through relu taken with create_graph=True at {_where(frame)}: its graph depends "
            "on which side of the kink relu's input lies, so one trace cannot serve every input"
        )
    if frame.f_globals is _ENGINE_GLOBALS:  # the engine's own arithmetic: what the trace records
        return raw
    raise TraceError(
        f"reading .data of a traced Value at {_where(frame)}: its number changes from call to call, "
        "so Python code cannot branch on it or use it; use the Value itself (relu and the other ops "
        "need no branch), or compute it outside the compiled function"
    )


def _set_data(node: Value, x: Any) -> None:
    trace = _active
    frame = _caller()
    if trace is not None and frame.f_globals is not _ENGINE_GLOBALS and trace.is_traced(node):
        raise TraceError(f"assigning .data of a traced Value at {_where(frame)}; the trace cannot record it")
    _DATA_SLOT.__set__(node, x)


def _refusal(what: str, untraced: Callable[[Any], Any]) -> Callable[..., Any]:
    def refuse(self: Value, *args: Any) -> Any:
        trace = _active
        if trace is None or not trace.is_traced(self):
            return untraced(self)
        raise TraceError(
            f"{what} of a traced Value at {_where(_caller())}: Python control flow cannot depend "
            "on a value that changes from call to call (use relu and the other ops, which need no branch)"
        )

    return refuse


def _not_a_number(self: Value) -> Any:
    raise TypeError(f"a Value is not a number: {self!r}")


_REFUSED = {
    "__bool__": _refusal("bool()", lambda self: True),
    "__lt__": _refusal("a comparison (<)", lambda self: NotImplemented),
    "__le__": _refusal("a comparison (<=)", lambda self: NotImplemented),
    "__gt__": _refusal("a comparison (>)", lambda self: NotImplemented),
    "__ge__": _refusal("a comparison (>=)", lambda self: NotImplemented),
    "__float__": _refusal("float()", _not_a_number),
    "__int__": _refusal("int()", _not_a_number),
    "__index__": _refusal("use as an index", _not_a_number),
    "__complex__": _refusal("complex()", _not_a_number),
    "__round__": _refusal("round()", _not_a_number),
    "__trunc__": _refusal("math.trunc()", _not_a_number),
    "__floor__": _refusal("math.floor()", _not_a_number),
    "__ceil__": _refusal("math.ceil()", _not_a_number),
}


@contextmanager
def _tracing(inputs: list[Value]) -> Iterator[_Trace]:
    """Value patched so that traced values refuse what a trace cannot record; the engine's
    node allocation recorded."""
    global _active
    with _TRACE_LOCK:
        trace = _Trace(inputs)
        _active = trace
        saved_new = engine._new
        engine._new = trace.new
        Value.data = property(_get_data, _set_data)  # type: ignore[misc]
        for name, method in _REFUSED.items():
            setattr(Value, name, method)
        try:
            yield trace
        finally:
            for name in _REFUSED:
                delattr(Value, name)
            Value.data = _DATA_SLOT  # type: ignore[misc]
            engine._new = saved_new
            _active = None


# ---------------------------------------------------------------------- the result
_PLAIN_TYPES = frozenset((int, float, Fraction))


class _NonFinite(ArithmeticError):
    """The fast path met a number the engine would refuse: the interpreter takes over."""


class Compiled:
    """``f`` compiled: ``c(inputs)`` gives ``(output, gradient)``, ``c.value(inputs)`` the output alone.

    ``output`` has the shape of ``f``'s result with numbers for Values; ``gradient`` is
    d(first output)/d(input) for each input (the first output is ``f``'s result if it is a
    Value, else its first item).  Attributes: ``source`` (the generated Python),
    ``constants`` (what is baked in), ``n_inputs``, ``n_ops`` (op nodes in the trace).
    """

    __slots__ = ("_fast", "_fast_value", "_program", "constants", "n_inputs", "n_ops", "source")

    def __init__(self, program: _Program) -> None:
        self._program = program
        self.source, self._fast = _build(program, gradient=True)
        self._fast_value: Callable[..., Any] | None = None  # written when first asked for
        self.constants = program.constants
        self.n_inputs = len(program.inputs)
        self.n_ops = len(program.ops)

    @property
    def value_source(self) -> str:
        """The generated source of the forward pass alone (``value``)."""
        return _generate(self._program, gradient=False)[0]

    def __call__(self, inputs: Sequence[Any]) -> tuple[Any, list[Any]]:
        if len(inputs) != self.n_inputs:
            raise ValueError(f"compiled function: expected {self.n_inputs} inputs, got {len(inputs)}")
        if _PLAIN_TYPES.issuperset(map(type, inputs)):
            try:
                return self._fast(*inputs)  # type: ignore[no-any-return]
            except (ArithmeticError, ValueError, TypeError):
                pass
        result: tuple[Any, list[Any]] = self.interpret(inputs)
        return result

    def value(self, inputs: Sequence[Any]) -> Any:
        """The output alone at ``inputs`` (one per input), without the gradient pass."""
        if len(inputs) != self.n_inputs:
            raise ValueError(f"compiled function: expected {self.n_inputs} inputs, got {len(inputs)}")
        if self._fast_value is None:
            self._fast_value = _build(self._program, gradient=False)[1]
        if _PLAIN_TYPES.issuperset(map(type, inputs)):
            try:
                return self._fast_value(*inputs)
            except (ArithmeticError, ValueError, TypeError):
                pass
        return self.interpret(inputs, gradient=False)

    def run_generated(self, inputs: Sequence[Any], gradient: bool = True) -> Any:
        """The generated code alone, with no interpreter to fall back on: what the tests judge.

        Where the engine would raise, it raises something (not necessarily the engine's error).
        """
        if gradient:
            return self._fast(*inputs)
        if self._fast_value is None:
            self._fast_value = _build(self._program, gradient=False)[1]
        return self._fast_value(*inputs)

    def interpret(self, inputs: Sequence[Any], gradient: bool = True) -> Any:
        """The same call run by the engine on the recorded graph (what the fast path falls back to)."""
        return self._program.replay(inputs, gradient)

    def __repr__(self) -> str:
        return (
            f"<compiled {self._program.name}: {self.n_inputs} inputs, {self.n_ops} ops, "
            f"{len(self.constants)} constants, {self.source.count(chr(10))} lines>"
        )


# ---------------------------------------------------------------------- the recorded program
class _Program:
    """The trace, flattened: inputs, constants and op nodes in creation order, the outputs' shape."""

    def __init__(self, name: str, trace: _Trace, result: Any) -> None:
        self.name = name
        self.inputs = trace.inputs
        self.shape, outputs = _flatten(result)
        self.outputs: list[Value] = outputs
        created_ids = {id(n) for n in trace.created}
        input_ids = {id(v) for v in self.inputs}
        self.ops = [n for n in trace.created if n._back is not None]
        # everything else an op or an output uses is a constant: numbers f used (made into
        # leaves by the engine), Values it closed over or made, nodes made before the trace
        self.constants_nodes: list[Value] = []
        constant_ids: set[int] = set()
        where: dict[int, str] = {}
        for node in (*self.ops, *self.outputs):
            operands = engine._operands(node._a, node._b) if id(node) in created_ids else ()
            for c in (*operands, node):
                if id(c) in input_ids or id(c) in constant_ids:
                    continue
                if c._back is not None and id(c) in created_ids:
                    continue
                constant_ids.add(id(c))
                self.constants_nodes.append(c)
                where[id(c)] = trace.where(c) or f"first used at {trace.where(node) or 'an output'}"
        self.constants = tuple(
            Constant(c.data, "number" if id(c) in created_ids else "Value", where[id(c)])
            for c in self.constants_nodes
        )
        self.created_ids = created_ids

    def replay(self, inputs: Sequence[Any], gradient: bool) -> Any:
        """Run the recorded ops with the engine: its errors, its results."""
        leaves = [Value(x) for x in inputs]
        made: dict[int, Value] = {id(v): leaf for v, leaf in zip(self.inputs, leaves)}
        for c in self.constants_nodes:
            made[id(c)] = engine._constant(c.data)
        for node in self.ops:
            operands = [made[id(c)] for c in engine._operands(node._a, node._b)]
            made[id(node)] = _REPLAY[node._back](operands)
        outputs = [made[id(v)] for v in self.outputs]
        value = _unflatten(self.shape, [v.data for v in outputs])
        if not gradient:
            return value
        return value, engine.grad(outputs[0], leaves)


def _flatten(result: Any) -> tuple[Any, list[Value]]:
    """(shape, the Values in it depth first): a Value, or lists and tuples of them."""
    outputs: list[Value] = []

    def shape_of(x: Any, depth: int) -> Any:
        if isinstance(x, Value):
            outputs.append(x)
            return len(outputs) - 1
        if isinstance(x, (list, tuple)) and depth < 50:
            return (type(x), [shape_of(item, depth + 1) for item in x])
        raise TypeError(
            f"compile: f must return a Value or lists/tuples of Values, got {x!r} ({type(x).__name__})"
        )

    shape = shape_of(result, 0)
    if not outputs:
        raise TypeError(f"compile: f returned no Value: {result!r}")
    return shape, outputs


def _unflatten(shape: Any, values: list[Any]) -> Any:
    if isinstance(shape, int):
        return values[shape]
    kind, items = shape
    return kind(_unflatten(s, values) for s in items)


def _shape_source(shape: Any, names: list[str]) -> str:
    if isinstance(shape, int):
        return names[shape]
    kind, items = shape
    inner = ", ".join(_shape_source(s, names) for s in items)
    if kind is tuple:
        return f"({inner},)" if len(items) == 1 else f"({inner})"
    return f"[{inner}]"


_REPLAY: dict[Any, Callable[[list[Value]], Value]] = {
    engine._add_back: lambda v: v[0] + v[1],
    engine._sub_back: lambda v: v[0] - v[1],
    engine._mul_back: lambda v: v[0] * v[1],
    engine._div_back: lambda v: v[0] / v[1],
    engine._neg_back: lambda v: -v[0],
    engine._pow_back: lambda v: v[0] ** v[1].data,
    engine._value_pow_back: lambda v: v[0] ** v[1],
    # a number f used as an operand is given to the op as a number again, so that the op
    # makes it the constant it was (one that receives no gradient)
    engine._addc_back: lambda v: v[0] + v[1].data,
    engine._radd_back: lambda v: v[0].data + v[1],
    engine._subc_back: lambda v: v[0] - v[1].data,
    engine._rsub_back: lambda v: v[0].data - v[1],
    engine._mulc_back: lambda v: v[0] * v[1].data,
    engine._rmul_back: lambda v: v[0].data * v[1],
    engine._divc_back: lambda v: v[0] / v[1].data,
    engine._rdiv_back: lambda v: v[0].data / v[1],
    engine._rpow_back: lambda v: v[0].data ** v[1],
    engine._exp_back: lambda v: v[0].exp(),
    engine._log_back: lambda v: v[0].log(),
    engine._tanh_back: lambda v: v[0].tanh(),
    engine._relu_back: lambda v: v[0].relu(),
    engine._sigmoid_back: lambda v: v[0].sigmoid(),
    engine._vsum_back: lambda v: vsum(v),
    engine._dot_back: lambda v: dot(v[: len(v) // 2], v[len(v) // 2 : -1], v[-1]),
}


# ---------------------------------------------------------------------- code generation
#: long sums are split into statements of this many terms (the same left-to-right additions):
#: CPython's compiler recurses once per term of one expression
CHUNK = 64


class _Emitter:
    """Names for every node's number and gradient, and the lines of both passes."""

    def __init__(self, program: _Program) -> None:
        self.program = program
        self.names: dict[int, str] = {}
        self.grads: dict[int, str] = {}
        self.namespace: dict[str, Any] = {
            "_div": engine._div,
            "_pow": engine._pow,
            "_exp": math.exp,
            "_log": math.log,
            "_tanh": math.tanh,
            "_sum": sum,
            "_NonFinite": _NonFinite,
            "_all_finite": _all_finite,
        }
        for i, v in enumerate(program.inputs):
            self.names[id(v)] = f"x{i}"
            self.grads[id(v)] = f"gx{i}"
        for i, c in enumerate(program.constants_nodes):
            self.names[id(c)] = self.literal(c.data, f"k{i}")
            self.grads[id(c)] = f"gk{i}"
        for i, node in enumerate(program.ops):
            self.names[id(node)] = f"v{i}"
            self.grads[id(node)] = f"g{i}"

    def literal(self, x: Any, name: str) -> str:
        """Source for a constant: its repr for ints and floats (exact), else a name bound to it."""
        if type(x) in (int, float):
            text = repr(x)
            return f"({text})" if text.startswith("-") else text
        self.namespace[name] = x
        return name

    def val(self, node: Value) -> str:
        return self.names[id(node)]

    def give(self, node: Value, share: str, sign: str = "+") -> str:
        return f"{self.grads[id(node)]} {sign}= {share}"


def _sum_lines(target: str, first: str, terms: list[str]) -> list[str]:
    """``target = first + t0 + t1 + ...``, left to right, in statements of CHUNK terms."""
    lines, acc = [], first
    for i in range(0, len(terms), CHUNK):
        lines.append(f"{target} = {' + '.join([acc, *terms[i : i + CHUNK]])}")
        acc = target
    return lines or [f"{target} = {first}"]


# Each op: its forward lines (the engine's arithmetic for the op, in its order) and its
# backward lines (the engine's first-order rule, operand by operand, in its order).
def _operands(node: Value) -> tuple[Value, ...]:
    return engine._operands(node._a, node._b)


def _fw_binary(symbol: str) -> Callable[[_Emitter, Value, str], list[str]]:
    def emit(e: _Emitter, node: Value, out: str) -> list[str]:
        a, b = _operands(node)
        return [f"{out} = {e.val(a)} {symbol} {e.val(b)}"]

    return emit


def _fw_div(e: _Emitter, node: Value, out: str) -> list[str]:
    a, b = _operands(node)
    return [f"{out} = {_div_source(e, a, b, e.val(a))}"]


def _div_source(e: _Emitter, a: Value | None, b: Value, num: str) -> str:
    """``_div(num, b)``: Python's ``/`` where a constant operand rules out int / int."""
    if any(c is not None and _is_constant(e, c) and type(c.data) is not int for c in (a, b)):
        return f"{num} / {e.val(b)}"
    return f"_div({num}, {e.val(b)})"


def _is_constant(e: _Emitter, node: Value) -> bool:
    return not e.names[id(node)].startswith(("x", "v"))


def _fw_neg(e: _Emitter, node: Value, out: str) -> list[str]:
    return [f"{out} = -{e.val(node._a)}"]


def _pow_call(e: _Emitter, base: str, c: Any) -> str:
    """``engine._pow(base, c)`` for a constant exponent: a call only where it can differ from ``**``."""
    if type(c) is int and c < 0:
        return f"_pow({base}, {e.literal(c, f'k_pow{len(e.namespace)}')})"
    return f"{base} ** {e.literal(c, f'k_pow{len(e.namespace)}')}"


def _fw_pow(e: _Emitter, node: Value, out: str) -> list[str]:
    a, c = node._a, node._b.data
    x = e.val(a)
    lines = []
    if c % 1 != 0:  # the engine refuses a negative base here (Python would give a complex)
        lines.append(f"if {x} < 0: raise _NonFinite")
    if 0 < c < 1:  # and an infinite derivative at 0
        lines.append(f"if {x} == 0: raise _NonFinite")
    return [*lines, f"{out} = {_pow_call(e, x, c)}"]


def _fw_value_pow(e: _Emitter, node: Value, out: str) -> list[str]:
    a, b = node._a, node._b
    return [f"if {e.val(a)} <= 0: raise _NonFinite", f"{out} = _pow({e.val(a)}, {e.val(b)})"]


def _fw_call(function: str) -> Callable[[_Emitter, Value, str], list[str]]:
    def emit(e: _Emitter, node: Value, out: str) -> list[str]:
        return [f"{out} = {function}({e.val(node._a)})"]

    return emit


def _fw_relu(e: _Emitter, node: Value, out: str) -> list[str]:
    x = e.val(node._a)
    return [f"{out} = {x} if {x} > 0 else {x} - {x}"]


def _fw_sigmoid(e: _Emitter, node: Value, out: str) -> list[str]:
    x = e.val(node._a)
    return [f"{out} = 1.0 / (1.0 + _exp(-{x})) if {x} >= 0 else (e_{out} := _exp({x})) / (1.0 + e_{out})"]


def _fw_vsum(e: _Emitter, node: Value, out: str) -> list[str]:
    return _sum_lines(out, "0", [e.val(t) for t in node._a])


def _fw_dot(e: _Emitter, node: Value, out: str) -> list[str]:
    prev = node._a
    n = len(prev) // 2
    terms = [f"{e.val(w)} * {e.val(x)}" for w, x in zip(prev[:n], prev[n:-1])]
    return _sum_lines(out, e.val(prev[-1]), terms)


def _bw_add(e: _Emitter, node: Value, g: str) -> list[str]:
    return [e.give(node._a, g), e.give(node._b, g)]


def _bw_sub(e: _Emitter, node: Value, g: str) -> list[str]:
    return [e.give(node._a, g), e.give(node._b, g, "-")]


def _bw_mul(e: _Emitter, node: Value, g: str) -> list[str]:
    a, b = node._a, node._b
    return [e.give(a, f"{g} * {e.val(b)}"), e.give(b, f"{g} * {e.val(a)}")]


def _bw_div(e: _Emitter, node: Value, g: str) -> list[str]:
    a, b = node._a, node._b
    out = e.val(node)
    return [
        e.give(a, _div_source(e, None, b, g)),
        e.give(b, _div_source(e, None, b, f"{g} * {out}"), "-"),
    ]


def _bw_neg(e: _Emitter, node: Value, g: str) -> list[str]:
    return [e.give(node._a, g, "-")]


def _bw_pow(e: _Emitter, node: Value, g: str) -> list[str]:
    a, c = node._a, node._b.data
    if c == 0:
        return []
    # (the partial first, as the engine's rule: the same rounding, and no inf * 0 where it underflows)
    k = e.literal(c, f"k_pow{len(e.namespace)}")
    return [e.give(a, f"{g} * ({k} * {_pow_call(e, e.val(a), c - 1)})")]


def _bw_value_pow(e: _Emitter, node: Value, g: str) -> list[str]:
    a, b = node._a, node._b
    x, y = e.val(a), e.val(b)
    return [e.give(a, f"{g} * ({y} * _pow({x}, {y} - 1))"), e.give(b, f"{g} * ({e.val(node)} * _log({x}))")]


def _share(emit: Emit, i: int) -> Emit:
    """The backward lines of ``emit`` for operand ``i`` alone: an op with a constant operand
    gives the other operand the share the op between two Values gives it, and the constant none."""

    def share(e: _Emitter, node: Value, g: str) -> list[str]:
        return [emit(e, node, g)[i]]

    return share


def _bw_exp(e: _Emitter, node: Value, g: str) -> list[str]:
    return [e.give(node._a, f"{g} * {e.val(node)}")]


def _bw_log(e: _Emitter, node: Value, g: str) -> list[str]:
    return [e.give(node._a, f"_div({g}, {e.val(node._a)})")]


def _bw_tanh(e: _Emitter, node: Value, g: str) -> list[str]:
    out = e.val(node)
    return [e.give(node._a, f"{g} * (1 - {out} * {out})")]


def _bw_relu(e: _Emitter, node: Value, g: str) -> list[str]:
    return [f"if {e.val(node)} > 0:", "    " + e.give(node._a, g)]


def _bw_sigmoid(e: _Emitter, node: Value, g: str) -> list[str]:
    out = e.val(node)
    return [e.give(node._a, f"{g} * {out} * (1 - {out})")]


def _bw_vsum(e: _Emitter, node: Value, g: str) -> list[str]:
    return [e.give(t, g) for t in node._a]


def _bw_dot(e: _Emitter, node: Value, g: str) -> list[str]:
    prev = node._a
    n = len(prev) // 2
    lines = [f"if {g}:"]  # the engine's rule passes nothing on when its gradient is 0
    for w, x in zip(prev[:n], prev[n:-1]):
        lines.append("    " + e.give(w, f"{g} * {e.val(x)}"))
        lines.append("    " + e.give(x, f"{g} * {e.val(w)}"))
    lines.append("    " + e.give(prev[-1], g))
    return lines


Emit = Callable[[_Emitter, Value, str], list[str]]
#: each engine rule (the key of engine._RULES) -> how its op is written forward and backward
_CODE: dict[Any, tuple[Emit, Emit]] = {
    engine._add_back: (_fw_binary("+"), _bw_add),
    engine._sub_back: (_fw_binary("-"), _bw_sub),
    engine._mul_back: (_fw_binary("*"), _bw_mul),
    engine._div_back: (_fw_div, _bw_div),
    engine._neg_back: (_fw_neg, _bw_neg),
    engine._pow_back: (_fw_pow, _bw_pow),
    engine._value_pow_back: (_fw_value_pow, _bw_value_pow),
    engine._addc_back: (_fw_binary("+"), _share(_bw_add, 0)),
    engine._radd_back: (_fw_binary("+"), _share(_bw_add, 1)),
    engine._subc_back: (_fw_binary("-"), _share(_bw_sub, 0)),
    engine._rsub_back: (_fw_binary("-"), _share(_bw_sub, 1)),
    engine._mulc_back: (_fw_binary("*"), _share(_bw_mul, 0)),
    engine._rmul_back: (_fw_binary("*"), _share(_bw_mul, 1)),
    engine._divc_back: (_fw_div, _share(_bw_div, 0)),
    engine._rdiv_back: (_fw_div, _share(_bw_div, 1)),
    engine._rpow_back: (_fw_value_pow, _share(_bw_value_pow, 1)),
    engine._exp_back: (_fw_call("_exp"), _bw_exp),
    engine._log_back: (_fw_call("_log"), _bw_log),
    engine._tanh_back: (_fw_call("_tanh"), _bw_tanh),
    engine._relu_back: (_fw_relu, _bw_relu),
    engine._sigmoid_back: (_fw_sigmoid, _bw_sigmoid),
    engine._vsum_back: (_fw_vsum, _bw_vsum),
    engine._dot_back: (_fw_dot, _bw_dot),
}
_missing = set(engine._RULES) - set(_CODE)
if _missing:  # a new op in the engine needs its code here too
    raise ImportError(
        f"autograd.compiler: no code for the engine ops {sorted(engine._RULE_NAMES[r] for r in _missing)}"
    )


def _backward_order(root: Value) -> list[Value]:
    """The interior nodes below ``root`` in the engine's own topological order (every grad put back)."""
    saved = [(node, node.grad) for node in engine._reachable(root)]
    try:
        order, _, _ = engine._topological_order(root)
    finally:
        for node, before in saved:
            node.grad = before
    return order


def _check_line(values: list[str]) -> list[str]:
    """One test that every number is finite: a float overflow or NaN anywhere makes the sum
    one; finite numbers whose sum overflows (two near the float maximum) are then looked at
    one by one (``_all_finite``)."""
    if not values:
        return []
    groups = [f"({', '.join(values[i : i + 255])},)" for i in range(0, len(values), 255)]
    chunks = [f"_sum({group})" for group in groups]
    total = chunks[0] if len(chunks) == 1 else f"_sum(({', '.join(chunks)},))"  # (no deep expression)
    return [f"if not -1e999 < {total} < 1e999: _all_finite({', '.join(groups)})"]


def _all_finite(*groups: tuple[Any, ...]) -> None:
    """Raise _NonFinite unless every number in ``groups`` is finite (the generated code's check)."""
    for group in groups:
        for x in group:
            if not -math.inf < x < math.inf:
                raise _NonFinite


def _build(program: _Program, gradient: bool) -> tuple[str, Callable[..., Any]]:
    """The generated function and its source (``value_and_grad`` or, without gradient, ``value``)."""
    source, namespace = _generate(program, gradient)
    exec(builtins.compile(source, f"<autograd.compile {program.name}>", "exec"), namespace)
    return source, namespace["value_and_grad" if gradient else "value"]


_SHARE = re.compile(r"(g\w+) ([+-])= (.+)")


def _first_shares(rule: list[str], assigned: set[str]) -> list[str]:
    """A rule's lines, with each gradient's first share written without the int 0 it starts at.

    The engine sums a gradient's shares from the int 0: ``0 + s`` is ``s`` itself for every
    int, float and Fraction ``s`` except a zero (``0 + -0.0`` is ``0.0``), so the first share is
    assigned and, only if it is a zero, added to 0 after all (``0 - s`` likewise, from ``-s``):
    the same numbers as the engine's, without an int-plus-float addition per gradient.  A
    gradient first reached inside a branch (relu's, dot's) starts at 0 before the branch.
    """
    out: list[str] = []
    i = 0
    while i < len(rule):
        line = rule[i]
        i += 1
        if line.endswith(":"):  # a branch: its body is the indented lines that follow
            body = []
            while i < len(rule) and rule[i].startswith("    "):
                body.append(rule[i])
                i += 1
            for inner in body:
                m = _SHARE.fullmatch(inner.strip())
                if m and m[1] not in assigned:
                    out.append(f"{m[1]} = 0")
                    assigned.add(m[1])
            out += [line, *body]
            continue
        m = _SHARE.fullmatch(line)
        if m and m[1] not in assigned:
            assigned.add(m[1])
            share = m[3] if m[2] == "+" else f"-({m[3]})"
            out += [f"{m[1]} = {share}", f"if not {m[1]}: {m[1]} = 0 + {m[1]}"]
        else:
            out.append(line)
    return out


def _backward(e: _Emitter, program: _Program) -> tuple[list[str], list[str], list[str]]:
    """The backward pass's lines, every leaf's gradient (checked like the engine checks them),
    and the inputs' gradients, for the first output."""
    root = program.outputs[0]
    if root._back is None or id(root) not in program.created_ids:  # the output is a leaf itself
        return [], [], ["1" if v is root else "0" for v in program.inputs]
    order = [n for n in _backward_order(root) if id(n) in program.created_ids]
    in_order = {id(n) for n in order}
    leaves: dict[int, Value] = {}  # the leaves (and nodes made before the trace) the pass reaches
    for node in reversed(order):
        for c in _operands(node):
            if id(c) not in in_order:
                leaves.setdefault(id(c), c)
    # the engine's pass: the output's gradient is 1, every other starts at the int 0
    lines = [f"{e.grads[id(root)]} = 1"]
    assigned = {e.grads[id(root)]}
    for node in reversed(order):
        g = e.grads[id(node)]
        if g not in assigned:  # no share reached it (pow ** 0 sends none): it is still 0
            lines.append(f"{g} = 0")
            assigned.add(g)
        lines += _first_shares(_CODE[node._back][1](e, node, g), assigned)
    lines += [f"{e.grads[i]} = 0" for i in (*leaves, *map(id, program.inputs)) if e.grads[i] not in assigned]
    return lines, [e.grads[i] for i in leaves], [e.grads[id(v)] for v in program.inputs]


def _generate(program: _Program, gradient: bool) -> tuple[str, dict[str, Any]]:
    """The source of ``value(x0, ...)`` or ``value_and_grad(x0, ...)``, and its namespace."""
    e = _Emitter(program)
    forward: list[str] = []
    for node in program.ops:
        forward += _CODE[node._back][0](e, node, e.val(node))
    values = [e.val(node) for node in program.ops]
    outputs = _shape_source(program.shape, [e.val(v) for v in program.outputs])
    args = ", ".join(f"x{i}" for i in range(len(program.inputs)))

    def body(lines: list[str]) -> str:
        return "".join(f"    {line}\n" for line in lines)

    if not gradient:
        source = (
            f"def value({args}):\n" + body(forward) + body(_check_line(values)) + f"    return {outputs}\n"
        )
        return source, e.namespace
    backward, grads, grad_list = _backward(e, program)
    source = (
        f"def value_and_grad({args}):\n"
        + body(forward)
        + body(backward)
        + body(_check_line(values + grads))
        + f"    return {outputs}, [{', '.join(grad_list)}]\n"
    )
    return source, e.namespace


# ---------------------------------------------------------------------- compile
def compile(f: Callable[..., Any], example_inputs: Sequence[Any]) -> Compiled:
    """Trace ``f(*Values of example_inputs)`` once and compile it to straight-line Python.

    ``f`` takes one Value per input (like ``autograd.hessian``) and returns a Value, or
    lists/tuples of Values.  The result is called with a list of numbers (as many as
    ``example_inputs``): ``compiled(inputs)`` gives ``(output, gradient)`` and
    ``compiled.value(inputs)`` the output alone, equal to what the engine gives for the
    same inputs (bit for bit with floats), with the engine's errors.  Raises
    :class:`TraceError` (naming the line) if ``f``'s Python depends on a traced value.
    """
    if not callable(f):
        raise TypeError(f"compile: f must be callable, got {f!r}")
    leaves = engine._leaves("compile", example_inputs)
    with _tracing(leaves) as trace:
        result = f(*leaves)
    return Compiled(_Program(getattr(f, "__qualname__", repr(f)), trace, result))
