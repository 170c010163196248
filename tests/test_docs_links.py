"""Every relative link of README.md and docs/ leads somewhere, and the README stays a front door.

A link is followed as the repository host follows it: relative to the document, to a file that
exists, and to a heading of that file when it names an anchor. The anchor must be the slug of a
heading both as the repository host makes it and as the site's Markdown makes it, so that it works
in both. A link from docs/ must stay inside docs/: the site is built from that folder alone.
``tox -e docs`` checks the built site again (mkdocs' own link and anchor validation); this test
runs in the normal suite, without mkdocs.
"""

import re
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
#: The issue's bound on the front door.
README_MAX_LINES = 250

FENCE = re.compile(r"^```.*?^```", re.S | re.M)
CODE_SPAN = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)


def documents() -> list[Path]:
    return [README, *sorted(DOCS.rglob("*.md"))]


def prose(text: str) -> str:
    """The text outside code blocks and code spans (a link shown as code is not a link)."""
    return CODE_SPAN.sub("", FENCE.sub("", text))


def links(text: str) -> list[str]:
    return LINK.findall(prose(text))


def heading_text(heading: str) -> str:
    """A heading as read: without its code marks and link syntax."""
    return re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "")


def slug_site(heading: str) -> str:
    """Python-Markdown's toc slug (what mkdocs gives the heading's id)."""
    value = unicodedata.normalize("NFKD", heading_text(heading)).encode("ascii", "ignore").decode()
    value = re.sub(r"[^\w\s-]", "", value).strip().lower()
    return re.sub(r"[-\s]+", "-", value)


def slug_host(heading: str) -> str:
    """The repository host's slug: lower case, punctuation dropped, each space a hyphen."""
    value = re.sub(r"[^\w\- ]", "", heading_text(heading).strip().lower())
    return value.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """The anchors that both the repository host and the site give the headings of ``path``."""
    headings = HEADING.findall(FENCE.sub("", path.read_text()))
    return {slug_site(h) for h in headings} & {slug_host(h) for h in headings}


def shown(path: Path) -> str:
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)


def broken(document: Path) -> list[str]:
    """The relative links of ``document`` that lead nowhere, each with the reason."""
    problems = []
    for target in links(document.read_text()):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:: not ours to check
            continue
        file, _, anchor = target.partition("#")
        path = (document.parent / file).resolve() if file else document
        if not path.is_file():
            problems.append(f"{target}: no file {shown(path)}")
            continue
        if document.is_relative_to(DOCS) and not path.is_relative_to(DOCS):  # the site has docs/ only
            problems.append(f"{target}: leaves docs/, which is all the site has")
            continue
        if anchor and path.suffix == ".md" and anchor not in anchors(path):
            problems.append(f"{target}: no heading #{anchor} in {shown(path)}")
    return problems


@pytest.mark.parametrize("document", documents(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_leads_somewhere(document):
    assert broken(document) == [], f"{document.relative_to(ROOT)}: broken links"


def test_the_readme_links_into_the_documentation():
    targets = {target.partition("#")[0] for target in links(README.read_text())}
    assert {"docs/index.md", "docs/audit.md", "docs/suite.md"} <= targets


def test_the_readme_is_a_front_door():
    lines = README.read_text().count("\n")
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines; the rest belongs in docs/"


def test_a_broken_link_or_anchor_is_found(tmp_path):
    """The checker itself: a missing file, a missing heading and a code span that only looks like a link."""
    (tmp_path / "there.md").write_text("# Title\n\n## Some `code` heading\n")
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](there.md) [ok too](there.md#some-code-heading) `[shown](as-code.md)`\n"
        "[gone](missing.md) [no such heading](there.md#nowhere) [web](https://example.org/x.md)\n"
        "```\n[in a block](block.md)\n```\n"
    )
    assert [problem.split(":")[0] for problem in broken(page)] == ["missing.md", "there.md#nowhere"]
