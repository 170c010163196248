"""Mutation-testing gate: run mutmut 3 from scratch and fail unless every mutant is accounted for.

    python .ci/mutation_gate.py            # rm -rf mutants, mutmut run, judge (what tox -e mutation runs)
    python .ci/mutation_gate.py --reuse    # judge again without re-running from scratch
    python .ci/mutation_gate.py --list     # also print each survivor as a MUTANTS.md table row

mutmut exits 0 whatever survives, so this script judges the run itself:
* the run must be complete: no mutant left unchecked, timed out, suspicious,
  skipped, interrupted or crashed (``mutmut export-cicd-stats`` counts them);
* every surviving mutant (status "survived" or "no tests") must be listed in
  regressions/MUTANTS.md, and every mutant listed there must still survive,
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
DOC = ROOT / "regressions" / "MUTANTS.md"
STATS = ROOT / "mutants" / "mutmut-cicd-stats.json"
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


def mutmut(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "mutmut", *args]
    print("+", " ".join(command[2:]), flush=True)
    running = args[0] == "run"
    return subprocess.run(
        command, cwd=ROOT, text=True, capture_output=not running, preexec_fn=_cap_memory if running else None
    )


def documented() -> tuple[set[str], int]:
    """The mutant names listed in MUTANTS.md's survivors section, and its number of excluded lines."""
    text = DOC.read_text(encoding="utf-8")
    survivors_part, _, excluded_part = text.partition("## Excluded")
    excluded_rows = [line for line in excluded_part.splitlines() if line.startswith("| `")]
    return set(MUTANT_NAME.findall(survivors_part)), len(excluded_rows)


def excluded_lines() -> list[str]:
    """Every line mutmut leaves alone: ``# pragma: no mutate``, or matched by ``do_not_mutate_patterns``."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mutmut"]
    patterns = [re.compile(p) for p in config.get("do_not_mutate_patterns", [])]
    found = []
    for path in config["only_mutate"]:
        for n, line in enumerate((ROOT / path).read_text(encoding="utf-8").splitlines(), 1):
            if "pragma: no mutate" in line or any(p.search(line) for p in patterns):
                found.append(f"{path}:{n}: {line.strip()}")
    return found


def survivors() -> dict[str, str]:
    """{mutant name: status} for every mutant `mutmut results` reports as not killed."""
    out = mutmut("results").stdout
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
        "--list", action="store_true", help="print survivors as rows for regressions/MUTANTS.md"
    )
    parser.add_argument("--max-children", type=int, default=os.cpu_count() or 2, help="parallel workers")
    args = parser.parse_args()

    if not args.reuse:
        shutil.rmtree(ROOT / "mutants", ignore_errors=True)
    start = time.perf_counter()
    run = mutmut("run", "--max-children", str(args.max_children))
    minutes = (time.perf_counter() - start) / 60
    if run.returncode != 0:
        print(f"mutation gate: FAILED, `mutmut run` exited with {run.returncode}")
        return 1
    export = mutmut("export-cicd-stats")
    if export.returncode != 0 or not STATS.exists():
        print(f"mutation gate: FAILED, no statistics from mutmut: {export.stdout}{export.stderr}")
        return 1
    stats = json.loads(STATS.read_text(encoding="utf-8"))
    counted = sum(v for k, v in stats.items() if k != "total")
    stats["not_checked"] = stats["total"] - counted
    alive = survivors()
    listed, listed_excluded = documented()
    excluded = excluded_lines()

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
            "survivors not listed in regressions/MUTANTS.md (kill them or document why):\n    "
            + "\n    ".join(f"{name}: {alive[name]}" for name in undocumented)
        )
    stale = sorted(listed - set(alive))
    if stale:
        failures.append(
            "listed in regressions/MUTANTS.md but no longer surviving (remove them):\n    "
            + "\n    ".join(stale)
        )
    if len(excluded) != listed_excluded:
        failures.append(
            f"{len(excluded)} lines excluded (pragma or do_not_mutate_patterns) but {listed_excluded} "
            "rows under '## Excluded' in regressions/MUTANTS.md:\n    " + "\n    ".join(excluded)
        )
    if args.list:
        print("\nrows for regressions/MUTANTS.md (`mutmut show NAME` shows each diff):")
        for name, status in sorted(alive.items()):
            print(f"| `{name}` | {status} | why: ... |")
    if failures:
        print("\nmutation gate: FAILED\n- " + "\n- ".join(failures))
        return 1
    print("\nmutation gate: passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
