"""What the framework adapters share: importing the framework (or saying how to install it), its
functions named by their source text, and programs that import only the framework.

A framework adapter names each function it maps by the text a person writes for it
(``"torch.asinh"``, ``"torch.nn.functional.gelu(approximate='tanh')"``: a dotted path, optionally
with literal keywords fixed).  :func:`function` resolves that text to the function the audit
calls, and :func:`standalone_lines` writes the same text into a reproducer, so what the audit
judged and what a maintainer runs are one function.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

__all__ = [
    "derivatives_lines", "function", "function_syntax", "require", "standalone_lines", "tape_program",
    "with_functions",
]  # fmt: skip


def require(module: str, framework: str, extra: str) -> Any:
    """The module ``module`` of ``framework``; when it is not installed, the ImportError says
    which framework the adapter needs and the optional extra that installs it (the import's own
    error, reworded: its traceback still ends in the import system, not in the harness)."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        exc.msg = (
            f"the {framework} adapter needs {module}, which is not installed "
            f"(pip install 'verified-autograd[{extra}]')"
        )
        raise


def _parts(source: str) -> tuple[list[str], dict[str, Any]]:
    """``"a.b.c(k=1)"`` as (["a", "b", "c"], {"k": 1}); a ValueError names any other text."""
    tree = ast.parse(source, mode="eval").body
    keywords: dict[str, Any] = {}
    if isinstance(tree, ast.Call):
        if tree.args or any(k.arg is None for k in tree.keywords):
            raise ValueError(f"function source {source!r}: only literal keywords may be fixed")
        keywords = {k.arg: ast.literal_eval(k.value) for k in tree.keywords if k.arg is not None}
        tree = tree.func
    path: list[str] = []
    while isinstance(tree, ast.Attribute):
        path.insert(0, tree.attr)
        tree = tree.value
    if not isinstance(tree, ast.Name):
        raise ValueError(f"function source {source!r}: not a dotted path (module.function)")
    return [tree.id, *path], keywords


def function(source: str) -> Callable[..., Any]:
    """The function that ``source`` names: the longest importable module of its dotted path,
    then attributes; literal keywords in ``source`` are fixed (``functools.partial``)."""
    path, keywords = _parts(source)
    module = _module(path)
    found: Any = importlib.import_module(module)
    for attr in path[module.count(".") + 1 :]:
        found = getattr(found, attr)
    return partial(found, **keywords) if keywords else found


def with_functions(sources: Mapping[str, str]) -> dict[str, Callable[..., Any]]:
    """Each named source resolved by :func:`function`."""
    return {name: function(source) for name, source in sources.items()}


class _Calls(ast.NodeTransformer):
    """``v.name(w)`` as ``name(v, w)`` for the names a program binds to the framework's functions."""

    def __init__(self, names: set[str]) -> None:
        self.names, self.used = names, set[str]()

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.func, ast.Attribute) and node.func.attr in self.names:
            self.used.add(node.func.attr)
            return ast.Call(
                ast.Name(node.func.attr, ast.Load()), [node.func.value, *node.args], node.keywords
            )
        return node


def function_syntax(expr: str, names: set[str]) -> tuple[str, set[str]]:
    """``expr`` with each method call ``v.name(w)`` of ``names`` written ``name(v, w)``, and the
    names it calls."""
    calls = _Calls(names)
    return ast.unparse(calls.visit(ast.parse(expr, mode="eval"))), calls.used


def _module(path: list[str]) -> str:
    """The longest importable module of a dotted path."""
    for cut in range(len(path) - 1, 0, -1):
        name = ".".join(path[:cut])
        try:
            importlib.import_module(name)
        except ImportError:
            continue
        return name
    raise ValueError(f"function source {'.'.join(path)!r}: no module of it imports")


def standalone_lines(expr: str, sources: Mapping[str, str]) -> tuple[list[str], str]:
    """An expression the harness writes in method syntax (``x.asinh()``, ``(x0 * x1).atan2(x2)``)
    as the framework writes it: the lines that import and bind each function it uses to its
    source (a dotted path, or ``functools.partial`` of one with its keywords), and the
    expression calling them (``asinh(x)``).  Operators stay as they are: every framework
    overloads them."""
    rewritten, used = function_syntax(expr, set(sources))
    imports, binds = set[str](), []
    for name in sorted(used):
        path, keywords = _parts(sources[name])
        imports.add(f"import {_module(path)}")
        target = ".".join(path)
        if keywords:
            imports.add("import functools")
            fixed = ", ".join(f"{k}={v!r}" for k, v in keywords.items())
            target = f"functools.partial({target}, {fixed})"
        binds.append(f"{name} = {target}")
    return [*sorted(imports), *binds], rewritten


def tape_program(
    head: Sequence[str], make: str, expr: str, leaves: Sequence[tuple[str, float]],
    sources: Mapping[str, str], *, order: int = 1, create_graph: str = "create_graph=True",
) -> str:  # fmt: skip
    """The reproducer of a framework with a tape (PyTorch, MyGrad, tinygrad): ``head`` (its
    import), each leaf made by ``make`` (``{x}``: the number), ``expr`` computed as the framework
    writes it (:func:`standalone_lines`), one backward pass, and the value and every leaf's
    gradient printed (0.0 for a gradient the pass left unset).  ``order=2``: the first pass with
    ``create_graph`` (the framework's keyword; "" where gradients are always differentiable),
    then one pass from each first derivative, and the second derivatives printed row by row."""
    binds, call = standalone_lines(expr, sources)
    names = ", ".join(n for n, _ in leaves)
    read = f"[0.0 if v.grad is None else v.grad.item() for v in ({names},)]"
    if order == 1:
        passes = ["out.backward()", f"grads = {read}", "print('value', repr(out.item()), 'gradient', grads)"]
    else:
        passes = [
            f"out.backward({create_graph})",
            f"firsts = [v.grad for v in ({names},)]",
            "rows = []",
            "for g in firsts:",
            f"    for v in ({names},):",
            "        v.grad = None",
            "    if g is not None and getattr(g, 'requires_grad', None) is not False:  # a constant: none",
            "        g.backward()",
            f"    rows.append({read})",
            "print('value', repr(out.item()), 'second derivatives', rows)",
        ]
    return "\n".join(
        [
            *head,
            *(b for b in binds if b not in head),
            *(f"{n} = {make.format(x=repr(x))}" for n, x in leaves),
            f"out = {call}",
            *passes,
        ]
    )


def derivatives_lines(grads: str, grad: str, order: int) -> list[str]:
    """The end of a reproducer of a functional framework (JAX, HIPS autograd), once ``f`` and
    ``args`` are defined: ``grads`` (the gradient function of ``f`` over every argument) called
    and printed with the value; ``order=2``: ``grad`` (the framework's grad, by argument index)
    taken of each first derivative, and the second derivatives printed row by row."""
    if order == 1:
        return [
            f"grads = {grads}(*args)",
            "print('value', repr(float(f(*args))), 'gradient', [float(g) for g in grads])",
        ]
    return [
        "n = len(args)",
        f"rows = [[float({grad}({grad}(f, i), j)(*args)) for j in range(n)] for i in range(n)]",
        "print('value', repr(float(f(*args))), 'second derivatives', rows)",
    ]
