"""The benchmarks' figures in the documents, from one source: ``benchmarks/results.json``.

``python -m benchmarks`` writes ``results.json``: every figure a document may quote, keyed by a
stable name (``one_sample.ours``, ``chain.100000.micrograd_over_ours``, ...), formatted as the
documents show it.  A document quotes a figure between two HTML comments, which the repository
host does not show::

    a step takes <!-- figure one_sample.ours -->465 µs<!-- /figure --> here

``python -m benchmarks.figures`` rewrites every marked figure in README.md and docs/**/*.md from
``results.json``; ``--check`` only lists the figures that differ (exit status 1), and the test
suite runs the same check (tests/test_benchmark_figures.py).  In docs/performance.md a number
with a unit of measure (µs, ms, s, B, MiB, ×) outside the markers is an error too: every figure
on that page comes from the results file.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS_JSON = ROOT / "benchmarks" / "results.json"
#: The page on which every measured number must be a marked figure.
PERFORMANCE_PAGE = ROOT / "docs" / "performance.md"

#: ``<!-- figure NAME -->TEXT<!-- /figure -->``; TEXT holds no ``<``.
MARKED = re.compile(r"<!-- figure (?P<name>[\w.]+) -->(?P<text>[^<]*)<!-- /figure -->")
#: A number followed by a unit of measure: what a measured figure looks like.
MEASURED = re.compile(r"\d(?:[\d,.]*\d)?\s?(?:ns|µs|ms|s|B|KiB|MiB|GiB|×)(?![\w])")


def load(path: Path = RESULTS_JSON) -> dict[str, str]:
    """The figures of ``path`` (a results file that ``python -m benchmarks`` wrote), by name."""
    data = json.loads(path.read_text(encoding="utf-8"))
    figures = data["figures"]
    if not isinstance(figures, dict) or not all(isinstance(v, str) for v in figures.values()):
        raise ValueError(f"{path}: 'figures' must map names to formatted strings, got {figures!r:.200}")
    return figures


def save(figures: dict[str, str], about: dict[str, Any], path: Path = RESULTS_JSON) -> None:
    """Write the results file: ``about`` (machine, Python, clock, ...) and the figures by name."""
    data = {**about, "figures": dict(sorted(figures.items()))}
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def update(figures: dict[str, str], prefix: str, path: Path = RESULTS_JSON) -> None:
    """Replace the figures whose names start with ``prefix`` by ``figures`` (a section run alone)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    kept = {k: v for k, v in data["figures"].items() if not k.startswith(prefix)}
    data["figures"] = dict(sorted({**kept, **figures}.items()))
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def documents(root: Path = ROOT) -> list[Path]:
    """The documents whose figures come from the results file: README.md and docs/**/*.md."""
    found = [root / "README.md"] if (root / "README.md").exists() else []
    return found + sorted((root / "docs").rglob("*.md"))


@dataclass(frozen=True)
class Problem:
    path: Path
    line: int
    text: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.text}"


def line_of(document: str, offset: int) -> int:
    return document.count("\n", 0, offset) + 1


def problems(path: Path, figures: dict[str, str], strict: bool = False) -> list[Problem]:
    """What in ``path`` disagrees with ``figures``: a marked figure with another text or an unknown
    name; with ``strict``, also a measured-looking number outside the markers."""
    document = path.read_text(encoding="utf-8")
    found = []
    for m in MARKED.finditer(document):
        name, text = m["name"], m["text"]
        if name not in figures:
            found.append(
                Problem(path, line_of(document, m.start()), f"no figure named {name!r} in the results")
            )
        elif text != figures[name]:
            found.append(
                Problem(
                    path,
                    line_of(document, m.start()),
                    f"{name} reads {text!r}, the results say {figures[name]!r}",
                )
            )
    if strict:
        blank = MARKED.sub(lambda m: " " * len(m[0]), document)
        for m in MEASURED.finditer(blank):
            found.append(
                Problem(path, line_of(document, m.start()), f"a figure outside the markers: {m[0]!r}")
            )
    return found


def rewrite(path: Path, figures: dict[str, str]) -> bool:
    """Write each marked figure of ``path`` from ``figures``; True if the file changed.  An unknown
    name is an error: the document would quote nothing."""
    document = path.read_text(encoding="utf-8")

    def figure(m: re.Match[str]) -> str:
        if m["name"] not in figures:
            raise KeyError(
                f"{path}:{line_of(document, m.start())}: no figure named {m['name']!r} in the results"
            )
        return f"<!-- figure {m['name']} -->{figures[m['name']]}<!-- /figure -->"

    new = MARKED.sub(figure, document)
    if new != document:
        path.write_text(new, encoding="utf-8")
    return new != document


def check(
    paths: Iterable[Path], figures: dict[str, str], strict_page: Path = PERFORMANCE_PAGE
) -> list[Problem]:
    """The problems of every path; ``strict_page`` is also searched for figures outside the markers."""
    return [p for path in paths for p in problems(path, figures, strict=path == strict_page)]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.figures", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--check", action="store_true", help="change nothing; list what differs, exit 1 if any"
    )
    parser.add_argument(
        "--root", type=Path, default=ROOT, help="the checkout whose documents and results file to read"
    )
    args = parser.parse_args(argv)
    root = args.root
    figures = load(root / RESULTS_JSON.relative_to(ROOT))
    strict_page = root / PERFORMANCE_PAGE.relative_to(ROOT)
    if not args.check:
        for path in documents(root):
            if rewrite(path, figures):
                print(f"rewrote the figures of {path}")
    found = check(documents(root), figures, strict_page)
    for p in found:
        print(p)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
