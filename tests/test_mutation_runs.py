"""The mutation gate (.ci/mutation_gate.py, .ci/mutation/targets.toml) and its blind spots.

What each target runs is the gate's reading of targets.toml, tested on a small project of its own;
the project's targets must name modules and tests that exist.  The blind spot (the root conftest.py):

mutmut 3 forks each mutant's test process from a clean run ("stats") whose caches are full,
and records in that run which tests reach each function; it then runs a mutant only against
the tests recorded for its function.  A cached function looked reached by one test only, and a
mutant inside it never ran: it survived whatever the tests asserted.
"""

import hashlib
import importlib.util
from pathlib import Path

import pytest


def test_mutation_runs_empty_the_caches_that_would_hide_a_mutant():
    import conftest
    from autograd.testing import graph
    from autograd.testing.graph import Graph, Node
    from autograd.testing.oracles import reference

    def fill() -> None:
        Graph((0.5,), (Node("exp", (0,)),)).reference()
        graph._sympy_gradient(Graph((0.5, 2.0), (Node("mul", (0, 1)),)).structure)

    def cached() -> tuple[int, int]:
        return graph._sympy_gradient.cache_info().currsize, reference._has_intervals.cache_info().currsize

    fill()
    conftest.empty_caches("")  # not under mutmut: nothing
    assert min(cached()) > 0
    conftest.empty_caches("autograd.testing.probes.edges.x__edge_points__mutmut_3")  # another module's mutant
    assert min(cached()) > 0
    conftest.empty_caches("autograd.testing.oracles.reference.x__settled__mutmut_3")  # a reference mutant
    assert cached()[1] == 0 and cached()[0] > 0
    conftest.empty_caches("autograd.testing.graph.x__reaching__mutmut_3")  # a mutant of graph.py
    assert cached() == (0, 0)
    fill()
    conftest.empty_caches("stats")  # the clean run: every cache of the package
    assert cached() == (0, 0)


def _gate(monkeypatch=None, root=None):
    """.ci/mutation_gate.py, imported from its path (.ci is no package); with ``root``, reading that
    directory's pyproject.toml and .ci/mutation/targets.toml instead of the project's."""
    path = Path(__file__).resolve().parent.parent / ".ci" / "mutation_gate.py"
    spec = importlib.util.spec_from_file_location("mutation_gate", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if root is not None:
        monkeypatch.setattr(module, "ROOT", root)
        monkeypatch.setattr(module, "TARGETS", root / ".ci" / "mutation" / "targets.toml")
    return module


PYPROJECT = """
[tool.mutmut]
only_mutate = ["pkg/engine.py"]
also_copy = [".ci/"]
pytest_add_cli_args_test_selection = ["tests"]
pytest_add_cli_args = ["-m", "not slow"]
do_not_mutate_patterns = ['^x$']
"""

TARGETS = """
[tests.shared]
select = ["tests/test_a.py", "tests/test_b.py"]
deselect = ["tests/test_a.py::test_slow_one"]

[targets.one]
only_mutate = ["pkg/one.py"]
tests = ["shared"]
select = ["tests/test_c.py::test_x"]
markers = "not slow"

[targets.two]
offline = true
group = "both"
only_mutate = ["pkg/two.py", "pkg/three.py"]
tests = ["shared"]
do_not_mutate_patterns = ['^\\s+i \\+= 1$']

[targets.three]
offline = true
group = "both"
only_mutate = ["pkg/three.py"]
select = ["tests/test_c.py"]
"""


def _project(tmp_path, targets=TARGETS):
    (tmp_path / ".ci" / "mutation" / "survivors").mkdir(parents=True)
    (tmp_path / ".ci" / "mutation" / "targets.toml").write_text(targets, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    (tmp_path / "pkg").mkdir()
    for name in ("one", "two", "three"):
        (tmp_path / "pkg" / f"{name}.py").write_text(f"def f():\n    return '{name}'\n", encoding="utf-8")
    return tmp_path


def test_a_target_runs_the_engines_mutmut_table_with_its_modules_and_its_tests(monkeypatch, tmp_path):
    gate = _gate(monkeypatch, _project(tmp_path))
    assert list(gate.targets()) == ["engine", "one", "two", "three"]
    assert gate.mutmut_config("engine")["only_mutate"] == ["pkg/engine.py"]  # [tool.mutmut] as it is
    one = gate.mutmut_config("one")
    assert one == {
        "only_mutate": ["pkg/one.py"],
        "also_copy": [".ci/"],  # the engine's other keys are kept
        # the shared selection first, then the target's own
        "pytest_add_cli_args_test_selection": [
            "tests/test_a.py", "tests/test_b.py", "tests/test_c.py::test_x",
        ],
        "pytest_add_cli_args": [
            "--hypothesis-profile=mutation", "-p", "no:cacheprovider", "-m", "not slow",
            "--deselect=tests/test_a.py::test_slow_one",
        ],
        "do_not_mutate_patterns": [],  # not the engine's: a target excludes only what it says
    }  # fmt: skip
    assert gate.mutmut_config("two")["do_not_mutate_patterns"] == [r"^\s+i \+= 1$"]
    assert gate.mutmut_config("two")["pytest_add_cli_args"][-1] == "--deselect=tests/test_a.py::test_slow_one"
    assert gate.groups() == {"both": ["two", "three"]}
    assert [t for t in gate.targets() if gate.is_offline(t)] == ["two", "three"]
    assert gate.doc_path("two") == tmp_path / ".ci" / "mutation" / "survivors" / "two.md"


def test_a_mistake_in_the_targets_file_is_an_error_naming_the_table(monkeypatch, tmp_path):
    cases = {
        "[targets.one]\nonly_mutate = ['pkg/one.py']\nselect = ['t.py']\nfunctions = ['f']\n": (
            r"\[targets\.one\] has unknown keys \['functions'\]"
        ),
        "[targets.one]\nselect = ['t.py']\n": r"\[targets\.one\] has no only_mutate",
        "[targets.one]\nonly_mutate = ['pkg/one.py']\ntests = ['nowhere']\n": (
            r"\[targets\.one\] runs tests 'nowhere': no \[tests\.nowhere\]"
        ),
        "[targets.one]\nonly_mutate = ['pkg/one.py']\n": r"\[targets\.one\] selects no test",
        "[tests.s]\nselect = ['a.py']\nmarkers = 'slow'\n[targets.one]\nonly_mutate = ['pkg/one.py']\n"
        "tests = ['s']\nmarkers = 'not slow'\n": r"\[targets\.one\] has two markers expressions",
        "[tests.s]\nselect = ['a.py']\nskip = true\n[targets.one]\nonly_mutate = ['pkg/one.py']\n"
        "tests = ['s']\n": r"\[tests\.s\] has unknown keys \['skip'\]",
        "[targets.engine]\nonly_mutate = ['pkg/one.py']\nselect = ['t.py']\n": (
            r"`engine` is \[tool\.mutmut\]"
        ),
    }
    for i, (text, message) in enumerate(cases.items()):
        gate = _gate(monkeypatch, _project(tmp_path / str(i), text))
        with pytest.raises(ValueError, match=message):
            gate.mutmut_config("one")


def test_an_offline_list_is_current_stale_or_not_run_yet_by_its_modules_sha256(monkeypatch, tmp_path, capsys):
    root = _project(tmp_path)
    gate = _gate(monkeypatch, root)

    def digest(name: str) -> str:
        return hashlib.sha256((root / "pkg" / f"{name}.py").read_bytes()).hexdigest()

    survivors = root / ".ci" / "mutation" / "survivors"
    (survivors / "two.md").write_text(
        f"# two\n\n- source `pkg/two.py` sha256 `{digest('two')}`\n"
        f"- source `pkg/three.py` sha256 `{digest('three')}`\n",
        encoding="utf-8",
    )
    assert gate.check_stale(["two", "three"]) == []  # three has no list yet: said, not failed
    assert "three NOT RUN YET" in capsys.readouterr().out
    (root / "pkg" / "three.py").write_text("def f():\n    return 3\n", encoding="utf-8")
    (stale,) = gate.check_stale(["two"])
    assert stale.startswith("two: .ci/mutation/survivors/two.md lists the survivors of another pkg/three.py")


def test_every_target_of_the_project_names_modules_and_tests_that_exist():
    gate = _gate()
    root = Path(gate.ROOT)
    for target in gate.targets():
        config = gate.mutmut_config(target)
        assert config["only_mutate"] and all((root / p).is_file() for p in config["only_mutate"]), target
        tests = config["pytest_add_cli_args_test_selection"]
        deselected = [
            a.removeprefix("--deselect=") for a in config["pytest_add_cli_args"] if "--deselect=" in a
        ]
        for test in tests + deselected:
            path, *names = test.split("::")  # a file, or a test in it (in a class, parametrized)
            assert (root / path).exists(), (target, test)
            name = names[-1].partition("[")[0] if names else ""
            assert not name or f"def {name}(" in (root / path).read_text(encoding="utf-8"), (target, test)
        if not gate.is_offline(target):
            assert gate.doc_path(target).is_file(), target  # a CI target's list is committed
