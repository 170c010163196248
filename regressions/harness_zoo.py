"""The harness zoo: bugs planted in the verdict logic of ``autograd.testing``, each with the test
that catches it.

The bug zoo (``bug_zoo.py``) breaks the engine and shows that the harness notices; this zoo breaks
the harness and shows that its own self-tests notice: a check that judges nothing, a probe that
tolerates a defect, a confirmation that confirms nothing (or anything), a classification that
calls a convention a defect, a strategy that stops drawing a shape.  Each plant is one or more
checked text substitutions of one module's source (each old text must occur exactly once, so a
refactor breaks the zoo loudly instead of planting nothing), applied at import time in a fresh
interpreter that then runs the named catching tests; ``test_harness_zoo.py`` asserts they fail.

    python -m regressions.harness_zoo                 # list the plants
    python -m regressions.harness_zoo NAME [-- ARGS]  # run NAME's catching tests with NAME planted

This module imports nothing from ``autograd`` (the plant must be in place before the first import).
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MARKER = "harness zoo: planted"  # printed by the planting loader, so a run proves the plant was imported


class ZooOutOfDate(AssertionError):
    """A plant's old text no longer occurs exactly once: re-point it at the code as it is now."""


@dataclass(frozen=True)
class Plant:
    name: str
    what: str  # the planted bug, in one line
    module: str  # dotted name of the module planted in
    edits: tuple[tuple[str, str], ...]  # (old text, new text), each old text exactly once
    caught_by: tuple[str, ...]  # pytest node ids (relative to the project root) that must fail

    @property
    def path(self) -> Path:
        base = ROOT / self.module.replace(".", "/")
        return base / "__init__.py" if base.is_dir() else base.with_suffix(".py")  # a package, a module

    def planted(self, source: str) -> str:
        for old, new in self.edits:
            count = source.count(old)
            if count != 1:
                raise ZooOutOfDate(
                    f"harness zoo, {self.name}: expected one {old!r} in {self.path}, found {count}"
                )
            source = source.replace(old, new)
        return source


GEN = "tests/test_testing_generation.py"
PROBES = "tests/test_testing_probes.py"
RULES = "tests/test_testing_verdict_rules.py"

PLANTS = {
    p.name: p
    for p in [
        Plant(
            "reuse_never_drawn",
            "the graph strategy never draws a binary op with one node as both operands (a + a, h * h)",
            "autograd.testing.strategies.nodes",
            (
                ("if a in seconds and draw(st.integers(0, 2)) == 1:", "if False:"),
                (
                    "return (a, draw(st.sampled_from(seconds)))",
                    "others = [j for j in seconds if j != a]\n"
                    "        return (a, draw(st.sampled_from(others))) if others else None",
                ),
            ),
            (f"{GEN}::test_float_graphs_draw_every_shape_of_every_op[autograd]",
             f"{GEN}::test_rational_graphs_draw_every_shape_of_every_closed_op"),
        ),
        Plant(
            "reuse_by_chance_only",
            "binary reuse drawn only when the second operand happens to be the first (a fraction as often)",
            "autograd.testing.strategies.nodes",
            (("if a in seconds and draw(st.integers(0, 2)) == 1:", "if False:"),),
            (f"{GEN}::test_float_graphs_draw_every_shape_of_every_op[autograd]",),
        ),
        Plant(
            "root_always_joined",
            "the graph strategy never puts an op on top of the joined output (the root is almost always add)",
            "autograd.testing.strategies.examples",
            (("rooted = draw(st.integers(0, 3)) != 0", "rooted = False"),),
            (f"{GEN}::test_float_graphs_draw_every_shape_of_every_op[autograd]",),
        ),
        Plant(
            "root_op_anywhere",
            "the root op takes any slot: the joined output may feed nothing (its nodes' rules unchecked)",
            "autograd.testing.strategies.nodes",
            (("top = len(values) - 1  # the output so far", "top = None"),),
            (f"{GEN}::test_float_graphs_draw_every_shape_of_every_op[autograd]",),
        ),
        Plant(
            "judged_nothing_passes",
            "the verdict rule calls a check that judged nothing 'passed'",
            "autograd.testing.findings",
            (("    elif judged > 0:", "    elif True:"),),
            (f"{RULES}::test_a_check_that_judged_nothing_is_not_applicable_never_passed",),
        ),
        Plant(
            "determinism_tolerates_two",
            "the determinism probe accepts an engine whose builds give exactly two different gradients",
            "autograd.testing.probes.determinism",
            (("    if len(seen) <= 1:", "    if len(seen) <= 2:"),),
            (f"{RULES}::test_determinism_reports_an_engine_whose_builds_give_just_two_gradients",),
        ),
        Plant(
            "edge_confirms_nothing",
            "an edge point's wrong gradient is never confirmed, even when both oracles disagree with it",
            "autograd.testing.probes.edges",
            (('kind = "wrong_gradient" if vote.kind == "defect" else "inconclusive"',
              'kind = "inconclusive"'),),
            (f"{PROBES}::test_each_fixture_causes_exactly_its_findings[wrong_rule]",),
        ),
        Plant(
            "edge_confirms_anything",
            "an edge point's gradient is called wrong on sympy's word alone (no second method agreeing)",
            "autograd.testing.probes.edges",
            (('kind = "wrong_gradient" if vote.kind == "defect" else "inconclusive"',
              'kind = "wrong_gradient"'),),
            (f"{PROBES}::test_an_oracle_that_cannot_judge_a_point_gives_no_verdict",
             "tests/test_testing_edges.py::test_a_gradient_wrong_where_neither_differences_settle_is_inconclusive"),
        ),
        Plant(
            "convention_is_a_defect",
            "a convention (how backward() accumulates, relu'(0)) is classified as a defect",
            "autograd.testing.findings",
            (('    "memory_leak",\n)', '    "memory_leak",\n    "convention",\n)'),),
            (f"{PROBES}::test_conventions_are_facts_about_interior_accumulation",
             f"{RULES}::test_information_is_no_failure[convention]"),
        ),
    ]
}  # fmt: skip


APPLIED: list[str] = []  # the plants imported in this interpreter (pytest captures prints meanwhile)


class _PlantingLoader(importlib.machinery.SourceFileLoader):
    plant: Plant

    def get_code(self, fullname: str) -> Any:  # compiled from the planted text, never from a cache
        source = self.plant.planted(self.get_data(self.path).decode("utf-8"))
        APPLIED.append(self.plant.name)
        return compile(source, self.path, "exec", dont_inherit=True)


class _PlantingFinder:
    def __init__(self, plant: Plant) -> None:
        self.plant = plant

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname != self.plant.module:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.origin is None:
            raise ZooOutOfDate(f"harness zoo: no module {fullname}")
        loader = _PlantingLoader(fullname, spec.origin)
        loader.plant = self.plant
        return importlib.util.spec_from_file_location(fullname, spec.origin, loader=loader)


def install(plant: Plant) -> None:
    """Plant ``plant`` in this interpreter; must run before anything imports its module."""
    if plant.module in sys.modules:
        raise RuntimeError(f"harness zoo: {plant.module} is already imported, too late to plant")
    sys.dont_write_bytecode = True
    sys.meta_path.insert(0, _PlantingFinder(plant))


def run_planted(name: str, extra: Sequence[str] = ()) -> subprocess.CompletedProcess[str]:
    """The plant's catching tests, run in a fresh interpreter with the plant in place."""
    plant = PLANTS[name]
    plant.planted(plant.path.read_text(encoding="utf-8"))  # out of date: fail here, loudly
    command = [sys.executable, "-m", "regressions.harness_zoo", name, "--", *extra]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)


def main(argv: Sequence[str]) -> int:
    if not argv:
        for plant in PLANTS.values():
            print(f"{plant.name}: {plant.what}\n    caught by: " + "\n               ".join(plant.caught_by))
        return 0
    name, rest = argv[0], list(argv[1:])
    extra = rest[1:] if rest[:1] == ["--"] else rest
    plant = PLANTS[name]
    install(plant)
    import pytest

    # the catching tests run here, with the plant; this interpreter collects only them, so
    # tests that would re-run themselves alone (conftest.alone) run their body in place
    os.environ["AUTOGRAD_TEST_ALONE"] = "*"

    # --assert=plain: where the package is installed, pytest marks every module of a distribution
    # with a pytest11 entry point (ours) for assertion rewriting, and its import hook, put before
    # the planting finder, would load the module unplanted
    code = int(pytest.main(["-q", "-p", "no:cacheprovider", "--assert=plain", *extra, *plant.caught_by]))
    for applied in APPLIED:
        print(f"{MARKER} {applied} in {plant.module}")
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
