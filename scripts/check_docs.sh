#!/usr/bin/env bash
# Docs check (a ctest in the `unit` label, so CI runs it). The project speaks to its users, not
# about its own history: where and when a figure was measured belongs in a row of
# docs/performance.md (GPU, date, commit, command) or in a run record, and the log of how it was
# reached belongs in git and in docs/history/, a frozen archive this check skips.
#
# Outside docs/history/ the check fails (exit 1, one line per finding: FILE:LINE, what was
# found and what to do) on:
#
#  (a) a lettered host label, in any tracked text file: the word "host" or "hosts" (any case)
#      followed by a label of one or two capital letters standing as a word, as in a machine
#      called by a letter pair (the word, a space, then the letters), also when the label starts
#      the next line (there not the words "A" and "I"). Not a label: letters followed by "+" or
#      "#" (a host C++ compiler) and the acronyms OS and IP. Say what the reader needs instead: "an H200", "the GPU machine's
#      16-core host".
#  (b) a commit list, in Markdown files: a line with two or more distinct git-commit-like ids.
#      An id is 7-40 lowercase hex characters with at least one digit and at least one letter
#      a-f, standing as a word: not inside a longer word or number, not after ".", "/", "-",
#      "_" or "0x" (so 1.161e10, paths and hex constants are not ids). One commit per line is
#      allowed (a performance.md row names the commit of its figure); SHA-256 digests (64
#      characters) are too long to be ids; test vectors and hex constants in code are not
#      checked (only Markdown is).
#
# Files: `git ls-files` where ROOT is a git work tree, else every file under ROOT (build and
# bundle folders skipped); binary files (a NUL byte in the first 8 KiB) are skipped.
#
# Usage: check_docs.sh [ROOT]   (exit 0 if clean, 1 and the findings if not)
set -u
root=${1:-$(dirname "$0")/..}
exec python3 - "$root" <<'PY'
import os
import re
import subprocess
import sys

root = sys.argv[1]

HOST = re.compile(r"(?<![\w-])(hosts?)[ \t]+([A-Z]{1,2})(?![\w+#])", re.IGNORECASE)
HOST_AT_END = re.compile(r"(?<![\w-])hosts?[ \t]*$", re.IGNORECASE)
LABEL_AT_START = re.compile(r"^[ \t]*([A-Z]{1,2})(?![\w+#])")
NOT_LABELS = {"OS", "IP"}
COMMIT = re.compile(r"(?<![\w./_-])(?<!0x)([0-9a-f]{7,40})(?![\w/])")


def tracked_files(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True,
                             check=True).stdout
        if out:
            return [p for p in out.decode("utf-8", "replace").split("\0") if p]
    except (OSError, subprocess.CalledProcessError):
        pass
    files = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames
                       if d != ".git" and not d.startswith("build") and d != "bundle"]
        for name in filenames:
            files.append(os.path.relpath(os.path.join(dirpath, name), root))
    return sorted(files)


def text_lines(path):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    if b"\0" in data[:8192]:
        return None
    return data.decode("utf-8", "replace").splitlines()


def host_labels(lines):
    """(line number, text) of each lettered host label."""
    found = []
    for i, line in enumerate(lines):
        # A label of capitals only: the word "host" itself may be of any case.
        for m in HOST.finditer(line):
            if m.group(2).isupper() and m.group(2) not in NOT_LABELS:
                found.append((i + 1, m.group(0)))
        if HOST_AT_END.search(line) and i + 1 < len(lines):
            m = LABEL_AT_START.match(lines[i + 1])
            # A line may start with the word "A" or "I": not a label there.
            if m and m.group(1) not in NOT_LABELS | {"A", "I"}:
                found.append((i + 1, line.split()[-1] + " " + m.group(1)))
    return found


def commit_ids(line):
    ids = []
    for m in COMMIT.finditer(line):
        token = m.group(1)
        if re.search(r"[0-9]", token) and re.search(r"[a-f]", token) and token not in ids:
            ids.append(token)
    return ids


problems = []
for rel in tracked_files(root):
    rel = rel.replace(os.sep, "/")
    if rel.startswith("docs/history/"):
        continue
    lines = text_lines(os.path.join(root, rel))
    if lines is None:
        continue
    for n, text in host_labels(lines):
        problems.append(f"{rel}:{n}: lettered host label '{text}': say what the reader needs "
                        "(e.g. 'an H200', 'the GPU machine's host'), or move the log to "
                        "docs/history/")
    if rel.endswith(".md"):
        for i, line in enumerate(lines):
            ids = commit_ids(line)
            if len(ids) >= 2:
                problems.append(f"{rel}:{i + 1}: commit list ({', '.join(ids)}): keep one "
                                "commit per line, the one that holds the figure (a "
                                "performance.md row), and leave the list to git log or "
                                "docs/history/")

for p in problems:
    print(p)
if problems:
    print(f"check_docs: {len(problems)} finding(s); the rules are in scripts/check_docs.sh")
    sys.exit(1)
PY
