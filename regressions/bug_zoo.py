"""The bug zoo: every known bug, kept alive as a deliberately broken engine or network.

Each variant is a complete, working copy of ``autograd/engine.py`` (or
``autograd/nn.py``) that differs from the real one in one place: either one
checked text substitution of the real source (the snippet must occur exactly
once, so a refactor of the engine breaks the zoo loudly instead of silently
testing nothing), or, for the bugs that live in the graph walk, one replaced
function (``_topological_order``).  ``test_bug_zoo.py`` runs the regression checks (and the
``autograd.testing`` harness) against each variant and requires that some check
fails on it, while all of them pass on the real engine.
"""

from __future__ import annotations

import importlib
import inspect
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import autograd.engine
import autograd.nn

ENGINE_SOURCE = Path(autograd.engine.__file__).read_text(encoding="utf-8")
NN_SOURCE = Path(autograd.nn.__file__).read_text(encoding="utf-8")


class ZooOutOfDate(AssertionError):
    """A substitution no longer matches the real source: update the zoo with the engine."""


@dataclass(frozen=True)
class Variant:
    """An engine and a network module built on it (either may be the broken one)."""

    engine: Any
    nn: Any


@dataclass(frozen=True)
class Bug:
    name: str
    what: str  # what is broken, in one line
    build: Callable[[], Variant]
    slow_checks: tuple[str, ...] = ()  # slow checks that are relevant to this bug (see test_bug_zoo)


# ---------------------------------------------------------------------- building variants
def substitute(source: str, old: str, new: str, where: str) -> str:
    count = source.count(old)
    if count != 1:
        raise ZooOutOfDate(f"bug zoo: expected exactly one {old!r} in {where}, found {count}")
    return source.replace(old, new)


def _exec_module(name: str, source: str) -> ModuleType:
    module = ModuleType(name)
    module.__file__ = f"<bug zoo: {name}>"
    exec(compile(source, module.__file__, "exec"), module.__dict__)
    return module


def engine_variant(
    name: str, edits: Sequence[tuple[str, str]] = (), functions: dict[str, Callable[..., Any]] | None = None
) -> Any:
    """A fresh copy of the engine with text ``edits`` applied and module-level ``functions`` replaced."""
    source = ENGINE_SOURCE
    for old, new in edits:
        source = substitute(source, old, new, "autograd/engine.py")
    module = _exec_module(f"bug_zoo_{name}_engine", source)
    for function_name, function in (functions or {}).items():
        if not callable(getattr(module, function_name, None)):
            raise ZooOutOfDate(f"bug zoo: {function_name} no longer exists in autograd/engine.py")
        setattr(module, function_name, function)
    return module


def nn_variant(name: str, engine: Any, edits: Sequence[tuple[str, str]] = ()) -> Any:
    """A fresh copy of the network module, importing from ``engine`` instead of autograd.engine."""
    module_name = f"bug_zoo_{name}_engine"
    source = substitute(
        NN_SOURCE, "from autograd.engine import ", f"from {module_name} import ", "autograd/nn.py"
    )
    for old, new in edits:
        source = substitute(source, old, new, "autograd/nn.py")
    sys.modules[module_name] = engine  # only for the duration of the import
    try:
        return _exec_module(f"bug_zoo_{name}_nn", source)
    finally:
        del sys.modules[module_name]


def broken_engine(
    name: str, edits: Sequence[tuple[str, str]] = (), functions: dict[str, Callable[..., Any]] | None = None
) -> Callable[[], Variant]:
    def build() -> Variant:
        engine = engine_variant(name, edits, functions)
        return Variant(engine, nn_variant(name, engine))

    return build


def broken_network(name: str, edits: Sequence[tuple[str, str]]) -> Callable[[], Variant]:
    def build() -> Variant:
        return Variant(autograd.engine, nn_variant(name, autograd.engine, edits))

    return build


def real() -> Variant:
    return Variant(autograd.engine, autograd.nn)


# ---------------------------------------------------------------------- replaced graph walks
# Stand-ins for the engine's ``_topological_order(root) -> (order, leaves,
# before)``, which backward() (plain or create_graph) and grad() use.  They
# follow its contract in everything except the one bug: interior nodes are
# reset, each leaf is listed once with its earlier gradient, then set to 0.
def _list_leaf(leaf: Any, leaves: list[Any], before: list[Any]) -> None:
    leaves.append(leaf)
    before.append(leaf.grad)
    leaf.grad = 0


def topological_order_without_visited_set(root: Any) -> tuple[list[Any], list[Any], list[Any]]:
    """The article's first walk: a node reached along two paths is listed, and fires, twice."""
    order: list[Any] = []
    leaves: list[Any] = []
    before: list[Any] = []
    listed_leaves: set[int] = set()  # leaves are still listed once (a set: a leaf is met on every path)
    work = [(root, False)]
    while work:
        node, expanded = work.pop()
        if expanded:
            order.append(node)
        elif node._back is not None:
            node.grad = 0
            work.append((node, True))
            work.extend((child, False) for child in node._prev)
        elif id(node) not in listed_leaves:
            listed_leaves.add(id(node))
            _list_leaf(node, leaves, before)
    return order, leaves, before


def recursive_topological_order(root: Any) -> tuple[list[Any], list[Any], list[Any]]:
    """Correct order, but found by recursion: a deep graph exhausts Python's stack."""
    order: list[Any] = []
    leaves: list[Any] = []
    before: list[Any] = []
    seen: set[int] = set()

    def visit(node: Any) -> None:
        if id(node) in seen:
            return
        seen.add(id(node))
        if node._back is None:
            _list_leaf(node, leaves, before)
            return
        for child in node._prev:
            visit(child)
        node.grad = 0
        order.append(node)

    visit(root)
    return order, leaves, before


# ---------------------------------------------------------------------- the zoo
_ADD_RULE = "    a.grad += out.grad\n    b.grad += out.grad\n"
_MUL_RULE = "    a.grad += out.grad * b.data\n    b.grad += out.grad * a.data\n"

_BUGS = [
    # The article's three bugs, and the quieter one found next to the second.
    Bug(
        "double counting",
        "add's rule re-reads the gradient it just wrote: a.grad = out.grad * (a.grad + 1)",
        broken_engine(
            "double_counting",
            [(_ADD_RULE, "    a.grad = out.grad * (a.grad + 1)\n    b.grad = out.grad * (b.grad + 1)\n")],
        ),
    ),
    Bug(
        "aliased weights",
        "a neuron's weights are [Value(...)] * nin: one object, nin times",
        broken_network(
            "aliased_weights",
            [
                (
                    "[Value(rng.uniform(-1.0, 1.0)) for _ in range(nin)]",
                    "[Value(rng.uniform(-1.0, 1.0))] * nin",
                )
            ],
        ),
        slow_checks=("test_training_does_not_run_away",),
    ),
    Bug(
        "aliased neurons",
        "a layer's neurons are [Neuron(...)] * nout: one neuron, nout times",
        broken_network(
            "aliased_neurons",
            [("[Neuron(nin, nonlin, rng) for _ in range(nout)]", "[Neuron(nin, nonlin, rng)] * nout")],
        ),
        slow_checks=("test_training_does_not_run_away",),
    ),
    Bug(
        "discarded activation",
        "a neuron computes tanh and returns the pre-activation",
        broken_network(
            "discarded_activation",
            [("            return act.tanh()\n", "            act.tanh()\n            return act\n")],
        ),
    ),
    Bug(
        "missing visited set",
        "the topological walk has no visited set: shared nodes fire twice",
        broken_engine(
            "missing_visited_set", functions={"_topological_order": topological_order_without_visited_set}
        ),
        slow_checks=("test_training_escapes_the_plateau",),
    ),
    Bug(
        "zero_grad does nothing",
        "Module.zero_grad leaves the gradients in place",
        broken_network(
            "zero_grad_noop",
            [("        for p in self.parameters():\n            p.grad = 0\n", "        pass\n")],
        ),
    ),
    # Cousins: bugs of the same families that other engines are known to have had.
    Bug(
        "recursive topological sort",
        "the walk recurses, so a 20000-deep chain hits the recursion limit",
        broken_engine("recursive_sort", functions={"_topological_order": recursive_topological_order}),
    ),
    Bug(
        "interior gradients compound",
        "interior nodes are not reset, so a second backward() compounds",
        broken_engine(
            "interior_compound",
            [("            node.grad = 0  # interior: this pass's gradient only\n", "")],
        ),
    ),
    Bug(
        "gradient assigned",
        "add and mul assign their share (=) instead of adding it (+=)",
        broken_engine(
            "assigned", [(_ADD_RULE, _ADD_RULE.replace("+=", "=")), (_MUL_RULE, _MUL_RULE.replace("+=", "="))]
        ),
    ),
    Bug(
        "parents kept in a set",
        "add and vsum send one share per distinct operand, so a + a loses one",
        broken_engine(
            "parent_set",
            [
                (_ADD_RULE, "    for p in dict.fromkeys(out._prev):\n        p.grad += out.grad\n"),
                (
                    "    for v in out._prev:\n        v.grad += g\n",
                    "    for v in dict.fromkeys(out._prev):\n        v.grad += g\n",
                ),
            ],
        ),
    ),
    Bug(
        "sub sign",
        "sub's rule adds the gradient to the subtrahend instead of subtracting it",
        broken_engine(
            "sub_sign",
            [
                (
                    "    a.grad += out.grad\n    b.grad -= out.grad\n",
                    "    a.grad += out.grad\n    b.grad += out.grad\n",
                )
            ],
        ),
    ),
    Bug(
        "div sign",
        "div's rule adds d(a/b)/db with the wrong sign",
        broken_engine(
            "div_sign",
            [
                (
                    "    b.grad -= _div(out.grad * out.data, b.data)",
                    "    b.grad += _div(out.grad * out.data, b.data)",
                )
            ],
        ),
    ),
    Bug(
        "pow exponent",
        "pow's rule uses x**c instead of x**(c - 1)",
        broken_engine(
            "pow_exponent",
            [
                (
                    "a.grad += out.grad * (c * _pow(a.data, c - 1))",
                    "a.grad += out.grad * (c * _pow(a.data, c))",
                )
            ],
        ),
    ),
    Bug(
        "relu wrong side",
        "relu passes gradient where the input is negative, not positive",
        broken_engine(
            "relu_side",
            [
                (
                    "    if out.data > 0:\n        a.grad += out.grad\n",
                    "    if a.data < 0:\n        a.grad += out.grad\n",
                )
            ],
        ),
    ),
    Bug(
        "relu at zero",
        "relu passes gradient at x == 0 (the documented derivative there is 0)",
        broken_engine(
            "relu_zero",
            [
                (
                    "    if out.data > 0:\n        a.grad += out.grad\n",
                    "    if a.data >= 0:\n        a.grad += out.grad\n",
                )
            ],
        ),
    ),
    Bug(
        "sigmoid derivative",
        "sigmoid's rule uses s instead of s * (1 - s)",
        broken_engine(
            "sigmoid", [("a.grad += out.grad * out.data * (1 - out.data)", "a.grad += out.grad * out.data")]
        ),
    ),
    Bug(
        "tanh derivative",
        "tanh's rule uses the input, 1 - x**2, instead of the output, 1 - t**2",
        broken_engine(
            "tanh",
            [
                (
                    "a.grad += out.grad * (1 - out.data * out.data)",
                    "a.grad += out.grad * (1 - a.data * a.data)",
                )
            ],
        ),
    ),
    Bug(
        "exp derivative",
        "exp's rule multiplies by the input instead of the output",
        broken_engine(
            "exp",
            [
                (
                    "    a = out._a\n    a.grad += out.grad * out.data\n",
                    "    a = out._a\n    a.grad += out.grad * a.data\n",
                )
            ],
        ),
    ),
    Bug(
        "dot drops the bias",
        "dot's rule sends no gradient to its start term (a neuron's bias)",
        broken_engine("dot_bias", [("    prev[-1].grad += g\n", "")]),
    ),
    # Higher order: bugs of the create_graph machinery (regressions/test_higher_order.py).
    Bug(
        "mul twin uses .data",
        "mul's graph-mode rule multiplies by b.data, a constant: d2(x*y)/dxdy comes out 0",
        broken_engine(
            "mul_twin_data",
            [
                (
                    "    _give(a, out.grad * b)\n    _give(b, out.grad * a)\n",
                    "    _give(a, out.grad * b.data)\n    _give(b, out.grad * a.data)\n",
                )
            ],
        ),
    ),
    Bug(
        "tanh twin uses .data",
        "tanh's graph-mode rule uses out.data, so tanh's own second derivative vanishes",
        broken_engine(
            "tanh_twin_data",
            [("out.grad * (1 - out * out)", "out.grad * (1 - out.data * out.data)")],
        ),
    ),
    Bug(
        "pow twin uses .data",
        "pow's graph-mode rule computes x ** (c - 1) on numbers: d2(x**3)/dx2 comes out 0",
        broken_engine(
            "pow_twin_data",
            [("_give(a, out.grad * (c * a ** (c - 1)))", "_give(a, out.grad * (c * _pow(a.data, c - 1)))")],
        ),
    ),
    Bug(
        "graph pass detaches",
        "backward(create_graph=True) stores each gradient as a constant Value: no second derivatives",
        broken_engine(
            "detached",
            [
                (
                    "    node.grad = grad + share if type(grad) is Value else share\n",
                    "    node.grad = _constant((grad + share if type(grad) is Value else share).data)\n",
                )
            ],
        ),
    ),
    Bug(
        "create_graph leaks into plain backward",
        "the search resets interior grads by grad *= 0, which keeps a Value a Value",
        broken_engine(
            "create_graph_leak",
            [
                (
                    "            node.grad = 0  # interior: this pass's gradient only\n",
                    "            node.grad *= 0  # interior: this pass's gradient only\n",
                )
            ],
        ),
    ),
    Bug(
        "Value gradients do not accumulate",
        "a create_graph pass assigns a leaf's gradient instead of adding it to the earlier one",
        broken_engine(
            "value_grads_assigned",
            [("    return before + now  # type: ignore[no-any-return]\n", "    return now\n")],
        ),
    ),
    Bug(
        "grad() leaves its gradients behind",
        "grad() does not put the .grad it used back: the results stay, and accumulate, in .grad",
        broken_engine(
            "grad_leaks",
            [
                (
                    "        for node, before in saved.values():\n            node.grad = before\n",
                    "        pass\n",
                )
            ],
        ),
    ),
]
BUGS: dict[str, Bug] = {bug.name: bug for bug in _BUGS}


# ---------------------------------------------------------------------- running the checks
# A check "catches" a bug when it fails on the broken variant: an assertion, or
# an error the engine itself raises (a RecursionError on a deep graph, an
# overflow from runaway values).  Any other exception means the variant broke
# for the wrong reason (the zoo is out of date), so it is raised, not counted.
CAUGHT_BY = (AssertionError, RecursionError, ArithmeticError, pytest.fail.Exception)


def regression_checks() -> dict[str, Callable[..., None]]:
    """Every ``test_*`` function of the regression modules that takes ``engine=`` or ``nn=``."""
    checks = {}
    for path in sorted(Path(__file__).parent.glob("test_*.py")):
        if path.stem == "test_bug_zoo":
            continue
        module = importlib.import_module(f"regressions.{path.stem}")
        for name, function in vars(module).items():
            if name.startswith("test_") and callable(function) and _parameters(function):
                checks[f"{path.stem.removeprefix('test_')}::{name}"] = function
    return checks


def _parameters(function: Callable[..., None]) -> set[str]:
    return set(inspect.signature(function).parameters) & {"engine", "nn"}


def is_slow(function: Callable[..., None]) -> bool:
    return any(mark.name == "slow" for mark in getattr(function, "pytestmark", []))


def run_check(function: Callable[..., None], variant: Variant) -> str | None:
    """None if the check passes on ``variant``, else a one-line account of how it failed."""
    kwargs = {name: getattr(variant, name) for name in _parameters(function)}
    try:
        function(**kwargs)
    except CAUGHT_BY as exc:
        first_line = (str(exc).strip().splitlines() or [""])[0]
        return f"{type(exc).__name__}: {first_line}"[:160]
    return None


def smoke_test(variant: Variant) -> None:
    """A tree-shaped graph (no reuse, no fan-out) must still work: the variant is an engine, not a crash."""
    x, y = variant.engine.Value(3), variant.engine.Value(4)
    z = x * y + 1
    z.backward()
    assert (z.data, x.grad, y.grad) == (13, 4, 3), "bug zoo: a variant fails even on x * y + 1"
    assert len(variant.nn.MLP(2, [4, 4, 1]).parameters()) == 37, "bug zoo: a variant cannot build an MLP"


def harness_results(engine: Any, max_examples: int) -> dict[str, str | None]:
    """``verify_engine`` on ``engine`` (the audit's checks, our conventions declared; None = passed)."""
    from autograd.testing import verify_engine

    results = verify_engine(engine, max_examples=max_examples)
    return {
        f"harness::{name}": None if r.passed else r.message.splitlines()[0][:160]
        for name, r in results.items()
    }


#: The audit's ``examples``: per op in the per-op searches, half that many runs of the state
#: machine (fewer, and it misses the create_graph leak), second_order graphs per arithmetic.
HARNESS_EXAMPLES = 15


def outcomes(bug: Bug | None, *, harness: bool = True) -> dict[str, str | None]:
    """Every relevant check's outcome on ``bug``'s variant (``None``: on the real engine and network).

    Relevant: all fast regression checks, the slow ones the bug names, and, when the
    engine itself is broken, the harness properties.
    """
    variant = real() if bug is None else bug.build()
    smoke_test(variant)
    results = {}
    for name, function in regression_checks().items():
        if not is_slow(function) or (bug is not None and function.__name__ in bug.slow_checks):
            results[name] = run_check(function, variant)
    if harness and (bug is None or variant.engine is not autograd.engine):
        results.update(harness_results(variant.engine, HARNESS_EXAMPLES))
    return results


def format_table(caught: dict[str, list[str]]) -> str:
    width = max(len(bug) for bug in caught)
    lines = [f"{'bug':<{width}}  checks that caught it", f"{'-' * width}  {'-' * 21}"]
    for bug, checks in caught.items():
        lines.append(f"{bug:<{width}}  {', '.join(checks) if checks else 'NOTHING'}")
    return "\n".join(lines)


def main() -> None:
    """``python -m regressions.bug_zoo``: print the table of which check caught which bug."""
    caught = {}
    for name, bug in BUGS.items():
        caught[name] = [check for check, failure in outcomes(bug).items() if failure]
        print(f"{name}: {len(caught[name])} checks failed", file=sys.stderr, flush=True)
    print(format_table(caught))


if __name__ == "__main__":
    main()
