"""Every performance figure in the documents is the benchmark's: one source, benchmarks/results.json.

A document quotes a figure between markers (``<!-- figure NAME -->TEXT<!-- /figure -->``);
``python -m benchmarks.figures`` writes them from the results file.  These tests read the
documents and the results file only: no benchmark runs.
"""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import figures
from benchmarks.report import Results, markdown

ROOT = Path(__file__).resolve().parent.parent


def test_every_marked_figure_in_the_documents_is_the_results_files():
    results = figures.load()
    found = figures.check(figures.documents(), results)
    assert not found, "run python -m benchmarks.figures:\n" + "\n".join(map(str, found))


def test_the_performance_page_quotes_the_results_file():
    page = figures.PERFORMANCE_PAGE.read_text(encoding="utf-8")
    names = [m["name"] for m in figures.MARKED.finditer(page)]
    # the headline figures, each quoted once the page is in one place
    for name in (
        "one_sample.ours",
        "one_sample.micrograd",
        "one_sample.plain",
        "compiled.one_sample.compiled",
    ):
        assert name in names, name
    assert figures.PERFORMANCE_PAGE in figures.documents()


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "page.md"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_figure_that_differs_from_the_results_is_reported_with_its_line(tmp_path):
    path = write(tmp_path, "intro\n\na step takes <!-- figure one_sample.ours -->209 µs<!-- /figure -->.\n")
    (found,) = figures.problems(path, {"one_sample.ours": "465 µs"})
    assert (found.path, found.line) == (path, 3)
    assert "one_sample.ours" in found.text and "'209 µs'" in found.text and "'465 µs'" in found.text


def test_a_figure_the_results_do_not_have_is_reported(tmp_path):
    path = write(tmp_path, "<!-- figure one_sample.theirs -->1 µs<!-- /figure -->\n")
    (found,) = figures.problems(path, {"one_sample.ours": "1 µs"})
    assert "one_sample.theirs" in found.text


def test_figures_that_agree_are_not_reported(tmp_path):
    text = "<!-- figure a.b -->465 µs<!-- /figure --> and <!-- figure c -->5.1×<!-- /figure -->\n"
    assert figures.problems(write(tmp_path, text), {"a.b": "465 µs", "c": "5.1×"}, strict=True) == []


@pytest.mark.parametrize("figure", ["465 µs", "1.06 ms", "3 s", "104 B", "2.9 MiB", "5.1×", "66×", "12 ns"])
def test_a_measured_number_outside_the_markers_is_reported_on_the_strict_page(tmp_path, figure):
    path = write(tmp_path, f"MLP(2, [16, 16, 1]), 337 parameters, N = 100,000: {figure} here\n")
    assert figures.problems(path, {}) == []  # not strict: only the markers are read
    (found,) = figures.problems(path, {}, strict=True)
    assert repr(figure) in found.text


def test_rewriting_writes_every_marked_figure_and_nothing_else(tmp_path):
    before = "x <!-- figure a -->1 µs<!-- /figure --> y <!-- figure b -->2×<!-- /figure --> 7 µs\n"
    path = write(tmp_path, before)
    assert figures.rewrite(path, {"a": "3 µs", "b": "4.5×"})
    assert path.read_text(encoding="utf-8") == (
        "x <!-- figure a -->3 µs<!-- /figure --> y <!-- figure b -->4.5×<!-- /figure --> 7 µs\n"
    )
    assert not figures.rewrite(path, {"a": "3 µs", "b": "4.5×"})  # already so: the file is not touched


def test_rewriting_refuses_a_name_the_results_do_not_have(tmp_path):
    path = write(tmp_path, "<!-- figure gone -->1 µs<!-- /figure -->\n")
    with pytest.raises(KeyError, match="gone"):
        figures.rewrite(path, {"a": "3 µs"})
    assert "1 µs" in path.read_text(encoding="utf-8")


def test_the_check_command_fails_on_a_stale_figure(tmp_path):
    """``python -m benchmarks.figures --check`` in a copy of the documents with one figure changed."""
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "docs").mkdir()
    results = {"figures": {"one_sample.ours": "465 µs"}}
    (tmp_path / "benchmarks" / "results.json").write_text(json.dumps(results), encoding="utf-8")
    page = tmp_path / "docs" / "performance.md"
    page.write_text("<!-- figure one_sample.ours -->465 µs<!-- /figure -->\n", encoding="utf-8")

    def check() -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "benchmarks.figures", "--check", "--root", str(tmp_path)]
        return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=60)

    assert check().returncode == 0
    page.write_text("<!-- figure one_sample.ours -->209 µs<!-- /figure -->\n", encoding="utf-8")
    done = check()
    assert done.returncode == 1 and "performance.md:1: one_sample.ours reads '209 µs'" in done.stdout
    assert "209 µs" in page.read_text(encoding="utf-8")  # --check changes nothing
    page.write_text("<!-- figure one_sample.ours -->465 µs<!-- /figure --> and 209 µs\n", encoding="utf-8")
    done = check()
    assert done.returncode == 1 and "performance.md:1: a figure outside the markers: '209 µs'" in done.stdout


def test_the_results_file_holds_formatted_figures_by_name():
    data = json.loads(figures.RESULTS_JSON.read_text(encoding="utf-8"))
    assert data["figures"] and all(re.fullmatch(r"[\w.]+", name) for name in data["figures"])
    assert all(isinstance(text, str) and "<" not in text for text in data["figures"].values())


def test_the_benchmark_reports_say_no_issue_numbers_and_no_dates():
    """A document says what is true now: the report generator writes no issue numbers or run dates."""
    generated = markdown(Results(), None)
    for text in (generated, (ROOT / "benchmarks" / "RESULTS.md").read_text(encoding="utf-8")):
        assert not re.search(r"issue \d|\bDate\b|\d{4}-\d\d-\d\d", text, re.IGNORECASE)
