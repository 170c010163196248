"""The framework pages (docs/frameworks/) are generated: the matrix (index.md) and one page per
framework are what `.ci/frameworks.py --render` writes from the committed results
(.ci/framework-results), every framework's page is linked from the matrix, and every defect a page
lists comes with its certified expected value, where it occurs and a reproducer that imports only
the framework; the reproducers, run again now, still print what the page says they printed.
No audit runs."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.ci_scripts import load

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "frameworks"


def ci_frameworks():
    """.ci/frameworks.py, imported from its path (.ci is no package)."""
    return load("frameworks")


def saved_results(frameworks):
    return {fw.name: r for fw in frameworks.FRAMEWORKS if (r := frameworks.saved(fw)) is not None}


def test_the_pages_are_what_render_writes_from_the_saved_results():
    frameworks = ci_frameworks()
    results = saved_results(frameworks)
    assert sorted(results) == sorted(fw.name for fw in frameworks.FRAMEWORKS)  # every one audited
    rendered = frameworks.pages(results)
    committed = {path.name: path.read_text() for path in sorted(DOCS.glob("*.md"))}
    assert sorted(committed) == sorted(rendered)
    for name, text in rendered.items():
        assert committed[name] == text, (
            f"docs/frameworks/{name} differs: run python .ci/frameworks.py --render"
        )


def test_every_page_is_linked_from_the_matrix_and_every_defect_is_reported_whole():
    frameworks = ci_frameworks()
    index = (DOCS / "index.md").read_text()
    for fw in frameworks.FRAMEWORKS:
        assert f"]({fw.name}.md)" in index
        page = (DOCS / f"{fw.name}.md").read_text()
        sections = page.split("\n### ")[1:]
        result = frameworks.saved(fw)
        assert len(sections) == len(result["defects"])
        for section in sections:
            # certified, or (a function not identified) its own forward's differences, said so
            assert "**Expected** (certified): `" in section or (
                "**Expected** (central differences of the framework's own forward: not identified" in section
            )
            assert "**Where**: " in section and "**Upstream**: " in section
        assert page.count(f"Reproducer (imports only {fw.title}):") == sum(
            "standalone" in d for d in result["defects"]
        )


@pytest.mark.slow
@pytest.mark.parametrize("name", ["pytorch", "jax", "mygrad", "tinygrad", "hips"])
def test_each_standalone_reproducer_imports_only_its_framework_and_prints_what_the_page_says(name):
    frameworks = ci_frameworks()
    fw = next(f for f in frameworks.FRAMEWORKS if f.name == name)
    # isolated (-I), or in the directory a framework installed apart runs from (HIPS autograd's)
    where = getattr(frameworks.load_adapter(fw.adapter), "standalone_directory", None)
    reports = [d for d in frameworks.saved(fw)["defects"] if "standalone" in d]
    for report in reports:
        imported = set(re.findall(r"^import (\w+)", report["standalone"], flags=re.MULTILINE))
        assert imported <= {fw.requirement.partition("==")[0], "functools"}, imported
        command = [sys.executable, *(["-I"] if where is None else []), "-c", report["standalone"]]
        ran = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=where)
        # what it printed, or the last line of its error (a crash)
        shown = ran.stdout.strip() or (ran.stderr.strip().splitlines() or ["(no output)"])[-1]
        assert shown == report["output"], report["expression"]
