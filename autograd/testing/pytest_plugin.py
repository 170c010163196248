"""The audit as pytest items: what ``pytest --audit=pkg.module`` runs (docs/pytest-plugin.md).

The plugin's entry point is :mod:`autograd.pytest_plugin`, which loads in every pytest session
and imports this module (and with it the harness) only when ``--audit`` is given or the
``autograd_audit`` fixture is used; :func:`start` is where it hands over.

Each check of the registry (:func:`autograd.testing.auditor.check_names`, in report order) is an
:class:`AuditItem`, node id ``audit[TARGET]::CHECK``.  An item fails when its check found a defect
that the accepted-findings file does not accept (each with expected vs actual, its reproducer and
the entry that would accept it), passes when it found none, and is skipped when the check could
judge nothing (``not_applicable``).  Facts never fail an item: they are in its message or its
``audit`` report section and counted in the terminal summary, with the accepted findings and the
entries that matched nothing.  Each target is audited once per session (per worker under
pytest-xdist), when its first item runs: collecting costs nothing.

The accepted-findings file (TOML), one ``[[accepted]]`` table per finding::

    [[accepted]]
    kind = "crash"            # a defect kind (autograd.testing.findings.DEFECT_KINDS)
    op = "powc"               # the op's name in the table (the JSON report's "op")
    reason = "x ** 0 at x = 0: backward computes 0 * 0.0 ** -1"   # required, not empty
    # check = "depth"         # only for a crash without an op: then its check identifies it

An entry is a finding's identity (:func:`autograd.testing.verdicts.identity`): it accepts that
finding in every check that reports it.  A key it does not know, a missing or empty ``reason``,
a kind that is not a defect or a ``check`` where the identity has none is an
:class:`AcceptedFileError` naming the file and the entry.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from autograd.testing.auditor import DEFAULT_EXAMPLES, AuditReport, audit, check_names
from autograd.testing.engines import EngineNotFound, resolve_engine
from autograd.testing.findings import DEFECT_KINDS, Finding
from autograd.testing.ops import display
from autograd.testing.verdicts import identity

__all__ = [
    "ACCEPTED_FILE", "Accepted", "AcceptedFileError", "AuditCheckFailed", "AuditFixture", "AuditItem",
    "load_accepted", "start",
]  # fmt: skip

#: The accepted-findings file looked for in the rootdir when ``--audit-accepted`` is not given.
ACCEPTED_FILE = "audit-accepted.toml"
#: The marker of every item (``-m autograd_audit``).
MARKER = "autograd_audit"
_KEYS = ("kind", "op", "check", "reason")
_DATA = "autograd_audit"  # the attribute of an item's call report that carries what the summary needs


def start(config: pytest.Config, targets: list[str]) -> None:
    """Look up each target and read the accepted-findings file (a :class:`pytest.UsageError` for
    either), then register the hooks that add the items and print the summary."""
    for target in targets:
        try:
            resolve_engine(target)
        except EngineNotFound as exc:
            raise pytest.UsageError(f"--audit={target}: {'; '.join(str(exc).splitlines())}") from None
    found = audits(config)
    try:
        found.accepted_entries()
    except AcceptedFileError as exc:
        raise pytest.UsageError(str(exc)) from None
    config.pluginmanager.register(_AuditSession(config, targets, found), "autograd-audit-session")


# ---------------------------------------------------------------------- the accepted-findings file
class AcceptedFileError(ValueError):
    """The accepted-findings file cannot be read (the message names the file and the entry)."""


@dataclasses.dataclass(frozen=True)
class Accepted:
    """One entry of the accepted-findings file: a finding's identity and why it is accepted."""

    number: int  # its place in the file, from 1
    kind: str
    op: str | None
    check: str | None
    reason: str

    def describe(self) -> str:
        """``entry 1 (kind = "crash", op = "powc")``."""
        keys = ", ".join(f'{k} = "{getattr(self, k)}"' for k in ("kind", "op", "check") if getattr(self, k))
        return f"entry {self.number} ({keys})"

    def identity(self) -> tuple[Any, ...]:
        """What :func:`autograd.testing.verdicts.identity` gives a finding this entry accepts."""
        return identity(Finding(self.kind, self.check or "", "", self.op))


def load_accepted(path: Path) -> list[Accepted]:
    """The entries of an accepted-findings file; :class:`AcceptedFileError` naming the file and the
    entry for anything it cannot take (see the module docstring for the format)."""
    try:
        import tomllib
    except ModuleNotFoundError:  # pragma: no cover - Python 3.10
        import tomli as tomllib  # type: ignore[no-redef,import-not-found]
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise AcceptedFileError(f"accepted-findings file {path}: cannot read it: {exc}") from None
    if set(data) - {"accepted"}:
        raise AcceptedFileError(
            f"accepted-findings file {path}: unknown top-level keys {sorted(set(data) - {'accepted'})}; "
            "each finding is an [[accepted]] table"
        )
    tables = data.get("accepted", [])
    if not isinstance(tables, list):
        raise AcceptedFileError(f"accepted-findings file {path}: 'accepted' must be [[accepted]] tables")
    entries = []
    for number, table in enumerate(tables, 1):
        where = f"accepted-findings file {path}, entry {number}"
        if not isinstance(table, dict):
            raise AcceptedFileError(f"{where}: must be an [[accepted]] table, not {table!r}")
        where += "".join(f' ({k} = "{table[k]}")' for k in ("kind",) if isinstance(table.get(k), str))
        unknown = sorted(set(table) - set(_KEYS))
        if unknown:
            raise AcceptedFileError(f"{where}: unknown keys {unknown}; an entry has {', '.join(_KEYS)}")
        for key in _KEYS:
            if key in table and not isinstance(table[key], str):
                raise AcceptedFileError(f"{where}: {key} must be a string, not {table[key]!r}")
        if not table.get("reason", "").strip():
            raise AcceptedFileError(f'{where}: no reason: say why the finding is accepted (reason = "...")')
        kind = table.get("kind")
        if kind not in DEFECT_KINDS:
            raise AcceptedFileError(
                f"{where}: kind {kind!r} is not a defect kind; one of {', '.join(DEFECT_KINDS)} "
                "(other findings never fail an item)"
            )
        op, check = table.get("op") or None, table.get("check") or None
        if kind == "crash" and op is None and check is None:
            raise AcceptedFileError(f"{where}: a crash without an op is identified by its check: add check")
        if check is not None and not (kind == "crash" and op is None):
            raise AcceptedFileError(
                f"{where}: check is not part of this finding's identity (kind and op): remove it"
            )
        entries.append(Accepted(number, kind, op, check, table["reason"].strip()))
    return entries


def _suggestion(finding: Finding) -> str:
    """The [[accepted]] entry that would accept ``finding``."""
    lines = ["[[accepted]]", f'kind = "{finding.kind}"']
    if finding.op is not None:
        lines.append(f'op = "{finding.op}"')
    elif finding.kind == "crash":
        lines.append(f'check = "{finding.check}"')
    return "\n".join([*lines, 'reason = "..."'])


# ---------------------------------------------------------------------- audits, one per target
class Audits:
    """Every audit of the session, each run once, and the accepted-findings file, read once."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.examples: int | None = config.getoption("audit_examples")
        self.seed: int = config.getoption("audit_seed")
        self.reports: dict[tuple[str, int, int], AuditReport | None] = {}
        self._accepted: list[Accepted] | None = None
        given = config.getoption("audit_accepted")
        self.path: Path | None = Path(given) if given else config.rootpath / ACCEPTED_FILE
        if given and not self.path.is_file():
            raise pytest.UsageError(f"--audit-accepted={given}: no such file")
        if not given and not self.path.is_file():
            self.path = None

    def accepted_entries(self) -> list[Accepted]:
        if self._accepted is None:
            self._accepted = load_accepted(self.path) if self.path else []
        return self._accepted

    def report(self, target: str, examples: int | None = None, seed: int | None = None) -> AuditReport:
        """The audit of ``target``, run at the first call for these settings.  If it raised there
        (an error of the harness: its traceback is that call's), a later call says so."""
        examples = examples or self.examples or DEFAULT_EXAMPLES
        key = (target, examples, self.seed if seed is None else seed)
        if key not in self.reports:
            self.reports[key] = None  # running: left so if the audit raises
            self.reports[key] = audit(target, examples=examples, seed=key[2])
        found = self.reports[key]
        if found is None:
            raise RuntimeError(
                f"the audit of {target} raised an error where it first ran (its traceback is there)"
            )
        return found

    def accepting(self, finding: Finding) -> Accepted | None:
        """The entry that accepts ``finding``, if any."""
        key = identity(finding)
        return next((e for e in self.accepted_entries() if e.identity() == key), None)


_AUDITS = pytest.StashKey[Audits]()


def audits(config: pytest.Config) -> Audits:
    """The session's audits (made at the first call)."""
    if _AUDITS not in config.stash:
        config.stash[_AUDITS] = Audits(config)
    return config.stash[_AUDITS]


# ---------------------------------------------------------------------- items
class AuditCheckFailed(Exception):
    """A check found defects that no accepted entry accepts (the message lists them)."""


class _AuditTarget(pytest.Collector):
    """The items of one target (created with them; nothing to collect from a file)."""

    def collect(self) -> list[pytest.Item]:  # pragma: no cover - its items are made directly
        return []


class AuditItem(pytest.Item):
    """One check of the audit of ``target``."""

    def __init__(self, *, target: str, check: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.target = target
        self.check = check
        self.add_marker(MARKER)
        self.data: dict[str, Any] = {}

    def runtest(self) -> None:
        session = audits(self.config)
        report = session.report(self.target)
        outcome = report.outcomes[self.check]
        alone = AuditReport(
            engine=report.engine, class_name=report.class_name, capabilities=report.capabilities,
            outcomes={self.check: outcome}, examples=report.examples, seed=report.seed,
            accessors=report.accessors,
        )  # fmt: skip
        failing, accepted = [], []
        for case in alone.pytest_cases():
            if case.finding is None:
                continue
            entry = session.accepting(case.finding)
            if entry is None:
                failing.append(case)
            else:
                accepted.append((entry, case.finding))
        facts = [f for f in alone.findings if f.kind not in DEFECT_KINDS]
        self.data = {
            "target": self.target,
            "check": self.check,
            "engine": report.engine,
            "settings": [report.examples, report.seed],
            "failing": [[repr(identity(c.finding)), _label(c.finding)] for c in failing if c.finding],
            "accepted": [[e.number, e.describe(), e.reason, _label(f)] for e, f in accepted],
            "facts": [[f.kind, repr(identity(f)), _label(f)] for f in facts],
        }
        if failing:
            head = f"{self.check} found {len(failing)} defect{'s' * (len(failing) != 1)} in {report.engine}"
            if accepted:
                head += f" ({len(accepted)} more accepted)"
            where = session.path or self.config.rootpath / ACCEPTED_FILE
            texts = [f"{c.text}\naccept it in {where} with:\n{_suggestion(c.finding)}"
                     for c in failing if c.finding]  # fmt: skip
            also = ["facts (never failures):", *(f"  {_label(f)}" for f in facts)] if facts else []
            raise AuditCheckFailed("\n\n".join([head, *texts, "\n".join(also)]).rstrip())
        self.add_report_section("call", "audit", alone.render(timing=False))
        if outcome.status == "not_applicable":
            pytest.skip(f"{self.check} not applicable: {outcome.reason or 'nothing judged'}")

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, AuditCheckFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[str, int | None, str]:
        return f"audit[{self.target}]", None, f"audit[{self.target}]::{self.check}"


def _label(f: Finding) -> str:
    """``[edge_points] v ** c: summary``: a finding on one line."""
    return f"[{f.check}] {f'{display(f.op)}: ' if f.op else ''}{f.summary}"


class _AuditSession:
    """The plugin's hooks while ``--audit`` is given: the items, and the terminal summary."""

    def __init__(self, config: pytest.Config, targets: list[str], audits: Audits) -> None:
        self.config = config
        self.targets = list(dict.fromkeys(targets))
        self.audits = audits
        self.seen: list[dict[str, Any]] = []

    @pytest.hookimpl(tryfirst=True)  # before -k, -m and --deselect select among the items
    def pytest_collection_modifyitems(self, session: pytest.Session, items: list[pytest.Item]) -> None:
        for target in self.targets:
            name = f"audit[{target}]"
            parent = _AuditTarget.from_parent(session, name=name, nodeid=name)
            made: list[pytest.Item | pytest.Collector] = [
                AuditItem.from_parent(parent, name=c, target=target, check=c) for c in check_names()
            ]
            # reported as collected (the terminal's "collected N items" counts these reports)
            session.ihook.pytest_collectreport(report=pytest.CollectReport(name, "passed", None, made))
            items += [item for item in made if isinstance(item, pytest.Item)]

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        if isinstance(item, AuditItem) and call.when == "call":
            if item.data:
                setattr(report, _DATA, item.data)
            if report.skipped and isinstance(report.longrepr, tuple):  # at the target, not in this file
                report.longrepr = (f"audit[{item.target}]", None, report.longrepr[2])  # type: ignore[assignment]
        return report

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        data = getattr(report, _DATA, None)
        if report.when == "call" and isinstance(data, dict):  # under xdist, from the workers' reports
            self.seen.append(data)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.seen:
            return
        write = terminalreporter.write_line
        terminalreporter.section("autograd audit")
        verbose = self.config.getoption("verbose") > 0
        matched = set()
        for target in self.targets:
            runs = [d for d in self.seen if d["target"] == target]
            if not runs:
                continue
            examples, seed = runs[0]["settings"]
            accepted: dict[int, list[str]] = {}  # entry -> its description, reason, first finding, checks
            for d in runs:
                for number, describe, reason, label in d["accepted"]:
                    accepted.setdefault(number, [describe, reason, label]).append(d["check"])
            facts: dict[str, dict[str, str]] = {}  # kind -> {identity: the first finding's line}
            for d in runs:
                for kind, key, label in d["facts"]:
                    facts.setdefault(kind, {}).setdefault(key, label)
            failing = {key: label for d in runs for key, label in d["failing"]}
            write(
                f"{runs[0]['engine']}: {len(runs)} checks run ({examples} examples per search, seed {seed}); "
                f"{len(failing)} defect{'s' * (len(failing) != 1)} not accepted, {len(accepted)} accepted"
            )
            for number, (describe, reason, label, *checks) in accepted.items():
                matched.add(number)
                also = f" (found by {', '.join(checks)})" if len(checks) > 1 else ""
                write(f"  accepted by {describe}: {label}{also}")
                write(f"    reason: {reason}")
            if facts:
                write("  facts: " + ", ".join(f"{kind} {len(labels)}" for kind, labels in facts.items())
                      + ("" if verbose else " (-v lists them)"))  # fmt: skip
                if verbose:
                    for kind, labels in facts.items():
                        write(f"  {kind}:")
                        for label in labels.values():
                            write(f"    {label}")
        if self.audits.path is not None:
            stale = [e for e in self.audits.accepted_entries() if e.number not in matched]
            for entry in stale:
                write(f"{self.audits.path}: {entry.describe()} matched no finding of the checks run")


# ---------------------------------------------------------------------- the fixture
class AuditFixture:
    """What the :func:`autograd_audit` fixture gives: ``autograd_audit("pkg.module")`` is the
    :class:`~autograd.testing.auditor.AuditReport` (each target audited once per session, shared
    with ``--audit``'s items); :meth:`unaccepted` is its defects the accepted-findings file does
    not accept."""

    def __init__(self, audits: Audits) -> None:
        self._audits = audits

    def __call__(self, target: str, *, examples: int | None = None, seed: int | None = None) -> AuditReport:
        """The audit of ``target`` (``--audit-examples`` and ``--audit-seed`` unless given here)."""
        return self._audits.report(target, examples, seed)

    def unaccepted(self, report: AuditReport) -> list[Finding]:
        """``report``'s defects that no entry of the accepted-findings file accepts."""
        return [f for f in report.defects if self._audits.accepting(f) is None]
