//! Where each target starts: a few valid programs, and the tokens mutations insert.

/// The seed inputs (never empty) and the grammar tokens of the target called `name`.
pub fn for_target(name: &str) -> (Vec<Vec<u8>>, &'static [&'static str]) {
    let (seeds, tokens): (&[&str], &[&str]) = match name {
        "shell" => (SHELL, SHELL_TOKENS),
        "arith" => (ARITH, ARITH_TOKENS),
        "awk" => (AWK, AWK_TOKENS),
        "sed" => (SED, SED_TOKENS),
        "bc" => (BC, BC_TOKENS),
        "jq" => (JQ, JQ_TOKENS),
        "jq-json" => (JSON, JSON_TOKENS),
        "protocol" => return (frames(), JSON_TOKENS),
        _ => (
            &["\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11"],
            &[],
        ),
    };
    (
        seeds.iter().map(|s| s.as_bytes().to_vec()).collect(),
        tokens,
    )
}

/// Host→guest frames: a little-endian header length, a header (binary for a job and a
/// resume: see `Job` and `Resume`; JSON for the configuration), a blob.
fn frames() -> Vec<Vec<u8>> {
    let le = |words: &[u32]| {
        words
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect::<Vec<u8>>()
    };
    // A shell job with stdin: language 1, flags 1, a 1000 ms limit, code 0+7, stdin 7+3.
    let job = [
        &[1, 1, 0, 0][..],
        &1000u64.to_le_bytes(),
        &le(&[0, 7, 7, 3]),
    ]
    .concat();
    // Two results (one ok: 0+2; one error: kind 2+6, message 8+2) and a clock reading.
    let resume = [
        &[2, 0, 0, 0][..],
        &le(&[2]),
        &5u64.to_le_bytes(),
        &1u64.to_le_bytes(),
        &[0, 0, 0, 0],
        &le(&[0, 2, 0, 0]),
        &2u64.to_le_bytes(),
        &[1, 0, 0, 0],
        &le(&[2, 6, 8, 2]),
    ]
    .concat();
    let config = br#"{"tools":[{"name":"a.b","description":"d","parameters":{}}],"limits":{"memory":1048576,"max_output":100,"vfs":{"max_bytes":1,"max_files":2,"max_file_size":3}},"files":{"/tools/x":"y"}}"#;
    let headers: [(&[u8], &str); 3] = [(&job, "echo hiabc"), (&resume, "{}deniedno"), (config, "")];
    headers
        .iter()
        .map(|(header, blob)| {
            let mut frame = (header.len() as u32).to_le_bytes().to_vec();
            frame.extend_from_slice(header);
            frame.extend_from_slice(blob.as_bytes());
            frame
        })
        .collect()
}

const SHELL: &[&str] = &[
    "for f in *.txt; do wc -l \"$f\" | awk '{print $1}'; done > out 2>&1",
    "if [[ -n ${x:-default} && $x =~ ^a.*$ ]]; then echo \"${x//a/b}\"; elif ((y++ > 2)); then :; else exit 3; fi",
    "f() { local a=$1; case $a in (a|b) echo ${#a};; *) return 1;; esac; }; f \"$(echo $((1 + 2 * 3)))\"",
    "cat <<EOF | sed 's/x/y/' &\nhello $USER `date`\nEOF\nwait",
    "arr=(1 2 3); echo ${arr[@]:1} ${!arr[*]} $'a\\tb' <(ls) >(cat) {1..3} ~/x; while read -r l; do echo; done < f",
];
const SHELL_TOKENS: &[&str] = &[
    "$(",
    "`",
    "${",
    "}",
    "((",
    "))",
    "[[",
    "]]",
    "<<",
    "<<-",
    "<<<",
    ">&",
    "&>",
    "|&",
    "&&",
    "||",
    ";;",
    ";&",
    "'",
    "\"",
    "\\",
    "\n",
    "case ",
    " in ",
    "esac",
    "do ",
    "done",
    "if ",
    "then ",
    "fi",
    "function ",
    "{ ",
    "(",
    ")",
    "$'",
    "${#",
    "${!",
    ":-",
    "//",
    "[@]",
    "=(",
    "select ",
    "coproc ",
    "EOF\n",
    "<(",
    ">(",
    "$((",
    "{a,b}",
    "\x00",
    "é",
];

const ARITH: &[&str] = &[
    "1 + 2 * (3 - x) / y % 5",
    "a = b ? c : d, e <<= 2, ++f--",
    "0x1f ** 2 >= 8#17 && !~z",
];
const ARITH_TOKENS: &[&str] = &[
    "(",
    ")",
    "?",
    ":",
    ",",
    "**",
    "<<=",
    ">>=",
    "++",
    "--",
    "!",
    "~",
    "64#",
    "0x",
    "[",
    "]",
    "$",
    "9223372036854775807",
    "-9223372036854775808",
];

const AWK: &[&str] = &[
    "BEGIN { FS = \":\"; OFS = \"\\t\" } /^a/ && $3 > 10 { n[$1]++; print $1, $NF | \"sort\" } END { for (k in n) printf \"%s %d\\n\", k, n[k] }",
    "function f(a, b,   c) { c = a ~ /x+/ ? substr(b, 2) : length(b); return c } { $0 = f($1, $2); getline line < \"file\"; next }",
    "NR == 1, /end/ { gsub(/[[:alpha:]]+/, \"&&\"); if (!(x in arr)) delete arr; else while (i++ < 3) continue } ",
];
const AWK_TOKENS: &[&str] = &[
    "BEGIN",
    "END",
    "{",
    "}",
    "(",
    ")",
    "/",
    "/[",
    "]/",
    "$",
    "\"",
    "\\",
    "\n",
    ";",
    "getline",
    "<",
    ">>",
    "|",
    "function ",
    "in ",
    "delete ",
    "printf ",
    "print ",
    "**=",
    "^",
    "?",
    ":",
    ",",
    "sub(",
    "split(",
    "@",
    "-",
    "++",
    "!~",
    "&&",
];

const SED: &[&str] = &[
    "s/a\\(b*\\)c/\\1x/g;2,/re/d;$!N;P;D",
    "/start/,/end/{s/x/y/2w out\ny;abc;xyz;}\n:loop\nh;G;t loop\na\\\ntext\ni hello\nc\\bye",
    "1~3s|[[:digit:]]\\{2,\\}|&-|I;0,/x/!b end;=;l 20;q5;:end",
];
const SED_TOKENS: &[&str] = &[
    "s/", "/", "\\", "\\(", "\\)", "{", "}", ";", "\n", "!", ",", "$", "~", "a\\", "y/", "b", "t",
    ":", "[", "]", "[[:", ":]]", "\\{", "\\}", "*", "&", "\\1", "w ", "r ", "e", "q", "z", "F",
    "+", "(", ")", "|", "?",
];

const BC: &[&str] = &[
    "scale=20; define f(n) { auto i; if (n <= 1) return (1); for (i = 0; i < n; i++) { x += i ^ 2 }; return (n * f(n - 1)) }\nf(10)",
    "a[3] = 1.5; obase = 16; ibase = A; while (a[3] < 100) a[3] *= 2; print a[3], \"\\n\"; sqrt(2); length(1.23); /* c */ quit",
    "define void g(*a[]) { a[0] = -0.001 % 7; break; halt }\nlast; .5 + ++b-- ; e(1); limits; \"str",
];
const BC_TOKENS: &[&str] = &[
    "define ",
    "auto ",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    "\"",
    "/*",
    "*/",
    "\\\n",
    ";",
    "\n",
    "^",
    "++",
    "--",
    "=",
    "if ",
    "else ",
    "while ",
    "for ",
    "return",
    "FFFFFFFFFFFFFFFF",
    ".",
    "-",
    "#",
];

const JQ: &[&str] = &[
    ".[] | select(.a > 1) | {name: .b, tags: [.c[]?]} | @base64",
    "def f(x): reduce .[] as $i (0; . + $i * x); [limit(3; repeat(1))] as [$a, $b] | f($a) // empty",
    "try (.a.b[2:4] |= tostring) catch \"\\(.)x\" | label $out | foreach .[] as $x (0; .+1; if . > 2 then ., break $out else . end)",
    "path(..) | getpath([\"a\",0]) | ltrimstr(\"x\") | test(\"^a+$\"; \"x\") | $__loc__ | input_filename | @sh \"echo \\(.)\"",
];
const JQ_TOKENS: &[&str] = &[
    ".",
    "[",
    "]",
    "{",
    "}",
    "(",
    ")",
    "|",
    ",",
    "//",
    "?",
    "as $x",
    "def ",
    ":",
    ";",
    "\"",
    "\\(",
    "reduce ",
    "foreach ",
    "if ",
    "then ",
    "else ",
    "end",
    "try ",
    "catch ",
    "label ",
    "import ",
    "include ",
    "$__prog__",
    "@",
    "..",
    "?//",
    "1e1000",
    "-",
];

const JSON: &[&str] = &[
    "{\"a\": [1, 2.5e3, -0, true, null, \"x\\u00e9\\n\"]} [] \"s\" 12",
    "[[[[{}]]]] 1e308 -1.7976931348623157e309 {\"\":{\"\":[]}}",
];
const JSON_TOKENS: &[&str] = &[
    "[", "]", "{", "}", ":", ",", "\"", "\\u", "\\ud800", "1e999", "-", "NaN", "true", "null",
    "0.", "\u{feff}",
];
