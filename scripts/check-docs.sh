#!/usr/bin/env bash
# Runs every shell example of README.md, docs/*.md, samples/README.md and ffi/README.md as
# typed, each line checked for its exit code (0, or the one its comment names) and, where a
# comment shows a SIG line, for that line in its output: the docs' promise that examples run
# as typed, kept. A foreground server runs until its address answers; the blocks still
# skipped, and why, are listed in scripts/check-docs.py.
# Needs the binaries the examples use (a release build; `--fast` also takes target/debug and
# skips the examples' `cargo build` lines, as CI does), python3, curl and node.
#
#   bash scripts/check-docs.sh          # as a reader: builds what the docs build
#   bash scripts/check-docs.sh --fast   # CI: the binaries already built
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 scripts/check-docs.py "$@"
