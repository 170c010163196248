"""What the fast tier catches: bugs from the regression zoos planted one at a time, the tier run on each.

    python -m regressions.tier_catch                  # every text plant of the three zoos
    python -m regressions.tier_catch --every 3        # every third plant of each zoo
    python -m regressions.tier_catch --list           # the plants, without running anything
    python -m regressions.tier_catch "sub sign" log_row_operand

The plants are the zoos' own, as text substitutions of one source file each: the bug zoo's
broken engines and networks (``bug_zoo.BUGS``; the two whose bug is a replaced graph walk, not a
text edit, are left out), the harness zoo's wrong verdict logic (``harness_zoo.PLANTS``) and the
fault zoo's exceptions of ours (``fault_zoo.FAULTS``).  The project is copied once into a scratch
directory; for each plant the edit is written into the copy's file, the fast tier runs there (the
pytest command of tox.ini's ``[testenv:fast]``, with its Hypothesis profile, plus ``-x``), and the
file is restored.  A plant is caught when the tier fails.  The copy is first run unplanted: it
must pass, or nothing it says about a plant means anything.

Left out of each run: the zoos' own checks that a plant's old text occurs in the source
(``test_each_*_applies_to_the_code_as_it_is``): with the plant written into the file they fail by
construction, which says nothing about what the tier catches.

This is a measurement, not a test: it takes a minute a plant and is not part of the suite.
"""

from __future__ import annotations

import argparse
import configparser
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Deselected in every run: they compare the plant with the source, not the code's behaviour.
DESELECT = (
    "regressions/test_harness_zoo.py::test_each_plant_applies_to_the_code_as_it_is",
    "regressions/test_fault_zoo.py::test_each_fault_applies_to_the_code_as_it_is",
)


@dataclass(frozen=True)
class TextPlant:
    zoo: str
    name: str
    what: str
    path: str  # relative to the project root
    edits: tuple[tuple[str, str], ...]


def bug_zoo_plants() -> list[TextPlant]:
    """The bug zoo's variants that are text edits of autograd/engine.py or autograd/nn.py."""
    from regressions.bug_zoo import BUGS

    plants = []
    for name, bug in BUGS.items():
        build = bug.build
        cells = dict(zip(build.__code__.co_freevars, (c.cell_contents for c in build.__closure__ or ())))
        if cells.get("functions") or not cells.get("edits"):
            continue  # a replaced function, not a text plant
        path = "autograd/nn.py" if build.__qualname__.startswith("broken_network") else "autograd/engine.py"
        plants.append(TextPlant("bug", name, bug.what, path, tuple(cells["edits"])))
    return plants


def harness_zoo_plants() -> list[TextPlant]:
    from regressions.harness_zoo import PLANTS

    return [
        TextPlant("harness", p.name, p.what, str(p.path.relative_to(ROOT)), p.edits) for p in PLANTS.values()
    ]


def fault_zoo_plants() -> list[TextPlant]:
    from regressions.fault_zoo import FAULTS

    return [
        TextPlant("fault", f.name, f.plant.what, str(f.plant.path.relative_to(ROOT)), f.plant.edits)
        for f in FAULTS.values()
    ]


def all_plants() -> list[TextPlant]:
    return bug_zoo_plants() + harness_zoo_plants() + fault_zoo_plants()


def fast_tier() -> tuple[list[str], dict[str, str]]:
    """The pytest arguments and the environment of tox.ini's ``[testenv:fast]``: one source."""
    tox = configparser.ConfigParser(interpolation=None)
    tox.read(ROOT / "tox.ini", encoding="utf-8")
    section = tox["testenv:fast"]
    (command,) = [line for line in section["commands"].strip().splitlines() if line.strip()]
    words = [w for w in shlex.split(command) if w != "{posargs}"]
    if words[0] != "pytest":
        raise SystemExit(f"tier_catch: [testenv:fast] runs {command!r}, not pytest")
    env = {}
    for line in section.get("set_env", "").strip().splitlines():
        key, _, value = line.partition("=")
        env[key.strip()] = value.strip()
    return words[1:], env


def copy_project(into: Path) -> None:
    """The project's tracked and untracked-but-not-ignored files, copied into ``into``."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, check=True,
    ).stdout.decode().split("\0")  # fmt: skip
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            target = into / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


@dataclass(frozen=True)
class Outcome:
    caught: bool
    seconds: float
    first_failure: str  # the first FAILED/ERROR line, or the tail of the output


def run_tier(root: Path, args: list[str], env: dict[str, str]) -> Outcome:
    command = [sys.executable, "-m", "pytest", *args, "-x", "-q", "-p", "no:cacheprovider", "-rfE"]
    command += [f"--deselect={d}" for d in DESELECT]
    start = time.perf_counter()
    done = subprocess.run(
        command, cwd=root, env={**os.environ, **env}, capture_output=True, text=True, timeout=3600
    )
    seconds = time.perf_counter() - start
    lines = done.stdout.splitlines()
    failures = [line for line in lines if line.startswith(("FAILED ", "ERROR "))]
    if done.returncode not in (0, 1, 2):
        raise SystemExit(
            f"tier_catch: pytest exited {done.returncode}:\n{done.stdout[-3000:]}{done.stderr[-2000:]}"
        )
    first = failures[0] if failures else (lines[-1] if lines else done.stderr[-300:])
    return Outcome(done.returncode != 0, seconds, first)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m regressions.tier_catch", description=__doc__.split("\n")[0]
    )
    parser.add_argument("names", nargs="*", help="plants to run (default: all, or every --every'th)")
    parser.add_argument("--every", type=int, default=1, help="take every N-th plant of each zoo (default 1)")
    parser.add_argument("--list", action="store_true", help="list the plants and exit")
    parsed = parser.parse_args(argv)
    plants = all_plants()
    if parsed.names:
        unknown = set(parsed.names) - {p.name for p in plants}
        if unknown:
            raise SystemExit(f"tier_catch: no plant named {sorted(unknown)}")
        plants = [p for p in plants if p.name in parsed.names]
    else:
        plants = [
            p
            for zoo in ("bug", "harness", "fault")
            for p in [q for q in plants if q.zoo == zoo][:: parsed.every]
        ]
    if parsed.list:
        for p in plants:
            print(f"{p.zoo:8} {p.name}: {p.what} ({p.path})")
        return 0
    args, env = fast_tier()
    print(
        f"fast tier: pytest {shlex.join(args)} -x, {' '.join(f'{k}={v}' for k, v in env.items())}", flush=True
    )
    with tempfile.TemporaryDirectory(prefix="tier_catch_") as tmp:
        root = Path(tmp)
        copy_project(root)
        baseline = run_tier(root, args, env)
        print(
            f"unplanted: {'FAILED' if baseline.caught else 'passed'} in {baseline.seconds:.0f} s", flush=True
        )
        if baseline.caught:
            raise SystemExit(
                f"tier_catch: the fast tier fails on the unplanted copy: {baseline.first_failure}"
            )
        caught = 0
        for i, plant in enumerate(plants, 1):
            path = root / plant.path
            original = path.read_text(encoding="utf-8")
            source = original
            for old, new in plant.edits:
                if source.count(old) != 1:
                    raise SystemExit(
                        f"tier_catch: {plant.zoo} zoo, {plant.name}: {old!r} is not once in {plant.path}"
                    )
                source = source.replace(old, new)
            path.write_text(source, encoding="utf-8")
            try:
                outcome = run_tier(root, args, env)
            finally:
                path.write_text(original, encoding="utf-8")
            caught += outcome.caught
            verdict = "caught" if outcome.caught else "MISSED"
            print(
                f"[{i}/{len(plants)}] {plant.zoo} zoo, {plant.name}: {verdict} in {outcome.seconds:.0f} s"
                + (f" ({outcome.first_failure[:160]})" if outcome.caught else ""),
                flush=True,
            )
    print(f"the fast tier caught {caught} of {len(plants)} planted bugs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
