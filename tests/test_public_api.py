"""Every public name of ``autograd`` and ``autograd.testing`` has a docstring the reference renders.

The public API is what ``__all__`` lists, with the public methods and properties of the classes
among them (their own and those they inherit from the package's classes).  A function, class,
method or property needs a docstring of its own; a dataclass's generated signature is not one.  A
data constant needs a ``#:`` comment right above its assignment in the module that assigns it (or
a string right after it): that is what the documentation site renders for a constant.
"""

from __future__ import annotations

import ast
import dataclasses
import enum
import functools
import inspect
import sys
from pathlib import Path
from typing import Any

import pytest

import autograd
import autograd.testing

PACKAGES = (autograd, autograd.testing)


#: Public classes that have no docstring yet (only the signature their dataclass generates): each
#: is expected to fail until it gets one, and then must leave this list (strict).
UNDOCUMENTED: set[tuple[str, str]] = set()


def public_names() -> list[tuple[str, str]]:
    return [(package.__name__, name) for package in PACKAGES for name in package.__all__]


def name_params() -> list[Any]:
    return [
        pytest.param(
            package,
            name,
            id=f"{package}.{name}",
            marks=[pytest.mark.xfail(strict=True, reason="no docstring yet")]
            if (package, name) in UNDOCUMENTED
            else [],
        )
        for package, name in public_names()
    ]


def own_docstring(obj: Any) -> str | None:
    """The docstring ``obj`` itself carries (not one a class inherits, nor a dataclass's signature)."""
    if isinstance(obj, (classmethod, staticmethod)):
        obj = obj.__func__
    if isinstance(obj, property):
        obj = obj.fget
    if isinstance(obj, functools.cached_property):
        obj = obj.func
    if inspect.isclass(obj):
        doc = vars(obj).get("__doc__")
        if doc and dataclasses.is_dataclass(obj):
            generated = obj.__name__ + str(inspect.signature(obj)).replace(" -> None", "")
            if doc == generated:
                return None
        if doc and issubclass(obj, enum.Enum) and doc in ("An enumeration.", enum.Enum.__doc__):
            return None
        return doc.strip() if doc else None
    doc = getattr(obj, "__doc__", None)
    return doc.strip() if isinstance(doc, str) and doc.strip() else None


def is_documented_routine(obj: Any) -> bool:
    return inspect.isroutine(obj) or inspect.isclass(obj)


def package_modules() -> list[Any]:
    """The modules of the ``autograd`` package imported so far: a constant's module is among them,
    since its object exists (importing the others would change what later tests draw)."""
    return [m for name, m in list(sys.modules.items()) if name == "autograd" or name.startswith("autograd.")]


def assignment_is_documented(module: Any, name: str) -> bool | None:
    """Whether ``module`` assigns ``name`` at its top level under a ``#:`` comment (or with a string
    right after it); None if it does not assign ``name`` at all."""
    path = Path(module.__file__)
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    body = ast.parse(source).body
    for i, node in enumerate(body):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign):
            targets = [node.target]
        if not any(isinstance(t, ast.Name) and t.id == name for t in targets):
            continue
        above = lines[node.lineno - 2].strip() if node.lineno >= 2 else ""
        after = body[i + 1] if i + 1 < len(body) else None
        string_after = (
            isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant)
            and isinstance(after.value.value, str)
        )
        return above.startswith("#:") or string_after
    return None


def constant_is_documented(package: str, name: str) -> bool:
    obj = getattr(sys.modules[package], name)
    verdicts = [
        assignment_is_documented(module, name)
        for module in package_modules()
        if vars(module).get(name) is obj and getattr(module, "__file__", None)
    ]
    assigned = [v for v in verdicts if v is not None]
    assert assigned, f"{package}.{name}: no module of the package assigns it"
    return any(assigned)


@pytest.mark.parametrize(("package", "name"), name_params())
def test_every_public_name_has_a_docstring(package, name):
    obj = getattr(sys.modules[package], name)
    if is_documented_routine(obj):
        assert own_docstring(obj), f"{package}.{name} has no docstring"
    else:  # a data constant: its #: comment is its documentation
        assert constant_is_documented(package, name), (
            f"{package}.{name} is a constant with no '#:' comment above its assignment"
        )


def public_members() -> list[tuple[str, str, str]]:
    """(package, class, member) for the public methods and properties of every public class."""
    found = []
    for package, name in public_names():
        cls = getattr(sys.modules[package], name)
        if not inspect.isclass(cls):
            continue
        seen: set[str] = set()
        for klass in cls.__mro__:
            if not klass.__module__.startswith("autograd"):
                continue
            for member, value in vars(klass).items():
                if member.startswith("_") or member in seen:
                    continue
                seen.add(member)
                if isinstance(value, (property, functools.cached_property, classmethod, staticmethod)) or (
                    inspect.isfunction(value)
                ):
                    found.append((package, name, member))
    return found


@pytest.mark.parametrize(
    ("package", "cls", "member"), public_members(), ids=[f"{c}.{m}" for _, c, m in public_members()]
)
def test_every_public_method_and_property_has_a_docstring(package, cls, member):
    klass = getattr(sys.modules[package], cls)
    owner = next(k for k in klass.__mro__ if member in vars(k))
    assert own_docstring(vars(owner)[member]), f"{package}.{cls}.{member} has no docstring"


def test_the_public_api_is_found():
    """The parametrizations above are not empty: each package lists names, and classes have members."""
    names = public_names()
    assert ("autograd", "Value") in names and ("autograd.testing", "audit") in names
    members = {(c, m) for _, c, m in public_members()}
    assert ("Value", "backward") in members and ("Engine", "data") in members


def test_a_name_without_a_docstring_is_found():
    """The checker itself: a function, a class and a dataclass with no docstring are caught."""

    def bare(): ...

    class Bare: ...

    @dataclasses.dataclass
    class Record:
        x: int

    def documented():
        """Documented."""

    for obj in (bare, Bare, Record, property(bare)):
        assert own_docstring(obj) is None, obj
    assert own_docstring(documented) == "Documented."
