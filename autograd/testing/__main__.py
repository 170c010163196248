"""``python -m autograd.testing audit TARGET``: audit a scalar autograd engine.

Exit status: 0 no defects, 1 defects found, 2 could not audit (the reason on one
line of stderr), 3 an error of autograd.testing itself (a bug of ours, not a finding: its
traceback on stderr, and where to report it).  ``--json`` prints the report in the schema documented in the
README (``schema_version`` 2).  Whatever the engine writes to stdout while it is
audited (at import, in its ops, in backward) goes to stderr: stdout holds the
report alone.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Iterator, Sequence
from typing import Any

from autograd.testing.auditor import DEFAULT_EXAMPLES, audit
from autograd.testing.boundary import HARNESS_FAULT, HarnessFault, tool_call
from autograd.testing.engines import EngineNotFound


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        sys.exit(2)


@contextlib.contextmanager
def stdout_to_stderr() -> Iterator[None]:
    """Send everything written to stdout meanwhile to stderr: Python's ``print`` and, through
    the file descriptor, C extensions and child processes that inherit it."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        os.dup2(2, 1)
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(saved, 1)
        os.close(saved)


def _audit_quietly(target: str | None, **settings: Any) -> Any:
    """``audit(target, **settings)``, whatever the engine prints sent to stderr."""
    with stdout_to_stderr():
        return audit(target, **settings)


def main(argv: Sequence[str] | None = None) -> int:
    parser = _Parser(
        prog="python -m autograd.testing", description="Verification tools for autograd engines."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser(
        "audit",
        help="audit a scalar autograd engine",
        description="Audit a scalar autograd engine: find its scalar class, probe its ops, check its "
        "gradients against independent oracles and list defects, conventions and missing features.",
        epilog="exit status: 0 no defects, 1 defects found, 2 could not audit the engine (the reason on "
        "stderr), 3 an error of autograd.testing itself (its traceback on stderr: a bug of the tool, "
        "not a finding about the engine)",
    )
    run.add_argument(
        "target",
        nargs="?",
        help='the engine: "pkg.module" or "pkg.module:ClassName" (optional with --adapter)',
    )
    run.add_argument(
        "--examples", type=int, default=DEFAULT_EXAMPLES, help="examples per search (default %(default)s)"
    )
    run.add_argument("--seed", type=int, default=0, help="seed of every search (default %(default)s)")
    run.add_argument("--json", action="store_true", help="print the report as JSON")
    run.add_argument(
        "--class", dest="cls", metavar="NAME", help="the scalar class, if discovery cannot find it"
    )
    run.add_argument("--backward", metavar="NAME", help="the backward method's name (e.g. backwards)")
    run.add_argument("--data", metavar="NAME", help="the attribute holding the number (e.g. value)")
    run.add_argument("--grad", metavar="NAME", help="the attribute holding the gradient (e.g. gradient)")
    run.add_argument(
        "--adapter",
        metavar="MODULE:OBJECT",
        help="an adapter for an engine of another API (e.g. autograd.testing.adapters:torch_float64); "
        "see the README's adapter protocol",
    )
    args = parser.parse_args(argv)
    if args.examples < 1:
        parser.error("--examples must be at least 1")
    if args.target is None and args.adapter is None:
        parser.error("give the engine (TARGET) or --adapter MODULE:OBJECT")
    label = args.target or args.adapter
    try:
        report = tool_call(
            _audit_quietly, args.target, examples=args.examples, seed=args.seed, cls=args.cls,
            backward=args.backward, data=args.data, grad=args.grad, adapter=args.adapter,
            expected=(EngineNotFound,),
        )  # fmt: skip
    except EngineNotFound as exc:
        print(f"could not audit {label}: {'; '.join(str(exc).splitlines())}", file=sys.stderr)
        return 2
    except HarnessFault as fault:  # a bug of ours: its traceback, and an exit status of its own
        print(f"error of autograd.testing while auditing {label}:\n{fault.report()}", file=sys.stderr)
        return HARNESS_FAULT
    try:
        text = tool_call(report.to_json if args.json else report.render)
    except HarnessFault as fault:
        print(f"error of autograd.testing while reporting on {label}:\n{fault.report()}", file=sys.stderr)
        return HARNESS_FAULT
    print(text)
    return 1 if report.defects else 0


if __name__ == "__main__":
    sys.exit(main())
