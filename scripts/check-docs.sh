#!/usr/bin/env bash
# Runs every shell example of README.md and docs/*.md as typed, each line checked for its exit
# code (0, or the one its comment names): the docs' promise that examples run as typed, kept.
# Needs the binaries the examples use (a release build; `--fast` also takes target/debug and
# skips the examples' `cargo build` lines, as CI does) and python3.
#
#   bash scripts/check-docs.sh          # as a reader: builds what the docs build
#   bash scripts/check-docs.sh --fast   # CI: the binaries already built
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 scripts/check-docs.py "$@"
