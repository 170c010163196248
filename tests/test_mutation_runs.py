"""The mutation gate's own blind spots (.ci/mutation_gate.py and the root conftest.py).

mutmut 3 forks each mutant's test process from a clean run ("stats") whose caches are full,
and records in that run which tests reach each function; it then runs a mutant only against
the tests recorded for its function.  A cached function looked reached by one test only, and a
mutant inside it never ran: it survived whatever the tests asserted.
"""


def test_mutation_runs_empty_the_caches_that_would_hide_a_mutant():
    import conftest
    from autograd.testing import graph, reference
    from autograd.testing.graph import Graph, Node

    def fill() -> None:
        Graph((0.5,), (Node("exp", (0,)),)).reference()
        graph._sympy_gradient(Graph((0.5, 2.0), (Node("mul", (0, 1)),)).structure)

    def cached() -> tuple[int, int]:
        return graph._sympy_gradient.cache_info().currsize, reference._function.cache_info().currsize

    fill()
    conftest.empty_caches("")  # not under mutmut: nothing
    assert min(cached()) > 0
    conftest.empty_caches("autograd.testing.probes.edges.x__edge_points__mutmut_3")  # another module's mutant
    assert min(cached()) > 0
    conftest.empty_caches("autograd.testing.reference.x__settled__mutmut_3")  # a mutant of reference.py
    assert cached()[1] == 0 and cached()[0] > 0
    conftest.empty_caches("autograd.testing.graph.x__reaching__mutmut_3")  # a mutant of graph.py
    assert cached() == (0, 0)
    fill()
    conftest.empty_caches("stats")  # the clean run: every cache of the package
    assert cached() == (0, 0)


def _gate():
    """.ci/mutation_gate.py, imported from its path (.ci is no package)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / ".ci" / "mutation_gate.py"
    spec = importlib.util.spec_from_file_location("mutation_gate", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


MODULE = '''def f(x):
    return x + 1


class C:
    def m(self):
        def inner():
            return 2
        return inner()


def g():
    return 3
'''


def _parts_of(monkeypatch, tmp_path, parts):
    gate = _gate()
    (tmp_path / "pkg").mkdir(exist_ok=True)
    (tmp_path / "pkg" / "mod.py").write_text(MODULE)
    tables = {name: {"only_mutate": ["pkg/mod.py"], "functions": p} for name, p in parts.items()}
    monkeypatch.setattr(gate, "ROOT", tmp_path)
    monkeypatch.setattr(gate, "targets", lambda: {"engine": {}, **tables})
    return gate


def test_a_part_names_its_mutants_as_mutmut_does(monkeypatch, tmp_path):
    gate = _parts_of(monkeypatch, tmp_path, {"a": ["f", "C.*"]})
    assert gate.function_sources("pkg/mod.py").keys() == {"f", "C.m", "g"}  # inner is part of C.m
    assert gate.part_globs({"only_mutate": ["pkg/mod.py"]}, ["f", "C.*"]) == [
        "pkg.mod.xǁCǁm__mutmut_*",
        "pkg.mod.x_f__mutmut_*",
    ]
    # and back: mutmut's name of a mutant of C.m is listed under the function C.m
    assert gate.function_of("pkg.mod.xǁCǁm__mutmut_7") == "pkg.mod.C.m"


def test_a_parts_digest_changes_with_its_functions_only(monkeypatch, tmp_path):
    gate = _parts_of(monkeypatch, tmp_path, {"a": ["f", "C.*"], "b": ["g"]})
    before = gate.source_digest("pkg/mod.py", ["f", "C.*"]), gate.source_digest("pkg/mod.py", ["g"])
    (tmp_path / "pkg" / "mod.py").write_text(MODULE.replace("return 3", "return 4"))
    after = gate.source_digest("pkg/mod.py", ["f", "C.*"]), gate.source_digest("pkg/mod.py", ["g"])
    assert before[0] == after[0] and before[1] != after[1]
    (tmp_path / "pkg" / "mod.py").write_text(MODULE.replace("return 2", "return 5"))  # inside C.m
    assert gate.source_digest("pkg/mod.py", ["f", "C.*"]) != before[0]


def test_every_function_of_a_module_gated_in_parts_is_in_exactly_one(monkeypatch, tmp_path):
    gate = _parts_of(monkeypatch, tmp_path, {"a": ["f", "C.*"], "b": ["g"]})
    assert gate.unpartitioned(["a", "b"]) == []
    gate = _parts_of(monkeypatch, tmp_path, {"a": ["f"], "b": ["g", "f"]})
    (left_out, twice) = sorted(gate.unpartitioned(["a", "b"]))
    assert "`C.m` is in 0 parts (none)" in left_out
    assert "`f` is in 2 parts (a, b)" in twice
