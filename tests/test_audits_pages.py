"""The audit pages (docs/audits/) are generated: the matrix (index.md) and one page per engine are
what `.ci/audits.py --render` writes from the committed results (.ci/audit-results), every engine
of the corpus has a saved result and a page linked from the matrix, and the pages read well on the
repository host and in mkdocs (links that resolve, headings unique within a page). No audit runs."""

from __future__ import annotations

import re
from pathlib import Path

from tests.ci_scripts import load

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "audits"
RESULTS = ROOT / ".ci" / "audit-results"


def ci_audits():
    """.ci/audits.py, imported from its path (.ci is no package)."""
    return load("audits")


def committed_pages() -> dict[str, str]:
    return {path.name: path.read_text() for path in sorted(DOCS.glob("*.md"))}


def links(text: str) -> list[str]:
    """The targets of the markdown links of a page."""
    return re.findall(r"\]\(([^)\s]+)\)", text)


def test_the_pages_are_what_render_writes_from_the_saved_results():
    audits = ci_audits()
    rendered = audits.pages(audits.saved_results())
    committed = committed_pages()
    assert sorted(committed) == sorted(rendered)  # no page missing, none left over
    for name, text in rendered.items():
        assert committed[name] == text, f"docs/audits/{name} differs: run python .ci/audits.py --render"


def test_every_engine_of_the_corpus_has_a_saved_result_and_a_page_linked_from_the_matrix():
    audits = ci_audits()
    saved = {path.stem for path in RESULTS.glob("*.json")}
    assert saved == {engine.name for engine in audits.ENGINES} | {"autograd"}
    index = (DOCS / "index.md").read_text()
    matrix = index.split("## Matrix", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in matrix.splitlines() if line.startswith("| [")]
    linked = [re.match(r"\| \[[^]]+\]\(([^)]+)\)", row)[1] for row in rows]
    assert len(rows) == len(audits.ENGINES) + 1  # and our own engine
    assert sorted(linked) == sorted(set(committed_pages()) - {"index.md"})  # each page once


def test_each_page_counts_the_defects_its_saved_report_counts():
    audits = ci_audits()
    for label, result in audits.saved_results().items():
        page = (DOCS / audits.page_of(label)).read_text()
        report = page.split("## Report", 1)[1]
        if result["status"] != "audited":
            assert "## Not audited" in page
            continue
        count = result["json"]["defects"]  # what the audit itself counted
        assert report.rstrip().endswith((f"{count} defect(s)" if count else "no defects") + "\n```"), label
        assert page.count("```python") >= count, label  # a reproducer for each defect (and inconclusive)


def test_links_between_the_pages_resolve_and_headings_are_unique_within_a_page():
    for name, text in committed_pages().items():
        for target in links(text):
            if "/" in target or target.startswith(("http:", "https:")):
                continue  # another part of the documentation, or the web: not this test's
            assert (DOCS / target.partition("#")[0]).is_file(), f"{name}: broken link {target}"
        outside_code = re.sub(r"```.*?```", "", text, flags=re.S)
        headings = re.findall(r"^#+ (.+)$", outside_code, flags=re.M)
        assert len(headings) == len(set(headings)), f"{name}: a heading twice: {headings}"
        assert outside_code.startswith("# ") and len(re.findall(r"^# ", outside_code, flags=re.M)) == 1, name


def test_the_pages_say_what_is_true_now_with_no_history():
    dated = re.compile(r"\b20\d\d-\d\d-\d\d\b|\bissue \d+|\bformer|\bfirst run|\bnow\b", re.I)
    for name, text in committed_pages().items():
        prose = re.sub(r"```.*?```", "", text, flags=re.S)  # the engine's own output may say anything
        assert not dated.findall(prose), f"{name}: {dated.findall(prose)}"
