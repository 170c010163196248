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


def test_each_probe_lives_where_the_probes_package_says():
    # A newcomer finds a probe in one guess: autograd/testing/probes/<module>, as the package's
    # docstring lists it; no probe module outside the package, no module in it that holds none.
    import re

    from autograd.testing import probes

    listed = {}  # probe name -> module file, from the docstring's table
    for line in probes.__doc__.split("::", 1)[1].splitlines():
        columns = re.split(r"\s{2,}", line.strip())
        if len(columns) == 3 and columns[1].endswith(".py"):
            listed.update(dict.fromkeys(columns[0].split(", "), columns[1]))
    assert set(listed) == set(probes.PROBES)
    for name, probe in probes.PROBES.items():
        assert probe.__module__ == "autograd.testing.probes." + listed[name].removesuffix(".py"), name
    package = ROOT / "autograd" / "testing" / "probes"
    helpers = {"__init__.py", "common.py", "regions.py", "subnormals.py"}  # shared (the docstring says so)
    assert all(f"``{name}``" in probes.__doc__ for name in helpers - {"__init__.py"})
    modules = {p.name for p in package.glob("*.py")} - helpers
    assert modules == set(listed.values())
    assert sorted((ROOT / "autograd" / "testing").glob("probe*.py")) == []
