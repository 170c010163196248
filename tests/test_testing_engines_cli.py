"""``python -m autograd.testing audit``: clean output whatever the engine prints, ``--adapter``,
and the install hint when the ``testing`` extra is missing.  Each test runs the CLI as a user does.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def audit_cli(*args, env=None):
    command = [sys.executable, "-m", "autograd.testing", "audit", *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=env, timeout=600)


@pytest.mark.slow
def test_json_is_one_document_whatever_the_engine_prints():
    out = audit_cli("tests.engines.prints", "--json", "--examples", "3")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)  # the whole of stdout: one JSON document
    assert data["engine"] == "tests.engines.prints" and data["defects"] == 0
    assert data["checks"]["determinism"] == "passed"  # its fresh interpreters print too
    assert "prints: engine imported" in out.stderr and "prints: backward" in out.stderr
    assert data["capabilities"]["gradient_api"] == "backward" and data["capabilities"]["adapter"] is None


@pytest.mark.slow
def test_the_text_report_of_an_adapter_is_not_interleaved_with_what_the_engine_prints():
    out = audit_cli("--adapter", "tests.engines.prints:adapter", "--examples", "3")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("audit of tests.engines.prints (through an adapter): class Value")
    assert "gradient: adapter, of the output passed to the adapter's backward" in lines
    for printed in ("prints: engine imported", "prints: add", "prints: backward"):
        assert printed not in out.stdout and printed in out.stderr
    assert lines[-1].startswith("verdict: no defects")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "words"),
    [
        ((), "give the engine (TARGET) or --adapter MODULE:OBJECT"),
        (("--adapter", "tests.engines.functional"), "--adapter wants MODULE:OBJECT"),
        (("--adapter", "no_such_module_here:x"), "cannot import 'no_such_module_here'"),
    ],
)
def test_a_bad_adapter_or_no_engine_is_one_line_and_exit_2(args, words):
    out = audit_cli(*args)
    assert out.returncode == 2 and out.stdout == ""
    assert words in out.stderr and "Traceback" not in out.stderr


def test_a_missing_extra_is_one_line_naming_the_install_command(tmp_path):
    fake = tmp_path / "sympy"
    fake.mkdir()
    (fake / "__init__.py").write_text('raise ImportError("sympy hidden by the test", name="sympy")\n')
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT)]))
    out = audit_cli("micrograd.engine", env=env)
    assert out.returncode == 2 and out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in out.stderr
    assert "sympy is missing" in lines[0] and "pip install '.[testing]'" in lines[0]
