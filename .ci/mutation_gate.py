"""Mutation-testing gate: run mutmut 3 from scratch and fail unless every mutant is accounted for.

    python .ci/mutation_gate.py                   # the engine: rm -rf mutants, mutmut run, judge
    python .ci/mutation_gate.py --target oracles  # the oracles, against the checker's self-tests
    python .ci/mutation_gate.py --target compiler # autograd.compile's code generator, against its tests
    python .ci/mutation_gate.py --target all      # each in turn (what tox -e mutation runs)
    python .ci/mutation_gate.py --reuse           # judge again without re-running from scratch
    python .ci/mutation_gate.py --list            # also print each survivor as a MUTANTS table row

Three targets:
* ``engine``: [tool.mutmut] of pyproject.toml as it is (the engine and the network
  against all three test directories); survivors listed in regressions/MUTANTS.md.
* ``oracles``: the oracles and the error columns of the op table against the
  checker's self-tests only, configured by [tool.mutation_gate.oracles].  mutmut
  reads one [tool.mutmut] from the working directory, so this target runs in a
  copy of the project (``mutants-oracles/``) whose [tool.mutmut] is the engine's
  with those keys replaced; survivors
  listed in regressions/MUTANTS-oracles.md.  Inspect a mutant there:
  ``cd mutants-oracles && python -m mutmut show NAME``.
* ``compiler``: ``autograd/compiler.py`` (``autograd.compile``) against its own
  tests, configured by [tool.mutation_gate.compiler], in ``mutants-compiler/``;
  survivors listed in regressions/MUTANTS-compiler.md.

mutmut exits 0 whatever survives, so this script judges the run itself:
* the run must be complete: no mutant left unchecked, timed out, suspicious,
  skipped, interrupted or crashed (``mutmut export-cicd-stats`` counts them);
* every surviving mutant (status "survived" or "no tests") must be listed in
  the target's MUTANTS file, and every mutant listed there must still survive,
  so the list stays true;
* every line excluded from mutation (``# pragma: no mutate`` or the
  ``do_not_mutate_patterns`` of [tool.mutmut]) must be listed there too;
* the score, killed / all mutants, must reach the threshold that list implies:
  (all - listed survivors) / all.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parent.parent
DOCS = {
    "engine": ROOT / "regressions" / "MUTANTS.md",
    "oracles": ROOT / "regressions" / "MUTANTS-oracles.md",
    "compiler": ROOT / "regressions" / "MUTANTS-compiler.md",
}
WORKDIRS = {"engine": ROOT, "oracles": ROOT / "mutants-oracles", "compiler": ROOT / "mutants-compiler"}
# Not copied into a target's working copy: version control, caches, earlier runs.
NOT_COPIED = shutil.ignore_patterns(
    ".git", ".tox", ".venv", "mutants", "mutants-*", "__pycache__", ".*_cache", ".hypothesis", "*.egg-info"
)
INCOMPLETE = ("not_checked", "skipped", "suspicious", "timeout", "check_was_interrupted_by_user", "segfault")
SURVIVING = ("survived", "no tests")  # statuses of `mutmut results` that count as not killed
MUTANT_NAME = re.compile(r"`([\w.]+__mutmut_\d+)`")


# A mutant that breaks backward()'s visit marks can loop forever, growing its
# stack until the machine runs out of memory (seen: 15 GB).  Capping each
# process's address space turns that into a MemoryError, i.e. a failing test,
# i.e. a killed mutant, within seconds.
MEMORY_LIMIT = 6 * 2**30


def _cap_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def mutmut_config(target: str) -> dict:
    """The [tool.mutmut] that the target's run uses."""
    config = dict(pyproject()["tool"]["mutmut"])
    if target != "engine":
        config.update(pyproject()["tool"]["mutation_gate"][target])
    return config


def toml_table(name: str, table: dict) -> str:
    # JSON strings and lists of them are valid TOML (the values here are nothing else)
    return f"[{name}]\n" + "".join(f"{key} = {json.dumps(value)}\n" for key, value in table.items())


def prepare_copy(target: str, fresh: bool) -> None:
    """The project copied to the target's working directory, its [tool.mutmut] replaced."""
    workdir = WORKDIRS[target]
    if fresh:
        shutil.rmtree(workdir, ignore_errors=True)
    shutil.copytree(ROOT, workdir, ignore=NOT_COPIED, dirs_exist_ok=True)
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    # drop the engine's [tool.mutmut] (up to the next table), then append the target's
    text = re.sub(r"(?ms)^\[tool\.mutmut\]$.*?(?=^\[|\Z)", "", text)
    (workdir / "pyproject.toml").write_text(
        text + "\n" + toml_table("tool.mutmut", mutmut_config(target)), encoding="utf-8"
    )


def mutmut(workdir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "mutmut", *args]
    print("+", " ".join(command[2:]), flush=True)
    running = args[0] == "run"
    return subprocess.run(
        command,
        cwd=workdir,
        text=True,
        capture_output=not running,
        preexec_fn=_cap_memory if running else None,
    )


def documented(doc: Path) -> tuple[set[str], int]:
    """The mutant names listed in a MUTANTS file's survivors section, and its number of excluded lines."""
    text = doc.read_text(encoding="utf-8")
    survivors_part, _, excluded_part = text.partition("## Excluded")
    excluded_rows = [line for line in excluded_part.splitlines() if line.startswith("| `")]
    return set(MUTANT_NAME.findall(survivors_part)), len(excluded_rows)


def excluded_lines(config: dict) -> list[str]:
    """Every line mutmut leaves alone: ``# pragma: no mutate``, or matched by ``do_not_mutate_patterns``."""
    patterns = [re.compile(p) for p in config.get("do_not_mutate_patterns", [])]
    found = []
    for path in config["only_mutate"]:
        for n, line in enumerate((ROOT / path).read_text(encoding="utf-8").splitlines(), 1):
            if "pragma: no mutate" in line or any(p.search(line) for p in patterns):
                found.append(f"{path}:{n}: {line.strip()}")
    return found


def survivors(workdir: Path) -> dict[str, str]:
    """{mutant name: status} for every mutant `mutmut results` reports as not killed."""
    out = mutmut(workdir, "results").stdout
    found = {}
    for line in out.splitlines():
        name, sep, status = line.strip().rpartition(": ")
        if sep and "__mutmut_" in name:
            found[name] = status
    return found


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--reuse", action="store_true", help="keep mutants/ (incremental run) instead of rm -rf"
    )
    parser.add_argument(
        "--list", action="store_true", help="print survivors as rows for the target's MUTANTS file"
    )
    parser.add_argument(
        "--target", choices=[*DOCS, "all"], default="engine", help="what to mutate (all: each in turn)"
    )
    parser.add_argument("--max-children", type=int, default=os.cpu_count() or 2, help="parallel workers")
    args = parser.parse_args()
    # every target runs even when an earlier one fails, so one run shows everything to fix
    results = {target: gate(target, args) for target in (DOCS if args.target == "all" else [args.target])}
    if len(results) > 1:
        print(
            "\nmutation gate: "
            + ", ".join(f"{t} {'passed' if ok else 'FAILED'}" for t, ok in results.items())
        )
    return 0 if all(results.values()) else 1


def gate(target: str, args: argparse.Namespace) -> bool:
    """Run one target's mutants and judge them; True when it passes."""
    workdir, doc = WORKDIRS[target], DOCS[target]
    config = mutmut_config(target)
    if workdir != ROOT:
        prepare_copy(target, fresh=not args.reuse)
    if not args.reuse:
        shutil.rmtree(workdir / "mutants", ignore_errors=True)
    print(f"mutation gate, target {target}: {', '.join(config['only_mutate'])}", flush=True)
    start = time.perf_counter()
    run = mutmut(workdir, "run", "--max-children", str(args.max_children))
    minutes = (time.perf_counter() - start) / 60
    if run.returncode != 0:
        print(f"mutation gate ({target}): FAILED, `mutmut run` exited with {run.returncode}")
        return False
    export = mutmut(workdir, "export-cicd-stats")
    stats_file = workdir / "mutants" / "mutmut-cicd-stats.json"
    if export.returncode != 0 or not stats_file.exists():
        print(f"mutation gate ({target}): FAILED, no statistics from mutmut: {export.stdout}{export.stderr}")
        return False
    stats = json.loads(stats_file.read_text(encoding="utf-8"))
    counted = sum(v for k, v in stats.items() if k != "total")
    stats["not_checked"] = stats["total"] - counted
    alive = survivors(workdir)
    listed, listed_excluded = documented(doc)
    excluded = excluded_lines(config)

    total, killed = stats["total"], stats["killed"]
    score = 100 * killed / total if total else 0.0
    threshold = 100 * (total - len(listed)) / total if total else 100.0
    print(
        f"\nmutants: {total} | killed {killed} | survived {stats['survived']} | "
        f"no tests {stats['no_tests']} | excluded {len(excluded)} lines | "
        f"run time {minutes:.1f} min"
    )
    print(
        f"score {score:.2f} % (killed / all); "
        f"threshold {threshold:.2f} % ({len(listed)} documented survivors)"
    )

    failures = []
    incomplete = {k: stats[k] for k in INCOMPLETE if stats.get(k)}
    if incomplete:
        failures.append(f"incomplete run: {incomplete}")
    if score < threshold:
        failures.append(f"score {score:.2f} % is below the threshold {threshold:.2f} %")
    undocumented = sorted(set(alive) - listed)
    if undocumented:
        failures.append(
            f"survivors not listed in {doc.relative_to(ROOT)} (kill them or document why):\n    "
            + "\n    ".join(f"{name}: {alive[name]}" for name in undocumented)
        )
    stale = sorted(listed - set(alive))
    if stale:
        failures.append(
            f"listed in {doc.relative_to(ROOT)} but no longer surviving (remove them):\n    "
            + "\n    ".join(stale)
        )
    if len(excluded) != listed_excluded:
        failures.append(
            f"{len(excluded)} lines excluded (pragma or do_not_mutate_patterns) but {listed_excluded} "
            f"rows under '## Excluded' in {doc.relative_to(ROOT)}:\n    " + "\n    ".join(excluded)
        )
    if args.list:
        print(f"\nrows for {doc.relative_to(ROOT)} (`mutmut show NAME` shows each diff):")
        for name, status in sorted(alive.items()):
            print(f"| `{name}` | {status} | why: ... |")
    if failures:
        print(f"\nmutation gate ({target}): FAILED\n- " + "\n- ".join(failures))
        return False
    print(f"\nmutation gate ({target}): passed")
    return True


if __name__ == "__main__":
    sys.exit(main())
