"""The sample audit outputs of the README and of docs/ are the code's own output.

Each block of README.md or docs/**/*.md that starts with ``$ python -m autograd.testing audit ...``
is compared with what that command line prints now (run by the shell from the repository's root,
so a block may pipe the report through a filter), apart from what varies between runs: the wall
time, and micrograd's nondeterministic gradients (which depend on memory addresses). A block may
end with ``$ echo $?`` and the command's exit status, which is compared too.
``python tests/test_readme_audits.py`` rewrites the blocks from the code.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

# the samples show the time probe's verdict: audits run alone (tox.ini); whole audits: the slow tier
pytestmark = [pytest.mark.timing, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
#: Every document whose audit samples are checked.
DOCUMENTS = [README, *sorted((ROOT / "docs").rglob("*.md"))]
BLOCK = re.compile(r"```\n\$ (python -m autograd\.testing audit [^\n]+)\n(.*?)```", re.S)
STATUS = "\n$ echo $?"
#: What differs from run to run, and how it is written when compared.
VARYING = (
    (re.compile(r"(seed \d+); [0-9.]+ s$", re.M), r"\1; N s"),
    (re.compile(r"gives \d+ different gradients across runs: .*$", re.M), "gives N different gradients: ..."),
)


def normalised(text: str) -> str:
    for pattern, replacement in VARYING:
        text = pattern.sub(replacement, text)
    return text.rstrip()


def blocks() -> list[tuple[Path, str, str]]:
    """``(document, command, shown text)`` of every sample audit, ``$ echo $?`` and its answer included."""
    return [(path, command, body) for path in DOCUMENTS for command, body in BLOCK.findall(path.read_text())]


def run(command: str) -> subprocess.Popen:
    """The command line as a user runs it from the repository's root (a shell, for its pipes)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    # `python` in the samples is the interpreter running these tests
    shell = command.replace("python -m", f"{sys.executable} -m", 1)
    return subprocess.Popen(
        ["bash", "-c", shell], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env
    )


def expected(body: str, output: str, status: int) -> str:
    """What a block shows for this output: the output, then the status when the block shows one."""
    return output.rstrip() + (f"{STATUS}\n{status}" if STATUS in body else "")


def test_the_documents_show_sample_audits():
    shown = {(path.relative_to(ROOT).as_posix(), command.split()[4]) for path, command, _ in blocks()}
    # a short sample on the front door, and the full reports of micrograd and our own engine
    assert any(path == "README.md" for path, _ in shown)
    assert {("docs/audit.md", "micrograd.engine"), ("docs/audit.md", "autograd")} <= shown


@pytest.fixture(scope="module")
def printed() -> dict[str, tuple[str, int]]:
    """What each sample's command line prints, and its exit status: the audits run side by side."""
    runs = {command: run(command) for _, command, _ in blocks()}
    return {command: (p.communicate(timeout=900)[0], p.returncode) for command, p in runs.items()}


@pytest.mark.parametrize(
    ("path", "command", "body"),
    [pytest.param(*block, id=f"{block[0].name}:{block[1].split()[4]}") for block in blocks()],
)
def test_each_sample_audit_is_what_the_command_prints(path, command, body, printed):
    output, status = printed[command]
    assert normalised(body) == normalised(expected(body, output, status)), (
        f"{path.relative_to(ROOT)}: the sample `{command}` is stale: run `python tests/test_readme_audits.py`"
    )
    if "higher order: yes" in output:  # a report must not contradict itself
        assert "second_order not_applicable" not in output


def rewrite() -> None:
    for path in DOCUMENTS:
        text = path.read_text()

        def fresh(match: re.Match[str]) -> str:
            command, body = match.group(1), match.group(2)
            process = run(command)
            output = process.communicate(timeout=900)[0]
            return f"```\n$ {command}\n{expected(body, output, process.returncode)}\n```"

        new = BLOCK.sub(fresh, text)
        if new != text:
            path.write_text(new)
            print(f"rewrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    sys.exit(rewrite())
