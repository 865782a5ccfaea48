#!/usr/bin/env python3
"""Records the grep cases of gnu_cases.rs from the real GNU grep on this machine.

Run it from anywhere (`python3 record_gnu.py`), then `cargo fmt`. Each case runs GNU grep
with LC_ALL=C.UTF-8 in a fresh copy of the fixture and stores its stdout, stderr and exit
status as the expected outcome.
"""
import os
import shutil
import subprocess
import sys
import tempfile


def rust_str(s: str) -> str:
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch == '\\': out.append('\\\\')
        elif ch == '"': out.append('\\"')
        elif ch == '\n': out.append('\\n')
        elif ch == '\t': out.append('\\t')
        elif ch == '\0': out.append('\\x00')
        elif ch == '\r': out.append('\\r')
        elif o < 0x20 or o == 0x7f: out.append('\\u{%x}' % o)
        else: out.append(ch)
    out.append('"')
    return ''.join(out)

def setup(root, files):
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    # tmpfs lists entries newest first: create in reverse order so readdir is sorted.
    for path, data in sorted(files, reverse=True):
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, 'wb') as f:
            f.write(data.encode() if isinstance(data, str) else data)

def run(root, argv, stdin):
    env = dict(os.environ, LC_ALL='C.UTF-8')
    p = subprocess.run(argv, cwd=root, input=stdin.encode(), capture_output=True, env=env)
    return (p.stdout.decode('utf-8', 'replace'), p.stderr.decode('utf-8', 'replace'), p.returncode)


FILES = [
    ("a.txt", "apple\nbanana\ncherry\napple pie\nApple\n"),
    ("b.txt", "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n"),
    ("words", "foo\nfoobar\nbar foo\nfoo_bar\n(foo)\n"),
    ("regex.txt", "a+b\naab\na.b\naxb\nab\n^start\nend$\nx{2}\nxx\n[x]\n\\back\n"),
    ("pats", "apple\ncherry\n"),
    ("empty", ""),
    ("nonl", "last line without newline"),
    ("bin.dat", "text\0binary\nmore text\n"),
    ("unicode", "café\nnaïve\nCAFÉ\nplain\n"),
    ("dir/c.txt", "apple in dir\n"),
    ("dir/sub/d.md", "apple markdown\nnothing\n"),
    ("dir/e.log", "log line\n"),
    ("ctx", "m1\nx\nx\nx\nm2\nx\nm3\nx\nx\nx\nx\nm4\n"),
]

# (name, args, stdin)
GROUPS = {}
def g(group, *cases):
    GROUPS.setdefault(group, []).extend(cases)

def c(args, stdin="", name="grep"):
    return (name, args, stdin)

g("basic_selection",
  c(["apple", "a.txt"]), c(["-i", "apple", "a.txt"]), c(["-v", "apple", "a.txt"]),
  c(["-c", "apple", "a.txt"]), c(["-n", "a", "a.txt"]), c(["-x", "apple", "a.txt"]),
  c(["-w", "foo", "words"]), c(["-c", "-v", "foo", "words"]), c(["-x", "-e", "one", "-e", "tw", "b.txt"]),
  c(["-wi", "FOO", "words"]), c(["-c", "", "a.txt"]), c(["-v", "", "a.txt"]), c([""], "x\n\ny\n"),
  c(["-e", "one\ntwo", "b.txt"]), c(["-e", "one", "-e", "two", "b.txt"]), c(["-f", "pats", "a.txt"]),
  c(["-f", "empty", "a.txt"]), c(["-v", "-f", "empty", "a.txt"]), c(["-e", "apple", "-f", "empty", "a.txt"]),
  c(["-f", "-", "a.txt"], "cherry\n"), c(["apple", "a.txt", "-n"]), c(["--", "-x", "a.txt"]),
  c(["-e", "-x", "a.txt"]), c(["-x", ""], "\nx\n"), c(["-w", ""], "\nx\n"), c(["-xv", "apple", "a.txt"]),
  c(["-wc", "foo", "words"]), c(["-y", "APPLE", "a.txt"]), c(["-i", "--no-ignore-case", "APPLE", "a.txt"]),
  c(["-vc", "e", "b.txt"]), c(["-vn", "e", "b.txt"]), c(["-v", "-m", "2", "e", "b.txt"]),
)
g("only_matching",
  c(["-o", "an", "a.txt"]), c(["-on", "p+", "a.txt"]), c(["-E", "-o", "p+", "a.txt"]),
  c(["-wo", "foo", "words"]), c(["-io", "APP", "a.txt"]), c(["-ob", "e", "b.txt"]),
  c(["-o", "[[:alpha:]]*", "a.txt"]), c(["-o", "\\w\\+", "a.txt"]), c(["-o", "e\\sp", "a.txt"]),
  c(["-o", "b*"], "abc\n"), c(["-o", "x*"], "abc\n"), c(["-oc", "p", "a.txt"]), c(["-ov", "apple", "a.txt"]),
  c(["-o", "-e", "a", "-e", "an", "a.txt"]), c(["-oE", "[0-9]+"], "a1b22c333\n"), c(["-o", "-A1", "m", "ctx"]),
  c(["-on", "x", "ctx"]), c(["-oH", "o", "words"]),
)
g("files_and_names",
  c(["-l", "apple", "a.txt", "b.txt", "words"]), c(["-L", "apple", "a.txt", "b.txt", "words"]),
  c(["apple", "a.txt", "b.txt"]), c(["-h", "apple", "a.txt", "dir/c.txt"]), c(["-H", "apple", "a.txt"]),
  c(["-q", "apple", "a.txt"]), c(["-q", "zzz", "a.txt"]), c(["-s", "x", "nonexist"]), c(["x", "nonexist"]),
  c(["apple", "nonexist", "a.txt"]), c(["-q", "apple", "nonexist", "a.txt"]), c(["-q", "zzz", "nonexist", "a.txt"]),
  c(["-c", "e", "a.txt", "b.txt"]), c(["-n", "-H", "-b", "e", "b.txt"]), c(["apple", "dir"]),
  c(["-s", "apple", "dir", "a.txt"]), c(["-d", "skip", "apple", "dir", "a.txt"]), c(["-lZ", "apple", "a.txt", "dir/c.txt"]),
  c(["-cZ", "apple", "a.txt", "b.txt"]), c(["-HZ", "apple", "a.txt"]), c(["-L", "zzz", "a.txt"]), c(["-l", "zzz", "a.txt"]),
  c(["-lv", "apple", "a.txt"]), c(["-lc", "apple", "a.txt", "b.txt"]), c(["-m0", "x", "nonexist"]),
  c(["x"], "x\ny\nx\n"), c(["-c", "x"], "x\ny\nx\n"), c(["-H", "x"], "x\n"), c(["--label=in", "-H", "x"], "x\n"),
  c(["x", "-", "a.txt"], "x\n"), c(["-c", "x", "-", "a.txt"], "x\n"), c(["-L", "x", "-"], "y\n"), c(["-l", "x"], "x\n"),
  c(["line", "nonl"]), c(["-c", "", "nonl"]), c(["-v", "zzz", "nonl"]), c(["x"], "no newline x"),
  c(["-v", "x"], "a\nx\nb"), c(["-c", "$"], "a\nb"), c(["-c", "^"], "\n\n"), c(["-c", "^"], ""), c(["x", "empty"]),
  c(["-n", "", "empty", "nonl"]), c(["-L", "x", "empty"]), c(["-c", "x", "empty"]),
)
g("context",
  c(["-A", "1", "three", "b.txt"]), c(["-B", "2", "five", "b.txt"]), c(["-C", "1", "-n", "five", "b.txt"]),
  c(["-2", "seven", "b.txt"]), c(["-A1", "-e", "two", "-e", "six", "b.txt"]),
  c(["-A1", "--group-separator=::", "-e", "two", "-e", "six", "b.txt"]),
  c(["-A1", "--no-group-separator", "-e", "two", "-e", "six", "b.txt"]),
  c(["-B1", "-n", "-e", "two", "-e", "three", "b.txt"]), c(["-C2", "-v", "e", "b.txt"]), c(["-m1", "-A2", "o", "b.txt"]),
  c(["-n", "-m1", "-A2", "m", "ctx"]), c(["-m2", "-A3", "m", "ctx"]), c(["-A0", "m", "ctx"]), c(["-B1", "m", "ctx"]),
  c(["-C1", "-n", "m", "ctx"]), c(["-A1", "m", "ctx", "b.txt"]), c(["-A1", "m", "ctx", "ctx"]), c(["-B2", "m4", "ctx", "ctx"]),
  c(["-C1", "-c", "m", "ctx"]), c(["-A1", "-v", "x", "ctx"]), c(["-B3", "-n", "m3", "ctx"]), c(["-C10", "m2", "ctx"]),
  c(["--context=1", "m3", "ctx"]), c(["--after-context=1", "m3", "ctx"]), c(["--before-context=1", "m3", "ctx"]),
  c(["-A1", "a"], "a\nb\nc\na\n"), c(["-nB1", "c"], "a\nb\nc\n"), c(["-bA1", "m2", "ctx"]), c(["-hA1", "m3", "ctx", "ctx"]),
  c(["-C1", "x"], "x\n"), c(["-A", "1", "-B", "0", "m1", "ctx"]), c(["-A1", "-m1", "-v", "m", "ctx"]),
)
g("regex_syntax",
  c(["a+b", "regex.txt"]), c(["-E", "a+b", "regex.txt"]), c(["a\\+b", "regex.txt"]), c(["-F", "a+b", "regex.txt"]),
  c(["a.b", "regex.txt"]), c(["-F", "a.b", "regex.txt"]), c(["^start", "regex.txt"]), c(["\\^start", "regex.txt"]),
  c(["end\\$", "regex.txt"]), c(["end$", "regex.txt"]), c(["x{2}", "regex.txt"]), c(["-E", "x{2}", "regex.txt"]),
  c(["x\\{2\\}", "regex.txt"]), c(["[x]", "regex.txt"]), c(["\\[x\\]", "regex.txt"]), c(["-F", "[x]", "regex.txt"]),
  c(["\\\\back", "regex.txt"]), c(["-E", "a|x", "regex.txt"]), c(["a\\|x", "regex.txt"]), c(["a|b", "regex.txt"]),
  c(["-E", "(aa|xx)", "regex.txt"]), c(["\\(aa\\)", "regex.txt"]), c(["-E", "^(a|x)+$", "regex.txt"]),
  c(["-E", "^a?b$", "regex.txt"]), c(["a\\?b", "regex.txt"]), c(["-c", "a*b", "regex.txt"]), c(["*b", "regex.txt"]),
  c(["[[:digit:]]", "b.txt"]), c(["[[:upper:]]", "a.txt"]), c(["-c", "[[:space:]]", "a.txt"]), c(["[^a-z]", "a.txt"]),
  c(["\\<app", "a.txt"]), c(["pie\\>", "a.txt"]), c(["\\bpie", "a.txt"]), c(["-c", "\\W", "a.txt"]),
  c(["-E", "a{,1}p{2}", "a.txt"]), c(["-E", "*apple", "a.txt"]), c(["-E", "a{1", "a.txt"]), c(["-E", "p{1,2}le$", "a.txt"]),
  c(["[]x]", "regex.txt"]), c(["[^[:alpha:]]", "regex.txt"]), c(["-F", "-x", "a.b", "regex.txt"]), c(["-F", "-i", "APPLE", "a.txt"]),
  c(["-F", "-w", "foo", "words"]), c(["-F", "-e", "xx", "-e", "aab", "regex.txt"]), c(["-E", "x{1}{2}", "regex.txt"]),
  c(["a**b", "regex.txt"]), c(["-E", "a+?b", "regex.txt"]), c(["^*"], "*x\nx\n"), c(["-E", "()"], "x\n"),
  c(["-E", "a||b"], "x\nb\n"), c(["\\.", "regex.txt"]), c(["[.]", "regex.txt"]), c(["-E", "\\{", "regex.txt"]),
  c(["-E", "a)"], "a)\n"), c(["\\`a", "a.txt"]), c(["e\\'", "a.txt"]), c(["[a-c]\\{3\\}", "a.txt"]),
  c(["-i", "café", "unicode"]), c(["-o", "[[:alpha:]]*", "unicode"]), c(["-c", "^.....$", "unicode"]),
  c(["-i", "CAFÉ", "unicode"]), c(["-w", "caf", "unicode"]), c(["-P", "\\d+", "-o"], "a12b3\n"), c(["-P", "(?i)APPLE", "a.txt"]),
  c(["-E", "a|*x"], "x\n"), c(["-oE", "(b|bc|bcd)+[ab]?|(b|bc|bcd)$"], "bcd bc b\n"), c(["-oE", "(a|ab){2}|x"], "aab abc\n"),
  c(["-oE", "x|xy|xyz"], "xyz xy x\n"), c(["-o", "-e", "foo", "-e", "foobar"], "foobar\n"), c(["-oE", "[0-9]+|[0-9]+\\.[0-9]+"], "1.5 and 22\n"), c(["\\(*x\\)"], "*x\nx\n"), c(["\\+x"], "+x\nx\n"), c(["-E", "^*x"], "x\n"),
)
g("errors",
  c(["\\(a", "a.txt"]), c(["a\\{1", "a.txt"]), c(["[a", "a.txt"]), c(["-E", "(a", "a.txt"]), c(["[:space:]", "a.txt"]),
  c(["a\\", "a.txt"]), c(["\\)", "a.txt"]), c(["a\\{1,0\\}", "a.txt"]), c(["-E", "a{2,1}", "a.txt"]), c(["[[:nope:]]", "a.txt"]),
  c(["[b-a]", "a.txt"]), c(["-E", "\\1", "a.txt"]), c(["-k", "x"]), c([]), c(["--foo", "x"]), c(["-A", "x", "y"]),
  c(["-m", "x", "y"]), c(["-e"]), c(["-f", "nonexist", "a.txt"]), c(["--binary-files=x", "a"]),
)
g("recursive",
  c(["-r", "apple"]), c(["-r", "apple", "dir"]), c(["-rl", "apple", "."]), c(["-r", "--include=*.md", "apple", "."]),
  c(["-r", "--exclude=*.md", "apple", "dir"]), c(["-r", "--exclude-dir=sub", "apple", "dir"]), c(["-rh", "markdown", "dir"]),
  c(["-rc", "apple", "dir"]), c(["-r", "apple", "a.txt"]), c(["-r", "apple", "a.txt", "dir/c.txt"]), c(["-r", "apple", "dir/"]),
  c(["-rn", "apple", "a.txt", "dir"]), c(["-rL", "apple", "dir"]), c(["-R", "nothing"]), c(["-r", "zzz"]),
  c(["-r", "--exclude-dir=dir", "apple", "dir"]), c(["--exclude=*.txt", "apple", "a.txt"]), c(["--include=*.c", "apple", "a.txt"]),
  c(["-r", "--include=*.txt", "--include=*.log", "l", "dir"]), c(["-rq", "markdown"]), c(["-r", "apple", "nonexist"]),
  c(["-rw", "in", "dir"]), c(["-d", "recurse", "log", "dir"]),
)
g("binary_and_null_data",
  c(["text", "bin.dat"]), c(["-c", "text", "bin.dat"]), c(["-a", "text", "bin.dat"]), c(["-l", "text", "bin.dat"]),
  c(["-I", "text", "bin.dat"]), c(["-v", "zzz", "bin.dat"]), c(["-o", "text", "bin.dat"]), c(["--binary-files=text", "more", "bin.dat"]),
  c(["a"], "a\0b\n"), c(["-c", "a"], "a\0b\na\n"), c(["-q", "text", "bin.dat"]), c(["zzz", "bin.dat"]), c(["-H", "text", "bin.dat", "a.txt"]),
  c(["-z", "b"], "a\0b\0c"), c(["-zc", "."], "a\nb\0c\0"), c(["-z", "^b"], "a\nb\0b\n"), c(["-zv", "a"], "a\0b\0"),
  c(["-n", "text", "bin.dat"]),
)
g("long_options",
  c(["--count", "apple", "a.txt"]), c(["--regexp=apple", "a.txt"]), c(["--invert-match", "--line-number", "a", "a.txt"]),
  c(["--max-count=1", "e", "b.txt"]), c(["--files-with-matches", "apple", "a.txt"]), c(["--files-without-match", "apple", "b.txt"]),
  c(["--ignore-case", "--only-matching", "APPLE", "a.txt"]), c(["--word-regexp", "foo", "words"]), c(["--line-regexp", "foo", "words"]),
  c(["--fixed-strings", "(foo)", "words"]), c(["--extended-regexp", "fo+", "words"]), c(["--with-filename", "foo", "words"]),
  c(["--no-filename", "foo", "words", "a.txt"]), c(["--quiet", "foo", "words"]), c(["--silent", "zzz", "words"]),
  c(["--color=never", "apple", "a.txt"]), c(["--color", "apple", "a.txt"]), c(["--colour=auto", "apple", "a.txt"]),
  c(["--basic-regexp", "a+b", "regex.txt"]), c(["--file=pats", "a.txt"]), c(["--byte-offset", "two", "b.txt"]),
  c(["--null-data", "-c", "x"], "x\0y\0"), c(["--text", "more", "bin.dat"]), c(["--recursive", "log", "dir"]),
  c(["--cou", "apple", "a.txt"]), c(["--line-buffered", "apple", "a.txt"]), c(["--no-messages", "x", "nonexist"]),
  c(["a+b", "regex.txt"], "", "egrep"), c(["a+b", "regex.txt"], "", "fgrep"), c(["-E", "a+b", "regex.txt"], "", "fgrep"),
)

def sort_by_path(text):
    # GNU walks in readdir order; corral walks in name order. Reorder GNU's lines (stably,
    # so each file's lines keep their order) by the path at their start.
    lines = text.splitlines(keepends=True)
    def key(line):
        path = line.split(':', 1)[0].rstrip('\n')
        return path.split('/')
    return ''.join(sorted(lines, key=key))

def main():
    root = tempfile.mkdtemp(prefix='grep-record-')
    setup(root, FILES)
    out = []
    out.append("// Generated by recording GNU grep 3.8 (LC_ALL=C.UTF-8) on the fixture below.\n")
    out.append("pub const FILES: &[(&str, &str)] = &[\n")
    for p, d in FILES:
        out.append(f"    ({rust_str(p)}, {rust_str(d)}),\n")
    out.append("];\n\n")
    total = 0
    for group, cases in GROUPS.items():
        out.append(f"pub const {group.upper()}: &[Case] = &[\n")
        for name, args, stdin in cases:
            so, se, rc = run(root, [name] + args, stdin)
            if group == "recursive":
                so = sort_by_path(so)
            a = ", ".join(rust_str(x) for x in args)
            out.append(f"    case({rust_str(name)}, &[{a}], {rust_str(stdin)}, {rust_str(so)}, {rust_str(se)}, {rc}),\n")
            total += 1
        out.append("];\n\n")
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'gnu_cases.rs')
    text = open(path).read()
    head = text[:text.index('// Generated by')]
    open(path, 'w').write(head + "".join(out))
    shutil.rmtree(root, ignore_errors=True)
    sys.stderr.write(f"{total} cases recorded; now run cargo fmt\n")

main()
