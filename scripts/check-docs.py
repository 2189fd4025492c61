"""Runs every shell example of the README, docs/, samples/ and ffi/ as typed (scripts/check-docs.sh).

Each ```sh block of a document runs, in order, in one bash shell per document started at the
repository's root (so `cd` and `export` carry from line to line and block to block, as in a
reader's terminal). A line must exit 0, or the code its comment names (`# exit 2: …`); a line
ending in `&` runs in the background and is stopped when the document ends. A line whose
comment says `(Ctrl-C stops it)` starts a server in the foreground, as a reader runs it: here it
runs in the background until the address in its comment answers (or fails if it exits first),
and is stopped when the document ends. Each line is one command: no heredocs.

What the examples print is checked where the docs show it: a comment that shows a `SIG` line
(`# SIG ticks=3294 … hash=…`, or `P0 SIG …`, several separated by commas) must match a whole
line the command printed (stdout or stderr), `…` standing for any text.

A block right after a `<!-- check-docs: skip (why) -->` comment is not run. Four are, each
for the reason its comment gives: README.md's `cargo test --workspace` (the test suite
itself, over 20 minutes), docs/operations.md's PostgreSQL installation (as root, installs a
system package) and its server on another machine's address (`--advertise-url
http://10.0.0.7:8080`, and a PostgreSQL database), and docs/web.md's browser suite (installs
browsers with sudo; CI runs it as a step of its own).

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
    "samples/README.md",
    "ffi/README.md",
]
# Documents whose `pogo …` lines assume the tool on the PATH (samples/README.md: "after
# `cargo install --path .`"): the release build's folder is put there first, in both modes.
POGO_ON_PATH = {"samples/README.md"}
SKIP = re.compile(r"<!--\s*check-docs:\s*skip\b")
EXIT = re.compile(r"#\s*exit (\d)\b")
FOREGROUND = re.compile(r"\(Ctrl-C stops it\)")
ADDRESS = re.compile(r"(https?://[^\s)]+|\b127\.0\.0\.1:\d+\b)")
# A SIG line shown in a comment: `SIG` (or `P<i> SIG`) and the `key=value` or `…` words after
# it, up to the first word that is neither.
SIG_START = re.compile(r"\b(?:P\d+ )?SIG\b")
SIG_WORD = re.compile(r"^(…|[a-z_]+=(?:…|[^\s…]+))$")
# How long a foreground server may take to answer (a debug build warms its levels first).
SERVER_START_SECONDS_MAX = 120
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


def shown_sig_lines(comment):
    """The SIG lines a comment shows, as regular expressions for a whole output line."""
    out = []
    for start in SIG_START.finditer(comment):
        words = comment[start.start() :].split()
        head = 2 if words[0].startswith("P") and words[0] != "SIG" else 1
        pattern = [re.escape(w) for w in words[:head]]
        for word in words[head:]:
            word = word.rstrip(",;:")
            if not SIG_WORD.match(word):
                break
            if word == "…":
                pattern.append(".*")
            else:
                key, value = word.split("=", 1)
                pattern.append(re.escape(key) + "=" + (r"\S+" if value == "…" else re.escape(value)))
        if len(pattern) > head:
            out.append("^" + r"\s+".join(pattern) + "$")
    return out


def check_output(patterns, files):
    """`--expect`: exit 1 unless each pattern matches a whole line of one of the files."""
    lines = []
    for name in files:
        with open(name, encoding="utf-8", errors="replace") as f:
            lines += f.read().splitlines()
    missing = [p for p in patterns if not any(re.match(p, line) for line in lines)]
    for p in missing:
        print(f"no output line matches {p!r}", file=sys.stderr)
    return 1 if missing else 0


def quote(text):
    """`text` as one single-quoted bash word."""
    return "'" + text.replace("'", "'\\''") + "'"


def script(doc, fast):
    """The bash script that runs a document's examples, each line checked."""
    parts = [
        "set -u",
        "trap 'kill $(jobs -p) 2>/dev/null; wait 2>/dev/null; rm -f \"$check_out\" \"$check_err\"' EXIT",
        'check_out=$(mktemp); check_err=$(mktemp)',
    ]
    root = os.getcwd()
    if fast:
        parts.append(f'export PATH="{root}/target/release:{root}/target/debug:$PATH"')
    elif doc in POGO_ON_PATH:
        parts.append(f'export PATH="{root}/target/release:$PATH"')
    checker = quote(os.path.join(root, "scripts", "check-docs.py"))
    for first, body in blocks(open(doc, encoding="utf-8").read()):
        for n, line in logical_lines(first, body):
            code = line.split(" #")[0].strip() if not line.lstrip().startswith("#") else ""
            if not code:
                continue
            if fast and code.startswith("cargo build"):
                continue
            shown = (
                code.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$").replace("`", "\\`")
            )
            comment = line[len(line.split(" #")[0]) :]
            if code.endswith("&"):
                parts.append(code)
                continue
            if FOREGROUND.search(comment):
                address = ADDRESS.search(comment)
                if not address:
                    raise SystemExit(f"check-docs: {doc}:{n}: a foreground server names no address")
                url = address.group(1)
                url = url if url.startswith("http") else "http://" + url + "/"
                parts.append(f"{code} &")
                parts.append(
                    f"server=$!; up=; for _ in $(seq {SERVER_START_SECONDS_MAX * 5}); do "
                    f"if curl -sf -o /dev/null {quote(url)}; then up=1; break; fi; "
                    f'kill -0 "$server" 2>/dev/null || break; sleep 0.2; done; '
                    f'if [ -z "$up" ]; then echo "check-docs: {doc}:{n}: {url} never answered: '
                    f'{shown}" >&2; exit 1; fi'
                )
                continue
            m = EXIT.search(line)
            expected = int(m.group(1)) if m else 0
            sig = shown_sig_lines(comment)
            if sig:
                # The output kept to compare (the command runs in this shell: `{ …; }`).
                parts.append(f'{{ {code}\n}} >"$check_out" 2>"$check_err"')
            else:
                parts.append(code)
            parts.append(
                f'rc=$?; if [ "$rc" -ne {expected} ]; then echo "check-docs: {doc}:{n}: exit $rc, '
                f'expected {expected}: {shown}" >&2; exit 1; fi'
            )
            if sig:
                patterns = " ".join(quote(p) for p in sig)
                parts.append(
                    f'python3 {checker} --expect {patterns} -- "$check_out" "$check_err" || '
                    f'{{ echo "check-docs: {doc}:{n}: not the output shown: {shown}" >&2; exit 1; }}'
                )
    return "\n".join(parts) + "\n"


def main():
    if sys.argv[1:2] == ["--expect"]:
        args = sys.argv[2:]
        split = args.index("--")
        sys.exit(check_output(args[:split], args[split + 1 :]))
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
