"""Running a reproducer as a user would paste it: what it prints."""

import contextlib
import io


def printed(snippet: str) -> str:
    """What ``snippet`` prints when run on its own (a fresh namespace), stripped."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(snippet, "<reproducer>", "exec"), {})
    return out.getvalue().strip()
