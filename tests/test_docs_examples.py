"""The Python examples of README.md and docs/ that show their output print exactly that output.

An example that shows its output is a ```python block followed at once by a plain ``` block; the
example is run as a program from the repository's root and what it prints must be the second block.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
EXAMPLE = re.compile(r"^```python\n(.*?)^```\n```\n(.*?)^```", re.S | re.M)


def examples() -> list[tuple[Path, str, str]]:
    return [(path, code, shown) for path in DOCUMENTS for code, shown in EXAMPLE.findall(path.read_text())]


def test_the_documents_show_examples_with_their_output():
    assert len(examples()) >= 4


@pytest.mark.parametrize(
    ("path", "code", "shown"),
    [
        pytest.param(path, code, shown, id=f"{path.relative_to(ROOT).as_posix()}:{i}")
        for i, (path, code, shown) in enumerate(examples())
    ],
)
def test_each_example_prints_what_it_shows(path, code, shown):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env)
    assert run.returncode == 0, run.stderr
    assert run.stdout.rstrip() == shown.rstrip(), f"{path.relative_to(ROOT)}: it prints\n{run.stdout}"
