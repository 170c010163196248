"""The audit as a pytest plugin (autograd/pytest_plugin.py): items, options, the accepted-findings
file, the fixture, and what loading it costs a session that does not use it.

Each inner session runs with ``-p autograd.pytest_plugin`` (the project is not installed here, so
its entry point is not loaded by itself).  Whole audits are marked ``slow`` and kept small
(``--audit-examples 2`` or 3).
"""

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import tomllib

from autograd.testing.auditor import check_names

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parent.parent
PLUGIN = ("-p", "autograd.pytest_plugin", "-p", "no:cacheprovider")
CLEAN = "tests.engines.audit_scalar_backwards"  # a correct engine (backwards(), not backward())
WRONG_MUL = "tests.engines.audit_wrong_mul"  # mul's rule sends back 1% too much gradient
USAGE_ERROR = 4  # pytest.ExitCode.USAGE_ERROR


@pytest.fixture
def inner(pytester, monkeypatch):
    """An inner pytest session, in process, that imports this checkout (``tests.engines...``)."""
    pytester.syspathinsert(ROOT)
    pytester.syspathinsert()  # and the engines a test writes there
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # for the sessions run in a subprocess
    return pytester


def run(pytester, *args, subprocess=False):
    go = pytester.runpytest_subprocess if subprocess else pytester.runpytest
    return go(*PLUGIN, *args)


def accepted_file(pytester, text):
    pytester.path.joinpath("audit-accepted.toml").write_text(text, encoding="utf-8")


# ---------------------------------------------------------------------- loading it costs nothing
def installed(pytester):
    """A directory for PYTHONPATH holding the distribution's metadata with pyproject's entry points,
    as an installation writes them (the checkout itself is on PYTHONPATH too)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    info = pytester.mkdir("site") / "verified_autograd-0.1.0.dist-info"
    info.mkdir()
    info.joinpath("METADATA").write_text("Metadata-Version: 2.1\nName: verified-autograd\nVersion: 0.1.0\n")
    points = [f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in table.items())
              for group, table in project["entry-points"].items()]  # fmt: skip
    info.joinpath("entry_points.txt").write_text("\n".join(points))
    return info.parent


def test_the_entry_point_is_declared_in_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    # named as its module, so that `-p autograd.pytest_plugin` is the same plugin and not a second one
    assert project["entry-points"]["pytest11"] == {"autograd.pytest_plugin": "autograd.pytest_plugin"}
    # the plugin needs pytest, which comes with the testing extra
    assert any(req.startswith("pytest") for req in project["optional-dependencies"]["testing"])


@pytest.mark.parametrize("also", [(), ("-p", "autograd.pytest_plugin")], ids=["entry-point", "and-p"])
def test_an_installed_package_gives_the_audit_to_every_pytest_session(inner, monkeypatch, also):
    monkeypatch.setenv("PYTHONPATH", f"{installed(inner)}:{ROOT}")
    inner.makepyfile(test_other="def test_other(): pass")
    result = inner.runpytest_subprocess(
        *also, "-p", "no:cacheprovider", "--audit=micrograd.engine", "--co", "-q"
    )
    assert result.ret == 0, result.stderr.str()
    ids = [line for line in result.outlines if "::" in line]
    assert ids == ["test_other.py::test_other", *(f"audit[micrograd.engine]::{n}" for n in check_names())]


def test_loading_the_plugin_imports_no_harness():
    heavy = ("sympy", "mpmath", "hypothesis", "torch", "autograd.testing")
    program = f"import autograd.pytest_plugin, sys; print([m for m in {heavy!r} if m in sys.modules])"
    done = subprocess.run([sys.executable, "-c", program], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_without_audit_the_plugin_adds_no_item_and_imports_no_harness(inner):
    inner.makepyfile(
        test_plain="""
        import sys

        def test_plain():
            assert "sympy" not in sys.modules and "autograd.testing" not in sys.modules
        """
    )
    accepted_file(inner, "not toml [")  # not read without --audit
    result = run(inner, subprocess=True)
    result.assert_outcomes(passed=1)
    assert "autograd audit" not in result.stdout.str()


# ---------------------------------------------------------------------- collection, usage errors
@pytest.mark.slow  # (one audit, at the end)
def test_one_item_per_check_in_report_order_without_running_the_audit(inner):
    # collecting costs nothing: each Value the harness builds of this engine adds a line to a file
    inner.makepyfile(
        counted=f"""
        from pathlib import Path

        from {CLEAN} import Scalar as Base

        class Value(Base):
            def __init__(self, *args, **kwargs):
                with open(Path(__file__).with_name("made.txt"), "a") as made:
                    made.write("1\\n")
                super().__init__(*args, **kwargs)
        """
    )
    result = run(inner, f"--audit={CLEAN}", "--audit=counted:Value", "--collect-only", "-q")
    ids = [line for line in result.outlines if line.startswith("audit[")]
    names = check_names()
    assert len(names) > 10 and names[:2] == ["ops", "exact"]
    assert ids == [f"audit[{t}]::{n}" for t in (CLEAN, "counted:Value") for n in names]
    made = inner.path / "made.txt"
    built = len(made.read_text().splitlines()) if made.exists() else 0
    assert built < 20  # the target's discovery, at the start, and no search
    result = run(inner, "--audit=counted:Value", "--audit-examples", "1", "-k", "exact")
    assert len(made.read_text().splitlines()) > built + 20  # the audit, once an item runs


def test_k_selects_checks_and_m_selects_the_audit(inner):
    inner.makepyfile(test_other="def test_other(): pass")
    result = run(inner, f"--audit={CLEAN}", "--collect-only", "-q", "-k", "symbolic or exact")
    assert [line for line in result.outlines if "::" in line] == [
        f"audit[{CLEAN}]::exact",
        f"audit[{CLEAN}]::symbolic",
    ]
    result = run(inner, f"--audit={CLEAN}", "--collect-only", "-q", "-m", "autograd_audit")
    assert "test_other.py::test_other" not in result.stdout.str()
    assert sum(line.startswith("audit[") for line in result.outlines) == len(check_names())


@pytest.mark.parametrize(
    "target, says",
    [
        ("no_such_module_anywhere", "cannot import 'no_such_module_anywhere'"),
        ("json", "no scalar autograd class found in json"),
        (f"{CLEAN}:Nothing", "has no class 'Nothing'"),
    ],
)
def test_a_target_with_no_engine_is_a_usage_error(inner, target, says):
    result = run(inner, f"--audit={target}")
    assert result.ret == USAGE_ERROR
    error = result.stderr.str()
    assert f"--audit={target}: " in error and says in error


def test_audit_examples_below_one_is_a_usage_error(inner):
    result = run(inner, f"--audit={CLEAN}", "--audit-examples", "0")
    assert result.ret == USAGE_ERROR
    assert "--audit-examples must be at least 1, not 0" in result.stderr.str()


# ---------------------------------------------------------------------- the accepted-findings file
@pytest.mark.parametrize(
    "text, says",
    [
        ('[[accepted]]\nkind = "wrong_gradient"\nop = "mul"\n', 'entry 1 (kind = "wrong_gradient"): no'),
        ('[[accepted]]\nkind = "crash"\nop = "mul"\nreason = "  "\n', 'entry 1 (kind = "crash"): no reason'),
        (
            '[[accepted]]\nkind = "crash"\nop = "mul"\nreason = "r"\n'
            '[[accepted]]\nkind = "convention"\nreason = "r"\n',
            "entry 2 (kind = \"convention\"): kind 'convention' is not a defect kind",
        ),
        ('[[accepted]]\nkind = "crash"\nop = "mul"\nreason = "r"\nwhy = "x"\n', "unknown keys ['why']"),
        ('[[accepted]]\nkind = "crash"\nreason = "r"\n', "a crash without an op is identified by its check"),
        (
            '[[accepted]]\nkind = "wrong_gradient"\nop = "mul"\ncheck = "exact"\nreason = "r"\n',
            "check is not part of this finding's identity",
        ),
        ('[[accepted]]\nkind = "crash"\nop = 3\nreason = "r"\n', "op must be a string, not 3"),
        ('[[accepted]\nkind = "crash"\n', "cannot read it"),
        ('kind = "crash"\n', "unknown top-level keys ['kind']"),
    ],
    ids=["no-reason", "blank-reason", "not-a-defect", "unknown-key", "crash-no-op-no-check",
         "check-not-identity", "op-not-string", "not-toml", "no-table"],
)  # fmt: skip
def test_a_malformed_accepted_file_is_a_usage_error_naming_file_and_entry(inner, text, says):
    accepted_file(inner, text)
    result = run(inner, f"--audit={CLEAN}", "--collect-only")
    assert result.ret == USAGE_ERROR
    error = result.stderr.str()
    assert f"accepted-findings file {inner.path / 'audit-accepted.toml'}" in error
    assert says in error


def test_a_missing_audit_accepted_path_is_a_usage_error(inner):
    result = run(inner, f"--audit={CLEAN}", "--audit-accepted=nowhere.toml")
    assert result.ret == USAGE_ERROR
    assert "--audit-accepted=nowhere.toml: no such file" in result.stderr.str()


# ---------------------------------------------------------------------- whole audits
@pytest.mark.slow
def test_a_correct_engine_passes_every_applicable_check_and_junit_has_one_testcase_each(inner):
    result = run(inner, f"--audit={CLEAN}", "--audit-examples", "2", "-rsP", "--junitxml=out.xml")
    outcomes = result.parseoutcomes()
    assert result.ret == 0 and "failed" not in outcomes and "error" not in outcomes
    assert outcomes["passed"] + outcomes.get("skipped", 0) == len(check_names())
    assert outcomes["passed"] >= 10  # the gradient checks judged something
    # a check that could judge nothing is skipped with its reason, never passed
    assert f"SKIPPED [1] audit[{CLEAN}]: second_order not applicable:" in result.stdout.str()
    suite = ET.parse(inner.path / "out.xml").getroot().find("testsuite")
    cases = suite.findall("testcase")
    assert [(c.get("classname"), c.get("name")) for c in cases] == [
        (f"audit[{CLEAN}]", n) for n in check_names()
    ]
    # the facts found are in the terminal summary, counted
    assert f"{CLEAN}: {len(check_names())} checks run (2 examples per search, seed 0)" in result.stdout.str()
    assert "facts: " in result.stdout.str()
    # each passing item's report has the check's part of the report (-rP shows it)
    out = result.stdout.str()
    assert out.count("Captured audit call") == outcomes["passed"]
    assert f"audit of {CLEAN}: class Scalar (number .value, gradient .gradient, backwards())" in out


@pytest.mark.slow
def test_under_xdist_the_summary_gathers_the_workers_items(inner):
    result = run(inner, f"--audit={CLEAN}", "--audit-examples", "1", "-n", "2", subprocess=True)
    outcomes = result.parseoutcomes()
    assert result.ret == 0 and outcomes["passed"] + outcomes.get("skipped", 0) == len(check_names())
    assert f"{CLEAN}: {len(check_names())} checks run (1 examples per search, seed 0)" in result.stdout.str()


@pytest.mark.slow
def test_a_planted_defect_fails_the_checks_that_find_it_with_its_reproducer(inner):
    result = run(inner, f"--audit={WRONG_MUL}", "--audit-examples", "2", "--junitxml=out.xml")
    assert result.ret == 1
    failed = {line.split("::")[1].split()[0] for line in result.outlines if line.startswith("FAILED audit[")}
    assert {"exact", "symbolic"} <= failed
    assert "ops" not in failed and "depth" not in failed  # checks that cannot see a gradient pass
    out = result.stdout.str()
    assert "wrong_gradient [exact]" in out
    assert f"from {WRONG_MUL} import Value" in out  # the reproducer
    accept = f'accept it in {inner.path / "audit-accepted.toml"} with:\n[[accepted]]\nkind = "wrong_gradient"'
    assert accept + '\nop = "mul"\nreason = "..."' in out  # how to accept it
    suite = ET.parse(inner.path / "out.xml").getroot().find("testsuite")
    junit_failed = {c.get("name") for c in suite.findall("testcase") if c.find("failure") is not None}
    assert junit_failed == failed
    # -x stops at the first failing check
    result = run(inner, f"--audit={WRONG_MUL}", "--audit-examples", "2", "-x")
    outcomes = result.parseoutcomes()
    assert (
        outcomes["failed"] == 1 and outcomes["passed"] + outcomes.get("skipped", 0) < len(check_names()) - 1
    )


@pytest.mark.slow
def test_accepted_defects_pass_and_the_summary_says_which_and_why(inner):
    accepted_file(
        inner,
        "".join(
            f'[[accepted]]\nkind = "wrong_gradient"\nop = "{op}"\nreason = "planted: {op} is 1% off"\n'
            for op in ("mul", "mulc", "vmulc")
        )
        + '[[accepted]]\nkind = "wrong_gradient"\nop = "exp"\nreason = "nothing of the kind"\n',
    )
    result = run(inner, f"--audit={WRONG_MUL}", "--audit-examples", "2")
    assert result.ret == 0, result.stdout.str()
    out = result.stdout.str()
    assert "0 defects not accepted, 3 accepted" in out
    assert 'accepted by entry 1 (kind = "wrong_gradient", op = "mul"): [exact] v * w:' in out
    assert "reason: planted: mul is 1% off" in out
    assert 'entry 4 (kind = "wrong_gradient", op = "exp") matched no finding of the checks run' in out


@pytest.mark.slow
def test_micrograd_fails_on_its_defects_and_passes_once_they_are_accepted(inner):
    # micrograd 0.1.0: x ** 0 at x = 0 and c / x at a tiny x crash in backward (the rule computes
    # n * x ** (n - 1)); children in a set make float sums depend on the order of ids
    result = run(inner, "--audit=micrograd.engine", "--audit-examples", "3")
    assert result.ret == 1
    failed = {line.split("::")[1].split()[0] for line in result.outlines if line.startswith("FAILED audit[")}
    assert failed == {"edge_points", "determinism"}
    assert "from micrograd.engine import Value" in result.stdout.str()
    accepted_file(
        inner,
        '[[accepted]]\nkind = "crash"\nop = "powc"\nreason = "0.0 ** -1 in pow backward"\n'
        '[[accepted]]\nkind = "crash"\nop = "rdiv"\nreason = "c / v is c * v ** -1"\n'
        '[[accepted]]\nkind = "nondeterministic"\nreason = "children in a set"\n',
    )
    result = run(inner, "--audit=micrograd.engine", "--audit-examples", "3", "-v")
    assert result.ret == 0, result.stdout.str()
    outcomes = result.parseoutcomes()
    assert outcomes["passed"] + outcomes.get("skipped", 0) == len(check_names())
    out = result.stdout.str()
    assert "0 defects not accepted, 3 accepted" in out
    # facts never fail an item; -v lists them in the summary
    assert "convention:" in out and "relu'(0) is taken as 0" in out


@pytest.mark.slow
def test_the_fixture_audits_once_and_applies_the_accepted_file(inner):
    accepted_file(inner, '[[accepted]]\nkind = "wrong_gradient"\nop = "mul"\nreason = "planted"\n')
    inner.makepyfile(
        test_plugin_fixture=f"""
        def test_the_audit(autograd_audit):
            report = autograd_audit("{WRONG_MUL}", examples=2)
            assert autograd_audit("{WRONG_MUL}", examples=2) is report  # audited once
            kinds = {{(f.kind, f.op) for f in report.defects}}
            assert ("wrong_gradient", "mul") in kinds
            left = {{(f.kind, f.op) for f in autograd_audit.unaccepted(report)}}
            assert left == kinds - {{("wrong_gradient", "mul")}} and left
        """
    )
    run(inner).assert_outcomes(passed=1)


@pytest.mark.slow
def test_the_pages_sample_summary_is_what_micrograd_gives(tmp_path):
    page = (ROOT / "docs" / "pytest-plugin.md").read_text(encoding="utf-8")
    command = "pytest --audit=micrograd.engine\n--audit-examples 3"  # as the page says it, across a line
    assert command in page
    toml = page.split("## Accepting known findings", 1)[1].split("```toml\n", 1)[1].split("```", 1)[0]
    sample = page.split("## The terminal summary", 1)[1].split("```\n", 1)[1].split("```", 1)[0]
    assert tomllib.loads(toml)["accepted"]  # entries, checked by the plugin itself below
    (tmp_path / "audit-accepted.toml").write_text(toml, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *PLUGIN, "--audit=micrograd.engine", "--audit-examples", "3"],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout[-3000:]  # the defect the page leaves unaccepted
    lines = done.stdout.splitlines()
    at = 0
    for want in sample.splitlines():  # each line of the sample, in order; "..." ends a cut line
        cut = want.removesuffix("...")
        found = [
            i
            for i, line in enumerate(lines[at:], at)
            if line == want or (cut != want and line.startswith(cut))
        ]
        assert found, f"{want!r} not in the summary:\n{done.stdout[-3000:]}"
        at = found[0] + 1
    assert "FAILED audit[micrograd.engine]::edge_points" in done.stdout
