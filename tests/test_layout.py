"""Layout rules of the test suite itself."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def imported_modules(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)


def test_no_test_module_imports_another_test_module():
    # Shared helpers live in plain modules (e.g. tests/wrong_engines.py): importing a test
    # module runs its collection-time code twice and makes pytest collect its tests twice.
    offenders = [
        f"{path.relative_to(ROOT)} imports {name}"
        for folder in ("tests", "properties", "regressions")
        for path in sorted((ROOT / folder).rglob("test_*.py"))
        for name in imported_modules(path)
        if name.rpartition(".")[2].startswith("test_")
    ]
    assert offenders == []
