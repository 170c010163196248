"""Write a target's survivor list from the gate's ``--list`` output and a verdict per survivor.

    python .ci/mutation_gate.py --target T --list > T.log
    python .ci/mutants_doc.py T.log header.md reasons.json .ci/mutation/survivors/T.md

header.md: the file's text with {SOURCES}, {RUN} and {ROWS} in it; reasons.json: {mutant name: why it
is not killed}, and "__run__": the text for {RUN}.  Fails when a survivor has no reason.
"""

import json
import re
import sys
from pathlib import Path

from mutation_gate import SOURCE_HASH  # the gate's own pattern of a source line (.ci is on sys.path)

ROW = re.compile(r"^\| `([^`]+)` \| (.*) \| (survived|no tests) \| why: \.\.\. \((\S+)\) \|$", re.M)


def main(log: str, header: str, reasons: str, out: str) -> None:
    text = Path(log).read_text(encoding="utf-8").replace("\r", "\n")
    rows = ROW.findall(text)
    why = json.loads(Path(reasons).read_text(encoding="utf-8"))
    missing = [name for *_, name in rows if name not in why]
    if missing:
        sys.exit("no reason for: " + " ".join(missing))
    table = ["| function | change (old → new) | status | why it is not killed |", "|---|---|---|---|"]
    table += [f"| `{f}` | {change} | {status} | {why[name]} ({name}) |" for f, change, status, name in rows]
    doc = (
        Path(header)
        .read_text(encoding="utf-8")
        .format(
            SOURCES="\n".join(m.group(0) for m in SOURCE_HASH.finditer(text)),
            RUN=why.get("__run__", ""),
            ROWS="\n".join(table),
        )
    )
    Path(out).write_text(doc, encoding="utf-8")
    print(f"{len(rows)} rows -> {out}")


if __name__ == "__main__":
    main(*sys.argv[1:5])
