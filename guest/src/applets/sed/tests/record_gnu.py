#!/usr/bin/env python3
"""Records the sed cases of gnu_cases.rs from the real GNU sed on this machine.

Run it from anywhere (`python3 record_gnu.py`), then `cargo fmt`. Each case runs GNU sed
with LC_ALL=C.UTF-8 in a fresh copy of the fixture and stores its stdout, stderr and exit
status (and the files it left behind) as the expected outcome.
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
    ("f", "one\ntwo\nthree\nfour\nfive\n"),
    ("g", "alpha\nbeta\n"),
    ("nonl", "x\ny"),
    ("script.sed", "s/one/ONE/\n/three/d\n"),
    ("quiet.sed", "#n\n/two/p\n"),
    ("bad.sed", "p\ns/a\n"),
    ("lines", "hello world\nfoo bar baz\n  indented\n\ttabbed\nUPPER lower\n"),
    ("csv", "a,b,c\n1,2,3\n"),
    ("empty", ""),
    ("dir/x", "in dir\n"),
    ("r.txt", "R1\nR2\n"),
    ("nums", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"),
]

GROUPS = {}
def g(group, *cases):
    GROUPS.setdefault(group, []).extend(cases)

def c(args, stdin="", check=()):
    return (args, stdin, list(check))

g("substitute",
  c(["s/o/0/", "f"]), c(["s/o/0/g", "f"]), c(["s/e/E/2", "f"]), c(["s/o/0/2g"], "foo boo moo\n"),
  c(["s/x*/-/g"], "abc\n"), c(["s/a*/x/g"], "baaac\n"), c(["s/b*/x/2"], "abc\n"), c(["s/b*/x/3"], "abc\n"),
  c(["s/\\(l\\+\\)/[\\1]/g", "lines"]), c(["s/\\w\\+/\\u&/g", "lines"]), c(["s/.*/\\U&/", "lines"]),
  c(["s/\\(.\\)\\(.*\\)/\\2\\U\\1/", "lines"]), c(["s/\\(\\w*\\) \\(\\w*\\)/\\U\\1\\E \\2/", "lines"]), c(["s/[A-Z]\\+/\\L&/g", "lines"]),
  c(["s/\\b./\\u&/g"], "foo bar\n"), c(["s/.*/\\L\\u&/"], "hELLO\n"), c(["s/o/\\n/"], "foo\n"), c(["s/o/\\\n/"], "foo\n"),
  c(["s/HELLO/x/I", "lines"]), c(["s/hello/x/i", "lines"]), c(["s/^/>/;s/$/</", "f"]), c(["s/o//;s//0/", "f"]),
  c(["/t/s//T/", "f"]), c(["s/o/&&/g", "f"]), c(["s/o/\\&/", "f"]), c(["s|/|_|g"], "a/b/c\n"), c(["s,a\\,b,X,"], "a,b\n"),
  c(["s/\\t/T/", "lines"]), c(["s/[\\t]/T/", "lines"]), c(["s/a\\|b/X/g"], "cab\n"), c(["-E", "s/a|b/X/g"], "cab\n"),
  c(["s/\\(a\\|ab\\)/X/"], "abc\n"), c(["-E", "s/(a|ab)(c|bcd)/[\\1,\\2]/"], "abcd\n"), c(["s/x\\{2\\}/Y/"], "xxx\n"),
  c(["s/[[:upper:]]/u/g"], "aBcD\n"), c(["s/a/\\x41/"], "a\n"), c(["s/\\x61/b/"], "a\n"), c(["s/a/\\cA/"], "a\n"),
  c(["s/.*/\"&\"/", "g"]), c(["s/\\//|/"], "/\n"), c(["s/[/]/|/"], "/\n"), c(["-E", "s/([0-9]+)-([0-9]+)/\\2-\\1/"], "10-20\n"),
  c(["-E", "s/(x)?y/[\\1]/"], "y\n"), c(["s/a.b/X/"], "a\nb\n"), c(["N;s/a.b/X/"], "a\nb\n"), c(["N;s/a\\nb/X/"], "a\nb\n"),
  c(["N;s/^/>/Mg"], "a\nb\n"), c(["N;s/$/</Mg"], "a\nb\n"), c(["N;s/a$//"], "a\nb\n"), c(["N;s/./X/g"], "a\nb\n"),
  c(["N;s/[^a]/X/g"], "a\nb\n"), c(["s/o/0/gp", "-n", "f"]), c(["-n", "s/o/0/p", "f"]), c(["s/o/0/w out", "f"], check=["out"]),
  c(["s/e/E/3g"], "eeeee\n"), c(["s/\\(a\\)\\(b\\)\\(c\\)\\(d\\)\\(e\\)\\(f\\)\\(g\\)\\(h\\)\\(i\\)/\\9\\8\\7\\6\\5\\4\\3\\2\\1/"], "abcdefghi\n"),
  c(["s/\\./,/g"], "1.2.3\n"), c(["s/[.]/,/"], "1.2\n"), c(["s/a\\{2,3\\}/X/g"], "a aa aaa aaaa\n"), c(["-E", "s/a{2,}/X/"], "aaaa\n"),
  c(["s/\\<./X/g"], "ab cd\n"), c(["s/.\\>/X/g"], "ab cd\n"), c(["s/\\Bb/X/g"], "abb b\n"), c(["s/^[ \\t]*//", "lines"]),
  c(["s/[[:space:]]*$//"], "trail   \n"), c(["s/\\s\\+/ /g"], "a  b\t\tc\n"), c(["s/\\S\\+/W/g"], "ab  cd\n"),
  c(["-E", "s/(^|,)b(,|$)/\\1X\\2/"], "a,b,c\n"), c(["s/é/e/g"], "café é\n"), c(["s/./X/g"], "é€\n"), c(["y/é/e/"], "é\n"),
  c(["s/a/b/;s/b/c/"], "a\n"), c(["-E", "s/\\(a\\)/x/"], "(a)\n"), c(["s/+/P/"], "a+b\n"), c(["-E", "s/a+/P/"], "aaa\n"),
  c(["s/*/S/"], "a*b\n"), c(["s/^*/S/"], "*b\n"), c(["s/a**/S/"], "aab\n"), c(["s/[]]/B/"], "a]b\n"), c(["s/[^]]*/X/"], "ab]c\n"),
  c(["s/\\$/D/"], "a$b\n"), c(["s/a$b/X/"], "a$b\n"), c(["s/a^b/X/"], "a^b\n"), c(["-E", "s/a\\^b/X/"], "a^b\n"),
  c(["s/&/and/"], "a&b\n"), c(["s/x/a\\\\b/"], "x\n"), c(["s/x/[\\&]/"], "x\n"), c(["s&x&[\\&]&"], "x\n"),
  c(["s/\\(foo\\|bar\\)/<&>/g"], "foo bar baz\n"), c(["s/ab*/X/g"], "abbb ab a\n"), c(["s/$/ END/", "nonl"]),
)
g("addresses",
  c(["-n", "2p", "f"]), c(["-n", "$p", "f"]), c(["-n", "2,4p", "f"]), c(["-n", "/two/,/four/p", "f"]), c(["-n", "/t/p", "f"]),
  c(["1~2d", "nums"]), c(["0~3d", "nums"]), c(["2,4d", "nums"]), c(["2,+2d", "nums"]), c(["2,~4d", "nums"]), c(["5,~4d", "nums"]),
  c(["0,/1/d", "nums"]), c(["1,/1/d", "nums"]), c(["8,3d", "nums"]), c(["/3/,1d", "nums"]), c(["2!d", "nums"]), c(["2,9!d", "nums"]),
  c(["$!d", "nums"]), c(["/5/,$d", "nums"]), c(["2,/./d", "nums"]), c(["-n", "/2/,/[0-9]/p", "nums"]), c(["-n", "\\%5%p", "nums"]),
  c(["-n", "\\,1,p", "nums"]), c(["-n", "/ONE/Ip", "f"]), c(["-n", "/^t/,+1p", "f"]), c(["-n", "/o/,3p", "f"]), c(["1~3!d", "nums"]),
  c(["-n", "$=", "f"]), c(["-n", "$=", "f", "g"]), c(["-s", "-n", "$=", "f", "g"]), c(["-s", "1d", "f", "g"]), c(["-n", "/e/!p", "f"]),
  c(["-n", "2,4{/r/p}", "f"]), c(["-n", "/t/{/h/p}", "f"]), c(["0,/one/s//ONE/", "f"]), c(["1,/one/s/o/0/", "f"]),
  c(["-n", "/two/,/NOMATCH/p", "f"]), c(["-n", "4,2p", "f"]), c(["-n", "$!{$!p}", "f"]), c(["-n", "3,$p", "f"]),
  c(["-n", "2,3!p", "f"]), c(["-n", "/one/,/t/p", "f"]), c(["-n", "1 , 2 p", "f"]), c(["-n", "2 ! p", "f"]),
  c(["-n", "/x/I,/Y/Mp"], "X\na\ny\nb\n"), c(["-n", "2{p;p}", "f"]), c(["-n", "1~0p", "f"]), c(["-n", "0~0p", "f"]),
)
g("commands",
  c(["p", "g"]), c(["-n", "p", "g"]), c(["d", "g"]), c(["=", "g"]), c(["-n", "=", "g"]), c(["l"], "a\tb\\c\u0001\n"), c(["-n", "l"], "café\n"),
  c(["-n", "l 5"], "abcdefghijkl\n"), c(["-n", "l"], "x" * 150 + "\n"), c(["-n", "l 1"], "abc\n"), c(["-n", "l 0"], "x" * 100 + "\n"),
  c(["-l", "8", "-n", "l"], "abcdefghijkl\n"), c(["-n", "N;l"], "a\nb\n"), c(["F", "g"]), c(["F"], "a\n"), c(["z;s/^$/E/", "g"]),
  c(["2q", "f"]), c(["2q5", "f"]), c(["2Q", "f"]), c(["2Q3", "f"]), c(["q"], ""), c(["n;d", "f"]), c(["$!n;s/^/x/", "f"]), c(["-n", "n;p", "f"]),
  c(["N", "f"]), c(["N;N;s/\\n/,/g", "f"]), c(["$!N;s/\\n/-/", "f"]), c(["D", "f"]), c(["N;P;D", "f"]), c(["$!N;P;D", "f"]),
  c(["1d;G", "g"]), c(["x", "g"]), c(["H;$!d;x", "g"]), c(["$!{h;d};x;G", "g"]), c(["1!G;h;$!d", "f"]), c(["-n", "1!G;h;$p", "f"]),
  c(["G", "g"]), c(["g", "g"]), c(["h;s/a/X/;x", "g"]), c(["y/abc/xyz/"], "aabbcc\n"), c(["y/a\\/b/x|y/"], "a/b\n"),
  c(["y/ab/\\n\\t/"], "ab\n"), c(["N;y/\\n/ /"], "a\nb\n"), c(["y,a\\,b,x|y,"], "a,b\n"), c(["r r.txt", "g"]), c(["1r r.txt", "g"]),
  c(["$r r.txt", "g"]), c(["r nonexist", "g"]), c(["R r.txt", "f"]), c(["1R r.txt", "g"]), c(["w out", "g"], check=["out"]),
  c(["-n", "/a/w out", "g"], check=["out"]), c(["W out", "-n"], "a\nb\n", check=["out"]), c(["N;W out", "-n"], "a\nb\n", check=["out"]),
  c(["w /dev/stdout", "g"]), c(["2{p;q}", "f"]), c(["-n", "/two/{n;p}", "f"]), c(["$!N;/two\\nthree/p;D", "-n", "f"]),
  c(["=", "-s", "f", "g"]), c(["-n", "$!{n;n;p}", "f"]), c(["s/e/E/;ta;s/$/ no/;b;:a;s/$/ yes/", "f"]),
  c(["s/e/E/;Ta;s/$/ yes/;b;:a;s/$/ no/", "f"]), c([":a;s/^.\\{1,4\\}$/ &/;ta"], "ab\n"), c([":a;N;$!ba;s/\\n/,/g", "f"]),
  c(["-n", ":a;N;$!ba;p"], "ab\n"), c(["b end;s/o/0/;:end", "f"]), c(["bx;s/o/0/;:x", "f"]), c(["/two/b;s/o/0/", "f"]),
  c(["s/o/0/;t;s/e/E/", "f"]), c([": a;s/b/c/;ta"], "ab\n"), c(["ba ; s/a/x/; :a"], "abc\n"), c(["{p}", "g"]), c(["{p};p", "g"]),
  c(["-n", "/a/{p;p}", "g"]), c(["-n", "{{{p}}}", "g"]), c(["1{s/a/A/;s/l/L/}", "g"]), c(["x;x", "g"]), c(["#comment", "g"]),
  c(["p # comment", "g"]), c(["p;# c\np", "g"]), c(["-n", "#n", "g"]), c(["#n\np", "g"]), c(["-f", "quiet.sed", "f"]),
  c(["s/a/b/ ; p", "g"]), c(["p;;p", "g"]), c(["1!G;h;$!d"], "a\nb\nc\n"), c(["v"], "a\n"), c(["v 4.2"], "a\n"),
  c(["$!N;$!D", "f"]), c(["N;N;D", "f"]), c(["2{h;d};4{G}", "f"]), c(["/one/{x;p;x}", "f"]), c(["-z", "s/\\n/,/g", "g"]),
)
g("text_commands",
  c(["a foo", "g"]), c(["a   foo  ", "g"]), c(["a\\foo", "g"]), c(["a\\  foo", "g"]), c(["a\\tfoo", "g"]), c(["a foo\\tbar", "g"]),
  c(["a foo\\nbar", "g"]), c(["a foo\\\\bar", "g"]), c(["a\\\nfoo\\\nbar", "g"]), c(["1a\\\n  foo", "g"]), c(["a foo;p", "g"]),
  c(["$a END", "g"]), c(["1i\\\nX", "g"]), c(["1c\\\nC", "g"]), c(["1,2c CH", "f"]), c(["2,3!c CH", "f"]), c(["/t/c T", "f"]),
  c(["a\\", "g"]), c(["i\\", "g"]), c(["c\\", "g"]), c(["a\\\\", "g"]), c(["1{a x\n}", "g"]), c(["a x", "-s", "g", "f"]),
  c(["a  \\  x", "g"]), c(["a x\\cy", "g"]), c(["a x\\o101", "g"]), c(["a x\\d65", "g"]), c(["a x\\x41y", "g"]), c(["a x\\Ay", "g"]),
  c(["a x\\&y", "g"]), c(["a foo \\", "g"]), c(["-e", "a\\", "-e", "foo", "g"]), c(["i X", "g"]), c(["i\\  X", "g"]),
  c(["-n", "a X", "g"]), c(["-n", "i X", "g"]), c(["-n", "c X", "g"]), c(["1a X\n2i Y", "g"]), c(["a X", "nonl"]), c(["i X", "nonl"]),
  c(["$c Z", "nonl"]), c(["a A\na B", "g"]), c(["1{a A\n};1a B", "g"]), c(["a X\nN", "f"]), c(["2q;a X", "f"]), c(["2Q;a X", "f"]),
  c(["=;a X;=", "g"]), c(["$!d;a X", "nonl"]), c(["c X", "empty"]), c(["1~2a --", "f"]),
)
g("newlines_and_options",
  c(["p", "nonl"]), c(["$!d", "nonl"]), c(["G", "nonl"]), c(["=", "nonl"]), c(["l", "nonl"]), c(["N", "nonl"]), c(["x", "nonl"]),
  c(["H;x", "nonl"]), c(["y/x/z/", "nonl"]), c(["w /dev/stdout", "nonl"]), c(["q", "nonl"]), c(["1h;2G", "nonl"]), c(["1h;2{x;G}", "nonl"]),
  c(["2{h;s/.*/z/;G}", "nonl"]), c(["$!d;h;G", "nonl"]), c(["g", "nonl"]), c(["z", "nonl"]), c(["s/y/Y\\n/", "nonl"]), c(["-n", "P", "nonl"]),
  c(["p", "nonl", "g"]), c(["-s", "p", "nonl", "g"]), c(["-n", "$p", "nonl", "g"]), c(["p", "empty", "g"]), c(["-n", "$p", "g", "empty"]),
  c(["-z", "s/^/x/"], "a\u0000b\u0000"), c(["-z", "N;s/\\x00/+/"], "a\u0000b\u0000"), c(["-z", "$!d"], "a\u0000b"), c(["-z", "="], "a\u0000b\u0000"), c(["-z", "l"], "a\u0000"), c(["-z", "F"], "a\u0000"), c(["-z", "G"], "a\u0000"),
  c(["-E", "s/(a|b)+/X/", "g"]), c(["-r", "s/(l)+/X/", "g"]), c(["--regexp-extended", "s/p{1}/P/", "g"]), c(["-E", "s/a{2}/X/"], "aaa\n"),
  c(["-n", "--expression=p", "g"]), c(["--quiet", "-e", "1p", "g"]), c(["--silent", "1p", "g"]), c(["-ne", "p", "g"]),
  c(["-e", "s/a/A/", "-e", "s/l/L/", "g"]), c(["-e", "1{", "-e", "p", "-e", "}", "g"]), c(["-f", "script.sed", "f"]), c(["-f", "-", "g"], "s/a/A/g\n"),
  c(["--file=script.sed", "f"]), c(["-e", "p", "-f", "script.sed", "g"]), c(["-s", "$d", "f", "g"]), c(["--separate", "1d", "f", "g"]),
  c(["-n", "/one/p", "-", "g"], "one\n"), c(["p", "missing", "g"]), c(["-n", "$p", "g", "missing"]), c(["--posix", "p", "g"]), c(["-u", "p", "g"]),
  c(["p", "--", "g"]), c(["--", "p", "g"]), c(["-n", "--line-length=3", "l"], "abcdef\n"), c(["-E", "-r", "p", "g"]),
  c(["s/a/b/", "dir"]), c(["p", "empty"]), c(["-s", "F", "f", "g"]), c(["-i", "s/a/A/", "g"], check=["g"]), c(["-i.bak", "s/a/A/", "g"], check=["g", "g.bak"]),
  c(["-i", "-e", "1d", "f", "g"], check=["f", "g"]), c(["-i", "$a END", "f", "g"], check=["f", "g"]), c(["--in-place=.orig", "2q", "f"], check=["f", "f.orig"]),
  c(["-n", "-i", "2p", "f"], check=["f"]), c(["-i", "s/x/X/w /dev/stdout", "nonl"], check=["nonl"]), c(["-i", "p", "missing", "g"], check=["g"]),
  c(["-i", "p", "dir"]), c(["-i", "p"]), c(["-i", "F;=", "g"], check=["g"]), c(["-ibak_*", "s/^/>/", "g"], check=["g", "bak_g"]),
  c(["-s", "-i", "1d", "g"], check=["g"]), c(["-ni", "p", "g"], check=["g", "gp"]), c(["-i", "-n", "p", "dir/x"], check=["dir/x"]),
)
g("errors",
  c(["s/a/b"]), c(["s/a"]), c(["k"]), c(["{p"]), c(["p}"]), c(["}"]), c(["p;}"]), c(["y/ab/c/"]), c(["y/a/b"]), c(["s/a/b/q"]),
  c(["b foo"]), c([":"]), c(["3,p"]), c(["0p"]), c(["0,5p"]), c(["a"]), c(["r"]), c(["w"]), c(["pq"]), c(["/abc"]), c(["\\%abc"]),
  c(["s/\\(a/b/"]), c(["s/a/\\1/"]), c(["s/a/b/gg"]), c(["s/a/b/pp"]), c(["s/a/b/0"]), c(["s/a/b/2/3"]), c(["=x"]), c(["q 5 x"]),
  c(["5!!p"]), c(["1,2,3p"]), c(["1#x"]), c(["l 5x"]), c(["s/\\(a/b/;p"]), c(["s/a/\\1/;p"]), c(["-e", "p", "-e", "s/a"]),
  c(["-f", "bad.sed"]), c(["-e", "p", "-f", "bad.sed"]), c(["p\ns/a"]), c(["-k"]), c([]), c(["--foo", "p"]), c(["-n"]), c(["-e"]),
  c(["-f", "nonexist"]), c(["s/a/b/w"]), c(["y/a/"]), c(["1,2q"]), c(["1~2,3="]), c(["s/[a/b/"]), c(["s/a\\{1/b/"]), c(["-E", "s/(a/b/"]),
  c(["s/a/b/ g"]), c(["y/abc/de/"]), c(["1,2:a"]), c([": "]), c(["2,"]), c(["/a/,"]), c(["s/a/b/;s/c"]), c(["{;}"]), c(["!p"]),
  c(["-l", "x", "l"]), c(["--expression"]), c(["p", "-x"]), c(["-s"]), c(["--version"]), c(["a\\"], ""), c(["-n", "/[[:foo:]]/p"]),
  c(["s/a/b/", "-n", "--help"], ""),
)

g("idioms_and_queues",
  c(["1a X\nN", "f"]), c(["a X\n$!N;P;D", "f"]), c(["$!N;a X", "f"]), c(["i X\nn", "f"]), c(["1r r.txt\nN", "f"]), c(["R r.txt", "nums"]),
  c(["w out\ns/o/0/w out", "f"], check=["out"]), c(["2!c X", "f"]), c(["/two/,$c X", "f"]), c(["$c X", "f"]), c(["0,/one/d", "f"]),
  c(["1,/one/d", "f"]), c(["N;s/^t/T/M", "f"]), c(["N;N;s/e$/E/Mg", "f"]), c(["y/абв/abc/"], "бав\n"), c(["s/\\w\\+/\\U&x/g"], "ab cd\n"),
  c(["s/a/\\\n/g"], "banana\n"), c(["-n", "$!{n;p}", "f"]), c(["1{a X\nq}", "f"]), c(["1{a X\nQ}", "f"]), c(["-s", "=", "f", "g"]),
  c(["/TWO/I{s//x/}", "f"]), c(["s//x/", "f"]), c(["/^$/N;/\\n$/D"], "a\n\n\n\nb\n\nc\n"), c(["/\\n/!G;s/\\(.\\)\\(.*\\n\\)/&\\2\\1/;//D;s/.//"], "abc\nhello\n"),
  c([":a;/\\\\$/N;s/\\\\\\n//;ta"], "a \\\nb \\\nc\nd\n"), c(["-n", "/two/,/four/{//!p}", "f"]), c(["$!s/$/,/", "f"]), c(["s/[^,]*,//2", "csv"]),
  c(["-n", "h;n;G;p", "f"]), c(["/^#/d;/^$/d"], "#c\n\nx\n# d\ny\n"), c(["s/^[[:space:]]*//;s/[[:space:]]*$//"], "  a b  \n\tc\t\n"),
  c(["-E", "s/([^ ]+) ([^ ]+)/\\2 \\1/", "lines"]), c(["-n", "2{p;q}", "f"]), c(["1~3{N;N;s/\\n/ /g}", "nums"]),
  c([":a;s/\\B[0-9]\\{3\\}\\>/,&/;ta"], "1234567 12 1234\n"), c(["s/\\x27/\"/g"], "it's 'q'\n"), c(["s/'//g"], "it's\n"),
  c(["-n", "/start/,/end/{/start/n;/end/!p}"], "x\nstart\n1\n2\nend\ny\n"),
  c(["-i", "2q", "f"], check=["f"]), c(["-i", "w out", "g"], check=["g", "out"]), c(["-n", "-i", "$!p", "f", "g"], check=["f", "g"]),
  c(["-s", "-n", "F;$=", "f", "g"]), c(["2{x;p;x}", "f"]), c(["-n", "x;$p", "f"]), c(["N;N;N;N;N;s/\\n/+/g", "f"]), c(["$!N;N;s/\\n/+/g", "f"]),
  c(["s/\\(a\\)\\|b/[\\1]/g"], "ab\n"), c(["-E", "s/(a)|b/[\\1]/g"], "ab\n"), c(["s/x*$/!/"], "axx\n"), c(["s/^x*/!/g"], "xxa\n"),
  c(["s/\\(.\\)/\\1\\1/3g"], "abcde\n"), c(["-E", "s/(.)(.)/\\2\\1/g"], "abcde\n"), c(["s/a/A/2;s/a/B/2"], "aaaa\n"),
  c(["s/[aeiou]/\\u&/g"], "education\n"), c(["s/.*/\\L&/;s/^./\\u&/"], "hELLO wORLD\n"), c(["s/\\(.*\\)/\\U\\1\\E!/"], "shout\n"),
  c(["s/x/\\l\\UABC/"], "x\n"), c(["s/x/\\u\\Labc/"], "x\n"), c(["s/\\(a\\)\\(b\\)/\\u\\1\\2/"], "ab\n"),
)

g("longest_match",
  c(["-E", "s/(b|bc|bcd)+[ab]?|(b|bc|bcd)$/[&]/g"], "bcd bc b\n"), c(["-E", "s/(a|ab){2}|x/[&]/g"], "aab abc\n"),
  c(["-E", "s/\\<a{,2}(ab|c)*(a|ab)/[&]/g"], "abcabc\n"), c(["s/\\(a\\|ab\\)\\(c\\|bcd\\)/[\\1,\\2]/"], "abcd\n"),
  c(["-E", "s/x|xy|xyz/[&]/g"], "xyz xy x\n"), c(["-E", "s/(x|xy)z?$/[&]/"], "axyz\n"), c(["-E", "s/[0-9]+|[0-9]+\\.[0-9]+/N/g"], "1.5 and 22\n"),
  c(["-E", "s/(foo|foobar)(baz)?/[\\1|\\2]/"], "foobarbaz\n"), c(["-E", "s/a|ab|abc/X/g"], "abcab\n"), c(["-E", "s/(a|ab)(c|bcd)(d*)/[\\1,\\2,\\3]/"], "abcd\n"),
)

def main():
    root = tempfile.mkdtemp(prefix='sed-record-')
    out = []
    out.append("// Generated by recording GNU sed 4.9 (LC_ALL=C.UTF-8) on the fixture below.\n")
    out.append("pub const FILES: &[(&str, &str)] = &[\n")
    for p, d in FILES:
        out.append(f"    ({rust_str(p)}, {rust_str(d)}),\n")
    out.append("];\n\n")
    total = 0
    for group, cases in GROUPS.items():
        out.append(f"pub const {group.upper()}: &[Case] = &[\n")
        for args, stdin, check in cases:
            setup(root, FILES)
            so, se, rc = run(root, ["sed"] + args, stdin)
            if args == ["--version"]:
                so = "sed (GNU sed) 4.9\n"
            files = []
            for path in check:
                full = os.path.join(root, path)
                data = open(full, 'rb').read().decode('utf-8', 'replace') if os.path.exists(full) else None
                files.append((path, data))
            a = ", ".join(rust_str(x) for x in args)
            fs = ", ".join(f"({rust_str(p)}, {('Some(' + rust_str(d) + ')') if d is not None else 'None'})" for p, d in files)
            out.append(f"    case(&[{a}], {rust_str(stdin)}, {rust_str(so)}, {rust_str(se)}, {rc}, &[{fs}]),\n")
            total += 1
        out.append("];\n\n")
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'gnu_cases.rs')
    text = open(path).read()
    head = text[:text.index('// Generated by')]
    open(path, 'w').write(head + "".join(out))
    shutil.rmtree(root, ignore_errors=True)
    sys.stderr.write(f"{total} cases recorded; now run cargo fmt\n")

main()
