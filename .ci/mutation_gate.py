"""Mutation-testing gate: run mutmut 3 from scratch and fail unless every mutant is accounted for.

    python .ci/mutation_gate.py                   # the engine: rm -rf mutants, mutmut run, judge
    python .ci/mutation_gate.py --target oracles  # the oracles, against the checker's self-tests
    python .ci/mutation_gate.py --target all      # every CI target in turn, then --check-stale
    python .ci/mutation_gate.py --target harness  # the verdict logic: findings, verdicts, reproducers
    python .ci/mutation_gate.py --target boundary # the engine boundary, against discovery's fast tests
    python .ci/mutation_gate.py --target offline  # the targets too slow for CI (tox -e mutation-offline)
    python .ci/mutation_gate.py --check-stale     # only: are the offline targets' lists of the code as it is?
    python .ci/mutation_gate.py --reuse           # judge again without re-running from scratch
    python .ci/mutation_gate.py --list            # also print each survivor as a row of its list

Targets:
* ``engine``: [tool.mutmut] of pyproject.toml as it is (the engine and the network
  against all three test directories, what a plain ``mutmut run`` uses).
* every other target ``T``: [targets.T] of .ci/mutation/targets.toml, its modules against
  the tests that exercise them (test selections shared by several targets are [tests.NAME]
  tables there, named by the targets).  mutmut reads one [tool.mutmut] from the working
  directory, so such a target runs in a copy of the project (``mutants-T/``) whose
  [tool.mutmut] is the engine's with the target's modules and tests.  Inspect a mutant
  there: ``cd mutants-T && python -m mutmut show NAME``.
* ``offline = true`` in a target's table: too slow for CI's budget (the audit's and the
  probes' tests run engines in subprocesses for minutes per surviving mutant).  It runs in
  ``tox -e mutation-offline``; its list records the sha256 of each module it mutated, and
  CI (``--target all``) fails when a module no longer has that hash: the committed list
  is stale, run the offline target again.

Each target's survivors are listed in .ci/mutation/survivors/T.md.
A survivor is listed by a stable identity, what the mutant changes: the function
(``autograd.engine.Value.__add__``) and the changed text of mutmut's diff (``old`` → ``new``),
not mutmut's per-function number, so an edit elsewhere in the module does not invalidate
the list.  Two mutants with the same identity are listed twice.

mutmut exits 0 whatever survives, so this script judges the run itself:
* the run must be complete: no mutant left unchecked, suspicious, skipped,
  interrupted or crashed (``mutmut export-cicd-stats`` counts them); a mutant that
  timed out (its tests used 30 times their usual CPU time: mutmut's limit) counts as
  killed, as in mutmut's own score: a hang fails CI by its time limit (the strategies'
  mutants that make a draw's filter reject everything end so);
* every surviving mutant (status "survived" or "no tests") must be listed in
  the target's list, and every mutant listed there must still survive,
  so the list stays true;
* every line excluded from mutation (``# pragma: no mutate`` or the
  ``do_not_mutate_patterns`` of the target) must be listed there too;
* the score, killed / all mutants, must reach the threshold that list implies:
  (all - listed survivors) / all.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parent.parent
TARGETS = ROOT / ".ci" / "mutation" / "targets.toml"  # every target but the engine: see its header
SELECTION_KEYS = ("select", "deselect", "markers")  # of a [tests.NAME] table, and of a target's own tests
TARGET_KEYS = ("only_mutate", "tests", *SELECTION_KEYS, "do_not_mutate_patterns", "offline", "group")
PYTEST_ARGS = ["--hypothesis-profile=mutation", "-p", "no:cacheprovider"]  # every target's run
# Not copied into a target's working copy: version control, caches, earlier runs.
NOT_COPIED = shutil.ignore_patterns(
    ".git", ".tox", ".venv", "mutants", "mutants-*", "__pycache__", ".*_cache", ".hypothesis", "*.egg-info"
)
INCOMPLETE = ("not_checked", "skipped", "suspicious", "check_was_interrupted_by_user", "segfault")
SURVIVING = ("survived", "no tests")  # statuses of `mutmut results` that count as not killed
# a survivor's row: | `function` | change | status | why |  (a "|" inside the change is written "\|")
SURVIVOR_ROW = re.compile(
    r"^\| `(?P<function>[^`]+)` \| (?P<change>.*?) \| (?P<status>" + "|".join(SURVIVING) + r") \| .*\|$"
)
SOURCE_HASH = re.compile(r"^- source `(?P<path>[^`]+)` sha256 `(?P<digest>[0-9a-f]{64})`$", re.M)


# A mutant that breaks backward()'s visit marks can loop forever, growing its
# stack until the machine runs out of memory (seen: 15 GB).  Capping each
# process's address space turns that into a MemoryError, i.e. a failing test,
# i.e. a killed mutant, within seconds.
MEMORY_LIMIT = 6 * 2**30


def _cap_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def targets_file() -> dict:
    return tomllib.loads(TARGETS.read_text(encoding="utf-8"))


def targets() -> dict[str, dict]:
    """Every target's table: {"engine": {}, name: [targets.name] of targets.toml, ...}."""
    tables = targets_file().get("targets", {})
    for name, table in tables.items():
        unknown = sorted(set(table) - set(TARGET_KEYS))
        if unknown or "only_mutate" not in table:
            raise ValueError(
                f"{TARGETS.relative_to(ROOT)}: [targets.{name}] "
                + (f"has unknown keys {unknown}" if unknown else "has no only_mutate")
                + f"; a target's keys are {', '.join(TARGET_KEYS)}"
            )
    if "engine" in tables:
        raise ValueError(f"{TARGETS.relative_to(ROOT)}: `engine` is [tool.mutmut] of pyproject.toml")
    return {"engine": {}, **tables}


def groups() -> dict[str, list[str]]:
    """Targets run together by one name (``group = "harness"`` in their tables)."""
    found: dict[str, list[str]] = {}
    for name, table in targets().items():
        if "group" in table:
            found.setdefault(table["group"], []).append(name)
    clash = sorted(set(found) & {*targets(), "all", "offline"})
    if clash:
        raise ValueError(f"{TARGETS.relative_to(ROOT)}: group names {clash} are names of targets")
    return found


def is_offline(target: str) -> bool:
    return bool(targets()[target].get("offline", False))


def doc_path(target: str) -> Path:
    return ROOT / ".ci" / "mutation" / "survivors" / f"{target}.md"


def workdir_of(target: str) -> Path:
    return ROOT if target == "engine" else ROOT / f"mutants-{target}"


def selection(target: str) -> tuple[list[str], list[str], str | None]:
    """The tests a target runs, deselects and its pytest -m markers: the shared selections its
    ``tests`` names ([tests.NAME] of targets.toml), then its own select, deselect and markers."""
    table, shared = targets()[target], targets_file().get("tests", {})
    parts = []
    for name in table.get("tests", []):
        if name not in shared:
            raise ValueError(
                f"{TARGETS.relative_to(ROOT)}: [targets.{target}] runs tests {name!r}: no [tests.{name}]"
            )
        unknown = sorted(set(shared[name]) - set(SELECTION_KEYS))
        if unknown:
            raise ValueError(f"{TARGETS.relative_to(ROOT)}: [tests.{name}] has unknown keys {unknown}")
        parts.append(shared[name])
    parts.append(table)
    select = [test for part in parts for test in part.get("select", [])]
    deselect = [test for part in parts for test in part.get("deselect", [])]
    markers = sorted({part["markers"] for part in parts if "markers" in part})
    if not select or len(markers) > 1:
        raise ValueError(
            f"{TARGETS.relative_to(ROOT)}: [targets.{target}] "
            + ("selects no test" if not select else f"has two markers expressions {markers}")
        )
    return select, deselect, (markers[0] if markers else None)


def mutmut_config(target: str) -> dict:
    """The [tool.mutmut] that the target's run uses: the engine's, with the target's modules and tests."""
    config = dict(pyproject()["tool"]["mutmut"])
    if target == "engine":
        return config
    table = targets()[target]
    select, deselect, markers = selection(target)
    config.update(
        only_mutate=table["only_mutate"],
        pytest_add_cli_args_test_selection=select,
        pytest_add_cli_args=[
            *PYTEST_ARGS,
            *(["-m", markers] if markers else []),
            *(f"--deselect={test}" for test in deselect),
        ],
        do_not_mutate_patterns=table.get("do_not_mutate_patterns", []),
    )
    return config


def source_digest(path: str) -> str:
    """sha256 of a module's file."""
    return hashlib.sha256((ROOT / path).read_bytes()).hexdigest()


def source_lines(config: dict) -> list[str]:
    """The lines a survivor list records its run's sources with (checked for offline targets)."""
    return [f"- source `{path}` sha256 `{source_digest(path)}`" for path in config["only_mutate"]]


def toml_table(name: str, table: dict) -> str:
    # JSON strings and lists of them are valid TOML (the values here are nothing else)
    return f"[{name}]\n" + "".join(f"{key} = {json.dumps(value)}\n" for key, value in table.items())


def prepare_copy(target: str, fresh: bool) -> None:
    """The project copied to the target's working directory, its [tool.mutmut] replaced."""
    workdir = workdir_of(target)
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


def function_of(name: str) -> str:
    """``autograd.engine.xǁValueǁ__add____mutmut_31`` -> ``autograd.engine.Value.__add__``."""
    module, _, mangled = re.sub(r"__mutmut_\d+$", "", name).rpartition(".")
    if mangled.startswith("xǁ"):
        _, cls, method = mangled.split("ǁ")
        return f"{module}.{cls}.{method}"
    return f"{module}.{mangled.removeprefix('x_')}"


def change_of(diff: str) -> str:
    """The changed text of a mutant's unified diff, as a survivor list's cell: `old` → `new`."""
    lines = diff.splitlines()
    lines = lines[2:] if lines[:1] and lines[0].startswith("--- ") else lines  # the file names
    old = [line[1:].strip() for line in lines if line.startswith("-") and not line.startswith("---")]
    new = [line[1:].strip() for line in lines if line.startswith("+") and not line.startswith("+++")]
    cell = f"`{' ⏎ '.join(old)}` → `{' ⏎ '.join(new)}`"
    return cell.replace("|", "\\|")


def identities(workdir: Path, names: list[str]) -> dict[str, tuple[str, str]]:
    """{mutant name: (function, change)}: what each mutant changes, from mutmut's own diff."""
    if not names:
        return {}
    script = (
        "import json, sys\n"
        "from mutmut.mutation.diff_apply import get_diff_for_mutant\n"
        "print(json.dumps({n: get_diff_for_mutant(n) for n in json.load(sys.stdin)}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=workdir, input=json.dumps(names), text=True,
        capture_output=True, check=True,
    )  # fmt: skip
    return {name: (function_of(name), change_of(diff)) for name, diff in json.loads(out.stdout).items()}


def documented(doc: Path) -> tuple[Counter[tuple[str, str]], int]:
    """The survivors a list names, (function, change) with multiplicity, and its excluded lines."""
    text = doc.read_text(encoding="utf-8") if doc.exists() else ""
    survivors_part, _, excluded_part = text.partition("## Excluded")
    excluded_rows = [line for line in excluded_part.splitlines() if line.startswith("| `")]
    rows = (SURVIVOR_ROW.match(line) for line in survivors_part.splitlines())
    return Counter((m["function"], m["change"]) for m in rows if m), len(excluded_rows)


def check_stale(names: list[str]) -> list[str]:
    """Failures: an offline target whose survivor list does not record the sources as they are now."""
    failures = []
    for target in names:
        doc = doc_path(target)
        recorded = (
            {m["path"]: m["digest"] for m in SOURCE_HASH.finditer(doc.read_text(encoding="utf-8"))}
            if doc.exists()
            else {}
        )
        if not recorded:
            # never completed: no list to be stale.  Said loudly on every run; the gate over this
            # target is not in force until `tox -e mutation-offline` commits a complete list.
            print(
                f"mutation gate: {target} NOT RUN YET (no complete {doc.relative_to(ROOT)}); "
                f"run `python .ci/mutation_gate.py --target {target} --list` and commit the list",
                flush=True,
            )
            continue
        for path in mutmut_config(target)["only_mutate"]:
            if recorded.get(path) != source_digest(path):
                failures.append(
                    f"{target}: {doc.relative_to(ROOT)} lists the survivors of another {path} "
                    f"(recorded sha256 {recorded.get(path, 'none')[:12]}, "
                    f"now {source_digest(path)[:12]}); "
                    "run `tox -e mutation-offline` and commit the list"
                )
    return failures


def excluded_lines(config: dict) -> list[str]:
    """Every line mutmut leaves alone: ``# pragma: no mutate``, or matched by ``do_not_mutate_patterns``."""
    patterns = [re.compile(p) for p in config.get("do_not_mutate_patterns", [])]
    found = []
    for path in config["only_mutate"]:
        for n, line in enumerate((ROOT / path).read_text(encoding="utf-8").splitlines(), 1):
            if "pragma: no mutate" in line or any(p.search(line) for p in patterns):
                found.append(f"{path}:{n}: {line.strip()}")
    return found


def statuses(workdir: Path) -> dict[str, str]:
    """{mutant name: status} for every mutant `mutmut results` lists (all but the killed ones): the
    caller picks the surviving ones (SURVIVING) and the ones that timed out (counted as killed)."""
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
        "--list", action="store_true", help="print survivors as rows for the target's survivor list"
    )
    parser.add_argument(
        "--target",
        choices=[*targets(), *groups(), "all", "offline"],
        default="engine",
        help="what to mutate (all: every CI target in turn, then --check-stale; offline: every offline one)",
    )
    parser.add_argument(
        "--check-stale", action="store_true", help="only check that the offline targets' lists are current"
    )
    parser.add_argument("--max-children", type=int, default=os.cpu_count() or 2, help="parallel workers")
    args = parser.parse_args()
    offline = [t for t in targets() if is_offline(t)]
    if args.check_stale:
        stale = check_stale(offline)
        print("\n".join(["mutation gate, offline lists: " + ("FAILED" if stale else "current"), *stale]))
        return 1 if stale else 0
    if args.target == "all":
        chosen = [t for t in targets() if not is_offline(t)]
    elif args.target == "offline":
        chosen = offline
    elif args.target in groups():
        chosen = groups()[args.target]
    else:
        chosen = [args.target]
    # every target runs even when an earlier one fails, so one run shows everything to fix
    results = {target: gate(target, args) for target in chosen}
    if args.target == "all":
        stale = check_stale(offline)
        print("\n".join(["\nmutation gate, offline lists: " + ("FAILED" if stale else "current"), *stale]))
        results["offline lists"] = not stale
    if len(results) > 1:
        print(
            "\nmutation gate: "
            + ", ".join(f"{t} {'passed' if ok else 'FAILED'}" for t, ok in results.items())
        )
    return 0 if all(results.values()) else 1


def gate(target: str, args: argparse.Namespace) -> bool:
    """Run one target's mutants and judge them; True when it passes."""
    workdir, doc = workdir_of(target), doc_path(target)
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
    reported = statuses(workdir)
    counted = sum(v for k, v in stats.items() if k != "total")
    stats["not_checked"] = stats.get("not_checked", 0) + stats["total"] - counted
    alive = {name: status for name, status in reported.items() if status in SURVIVING}
    identity = identities(workdir, sorted(alive))
    alive_ids = Counter(identity.values())
    listed, listed_excluded = documented(doc)
    n_listed = sum(listed.values())
    excluded = excluded_lines(config)

    total, killed = stats["total"], stats["killed"] + stats.get("timeout", 0)
    score = 100 * killed / total if total else 0.0
    threshold = 100 * (total - n_listed) / total if total else 100.0
    print(
        f"\nmutants: {total} | killed {killed} (timed out {stats.get('timeout', 0)}) | "
        f"survived {stats['survived']} | "
        f"no tests {stats['no_tests']} | excluded {len(excluded)} lines | "
        f"run time {minutes:.1f} min"
    )
    print(
        f"score {score:.2f} % (killed / all); threshold {threshold:.2f} % ({n_listed} documented survivors)"
    )

    failures = []
    incomplete = {k: stats[k] for k in INCOMPLETE if stats.get(k)}
    if incomplete:
        failures.append(f"incomplete run: {incomplete}")
    if score < threshold:
        failures.append(f"score {score:.2f} % is below the threshold {threshold:.2f} %")
    unlisted = alive_ids - listed  # with multiplicity: two alike survivors need two rows
    undocumented = []
    for name in sorted(alive):
        if unlisted[identity[name]] > 0:
            unlisted[identity[name]] -= 1
            undocumented.append(name)
    if undocumented:
        failures.append(
            f"survivors not listed in {doc.relative_to(ROOT)} (kill them or document why):\n    "
            + "\n    ".join(f"{name} ({alive[name]}): {' '.join(identity[name])}" for name in undocumented)
        )
    stale = sorted((listed - alive_ids).elements())
    if stale:
        failures.append(
            f"listed in {doc.relative_to(ROOT)} but no longer surviving (remove them):\n    "
            + "\n    ".join(f"`{function}` {change}" for function, change in stale)
        )
    if len(excluded) != listed_excluded:
        failures.append(
            f"{len(excluded)} lines excluded (pragma or do_not_mutate_patterns) but {listed_excluded} "
            f"rows under '## Excluded' in {doc.relative_to(ROOT)}:\n    " + "\n    ".join(excluded)
        )
    timed_out = sorted(name for name, status in reported.items() if status == "timeout")
    if timed_out:
        # credited as kills (mutmut's score does so too: a mutant that loops forever is caught by
        # CI's time limit), but a probe that times or forks can hang for reasons of its own under
        # mutmut's CPU limit: re-run these by name on an idle machine before trusting them
        print(f"timed out, counted as killed ({len(timed_out)}): " + " ".join(timed_out))
    if args.list:
        print(f"\nrows for {doc.relative_to(ROOT)} (`mutmut show NAME` shows each diff):")
        for name, status in sorted(alive.items(), key=lambda item: identity[item[0]]):
            function, change = identity[name]
            print(f"| `{function}` | {change} | {status} | why: ... ({name}) |")
        print("\nthe sources of this run (an offline target's survivor list must record them):")
        print("\n".join(source_lines(config)))
    if failures:
        print(f"\nmutation gate ({target}): FAILED\n- " + "\n- ".join(failures))
        return False
    print(f"\nmutation gate ({target}): passed")
    return True


if __name__ == "__main__":
    sys.exit(main())
