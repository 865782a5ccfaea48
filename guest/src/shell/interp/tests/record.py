#!/usr/bin/env python3
"""Record what real bash does for each case of ``cases.txt``, rewriting the file in place.

Each case runs as ``bash --norc --noprofile -c SCRIPT`` in ``/workspace`` holding the fixture
of ``mod.rs`` (the sandbox's paths, so outputs that show paths match), with a small fixed
environment. Run it on a machine with GNU coreutils, grep, sed, gawk, jq and bc:

    python3 record.py cases.txt          # needs permission to create /workspace
"""

import os
import re
import shutil
import subprocess
import sys

FIXTURE_RS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mod.rs")
ROOT = "/workspace"


def fixture():
    text = open(FIXTURE_RS).read()
    block = text.split("pub const FIXTURE", 1)[1].split("];", 1)[0]
    pairs = re.findall(r'\(\s*"((?:[^"\\]|\\.)*)",\s*"((?:[^"\\]|\\.)*)",?\s*\)', block)
    return [(p, c.encode().decode("unicode_escape")) for p, c in pairs]


def prepare(files):
    if os.path.isdir(ROOT):
        shutil.rmtree(ROOT)
    os.makedirs(ROOT)
    for path, contents in files:
        full = os.path.join(ROOT, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(contents)
    os.chmod(os.path.join(ROOT, "script.sh"), 0o755)


def parse(text):
    cases, cur = [], None
    for line in text.splitlines(keepends=True):
        if line.startswith("#### "):
            cur = {"header": line, "script": "", "section": "script"}
            cases.append(cur)
        elif cur is not None:
            if line.startswith("---- "):
                cur["section"] = None
            elif cur["section"] == "script":
                cur["script"] += line
    return cases


def block(name, text):
    if text.endswith("\n") or text == "":
        return f"---- {name}\n{text}"
    return f"---- {name} nonl\n{text}\n"


def main(path):
    files = fixture()
    cases = parse(open(path).read())
    out = []
    env = {"HOME": ROOT, "PATH": "/usr/local/bin:/usr/bin:/bin", "LC_ALL": "C.UTF-8", "TZ": "UTC",
           "USER": "user", "LANG": "C.UTF-8", "TERM": "dumb"}
    for case in cases:
        prepare(files)
        done = subprocess.run(["bash", "--norc", "--noprofile", "-c", case["script"]],
                              cwd=ROOT, env=env, capture_output=True, timeout=20)
        stdout = done.stdout.decode("utf-8", "replace")
        stderr = done.stderr.decode("utf-8", "replace").replace("bash: -c: line", "bash: line")
        out.append(case["header"] + case["script"] + block("stdout", stdout)
                   + block("stderr", stderr) + f"---- status {done.returncode}\n")
    open(path, "w").write("".join(out))
    shutil.rmtree(ROOT)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "cases.txt")
