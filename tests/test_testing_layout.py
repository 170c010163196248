"""The harness's shape, held: small rooms a reader can take in at one sitting.

Every module of ``autograd.testing`` fits one sitting, every function a screen or two, and no
class is built inside a function (a class in a function hides its rules from the reader, from
``inspect`` and from mutation testing).  Data tables are rows, not code: a module whose bulk is
one table says so in :data:`TABLES`.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import autograd.testing

PACKAGE = Path(autograd.testing.__file__).parent
MODULES = sorted(PACKAGE.rglob("*.py"))
MAX_MODULE_LINES = 420
MAX_FUNCTION_LINES = 80
#: Modules that are mostly one data table (one row per op or function), which reads row by row.
TABLES = {"ops/table.py", "ops/catalogue.py"}


def _name(path: Path) -> str:
    return path.relative_to(PACKAGE).as_posix()


@pytest.mark.parametrize("path", [p for p in MODULES if _name(p) not in TABLES], ids=_name)
def test_a_module_fits_one_sitting(path):
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_MODULE_LINES, f"{_name(path)}: {lines} lines; split it along its parts"


@pytest.mark.parametrize("path", MODULES, ids=_name)
def test_functions_are_short_and_build_no_classes(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    long = {
        f.name: f.end_lineno - f.lineno + 1
        for f in functions
        if f.end_lineno - f.lineno + 1 > MAX_FUNCTION_LINES
    }
    assert long == {}, f"{_name(path)}: functions over {MAX_FUNCTION_LINES} lines"
    inner = [(f.name, c.name) for f in functions for c in ast.walk(f) if isinstance(c, ast.ClassDef)]
    assert inner == [], f"{_name(path)}: classes built inside functions"


def test_the_layout_is_found_and_the_limits_can_fail():
    assert {"runner.py", "auditor.py", "checks/registry.py", "boundary.py"} <= {_name(p) for p in MODULES}
    assert {_name(p) for p in MODULES} >= TABLES  # a table that moved or went away is a stale exemption
    sizes = [len(p.read_text(encoding="utf-8").splitlines()) for p in MODULES]
    assert max(sizes) > MAX_MODULE_LINES // 4  # the scan reads real modules, not empty files
