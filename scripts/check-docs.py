"""Runs every shell example of the README and docs/ as typed (scripts/check-docs.sh).

Each ```sh block of a document runs, in order, in one bash shell per document started at the
repository's root (so `cd` and `export` carry from line to line and block to block, as in a
reader's terminal). A line must exit 0, or the code its comment names (`# exit 2: …`); a line
ending in `&` runs in the background and is stopped when the document ends. A block right
after a `<!-- check-docs: skip (why) -->` comment is not run (it starts a server in the
foreground, or is the test suite itself).

With `--fast` (CI) `cargo build` lines are skipped and the binaries already built are used:
target/release before target/debug on the PATH. `/tmp/pogo`, the examples' scratch folder,
is emptied before each document.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

DOCS = [
    "README.md",
    "docs/cli.md",
    "docs/server.md",
    "docs/live.md",
    "docs/web.md",
    "docs/embedding.md",
    "docs/operations.md",
]
SKIP = re.compile(r"<!--\s*check-docs:\s*skip\b")
EXIT = re.compile(r"#\s*exit (\d)\b")
# Bounds: a document's examples finish in this many seconds, or the check fails.
DOC_SECONDS_MAX = 600


def blocks(text):
    """The runnable sh blocks of a document: (first line number, lines)."""
    lines = text.split("\n")
    out, i, skip_next = [], 0, False
    while i < len(lines):
        line = lines[i]
        if SKIP.search(line):
            skip_next = True
        elif line.strip() == "```sh":
            start = i + 1
            body = []
            i += 1
            while i < len(lines) and lines[i].strip() != "```":
                body.append(lines[i])
                i += 1
            if not skip_next:
                out.append((start + 1, body))
            skip_next = False
        elif line.strip() and not line.startswith("<!--"):
            skip_next = skip_next and not line.strip()
        i += 1
    return out


def logical_lines(first, body):
    """Lines joined across trailing backslashes: (line number, text)."""
    out, current, at = [], "", None
    for n, line in enumerate(body, first):
        if at is None:
            at = n
        if line.rstrip().endswith("\\"):
            current += line.rstrip()[:-1] + " "
            continue
        current += line
        out.append((at, current))
        current, at = "", None
    return out


def script(doc, fast):
    """The bash script that runs a document's examples, each line checked."""
    parts = ["set -u", "trap 'kill $(jobs -p) 2>/dev/null; wait 2>/dev/null' EXIT"]
    if fast:
        root = os.getcwd()
        parts.append(f'export PATH="{root}/target/release:{root}/target/debug:$PATH"')
    for first, body in blocks(open(doc, encoding="utf-8").read()):
        for n, line in logical_lines(first, body):
            code = line.split(" #")[0].strip() if not line.lstrip().startswith("#") else ""
            if not code:
                continue
            if fast and code.startswith("cargo build"):
                continue
            if code.endswith("&"):
                parts.append(code)
                continue
            m = EXIT.search(line)
            expected = int(m.group(1)) if m else 0
            shown = (
                code.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$").replace("`", "\\`")
            )
            parts.append(code)
            parts.append(
                f'rc=$?; if [ "$rc" -ne {expected} ]; then echo "check-docs: {doc}:{n}: exit $rc, '
                f'expected {expected}: {shown}" >&2; exit 1; fi'
            )
    return "\n".join(parts) + "\n"


def main():
    fast = "--fast" in sys.argv[1:]
    failed = []
    for doc in DOCS:
        if not os.path.exists(doc):
            continue
        shutil.rmtree("/tmp/pogo", ignore_errors=True)
        body = script(doc, fast)
        with tempfile.NamedTemporaryFile("w", suffix=".sh", delete=False) as f:
            f.write(body)
            path = f.name
        print(f"== {doc}", flush=True)
        try:
            done = subprocess.run(
                ["bash", path],
                timeout=DOC_SECONDS_MAX,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
                errors="replace",
            )
            if done.returncode != 0:
                # What the examples printed on stderr, the failing line's message last.
                print(done.stderr[-4000:], file=sys.stderr)
                failed.append(doc)
        except subprocess.TimeoutExpired:
            print(f"check-docs: {doc}: over {DOC_SECONDS_MAX} s", file=sys.stderr)
            failed.append(doc)
        finally:
            os.unlink(path)
    if failed:
        print(f"check-docs: examples that do not run as typed in: {', '.join(failed)}", file=sys.stderr)
        sys.exit(1)
    print("check-docs: every example ran as typed")


if __name__ == "__main__":
    main()
