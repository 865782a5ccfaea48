//! Parser tests: each case is a script and its tree in the compact form of [`sexp`], or the
//! error message bash would print.

use super::super::ast::*;
use super::{parse, sexp, ParseError};

fn render(src: &str) -> String {
    match parse(src) {
        Ok(program) => sexp::list(&program),
        Err(e) => format!("error: {e}"),
    }
}

macro_rules! parses {
    ($($name:ident: $src:expr => $out:expr;)*) => {$(
        #[test]
        fn $name() {
            assert_eq!(render($src), $out, "source: {:?}", $src);
        }
    )*};
}

parses! {
    // Simple commands and assignments.
    empty: "" => "";
    blank_lines_and_comments: "\n  # nothing\n\n" => "";
    simple: "echo a b" => "[echo a b]";
    assignment_prefix: "X=5 cmd" => "[%X=5 cmd]";
    assignment_alone: "X=5" => "[%X=5]";
    several_assignments: "a=1 b=2 cmd x=3" => "[%a=1 %b=2 cmd x=3]";
    assignment_empty_value: "x= y" => "[%x= y]";
    assignment_append: "x+=more" => "[%x+=more]";
    assignment_index: "a[i+1]=v" => "[%a[i+1]=v]";
    assignment_index_expansion: "a[$i]=v" => "[%a[${i}]=v]";
    assignment_quoted_value: "x=\"a b\"" => "[%x=\"a b\"]";
    assignment_quoted_name_is_word: "\"x\"=1" => "[\"x\"=1]";
    assignment_after_word_is_word: "echo x=1" => "[echo x=1]";
    assignment_command_subst: "x=$(date)" => "[%x=$([date])]";
    assignment_arith: "x=$((1+2))" => "[%x=$((1+2))]";
    assignment_tilde: "PATH=~/bin:~/x:a~" => "[%PATH=<~>/bin:<~>/x:a~]";
    assignment_no_brace_expansion: "x={a,b}" => "[%x={a,b}]";
    array_assignment: "a=(1 2 \"three\")" => "[%a=(1 2 \"three\")]";
    array_append: "a+=(4)" => "[%a+=(4)]";
    array_keys: "m=([k]=v [x y]=z)" => "[%m=([k]=v [x y]=z)]";
    array_multiline: "a=(\n  1 # one\n  2\n)" => "[%a=(1 2)]";
    array_empty: "a=()" => "[%a=()]";
    array_brace_elements: "a=({1..3} x)" => "[%a=(<{1..3..1}> x)]";
    array_then_command: "a=(1) cmd" => "[%a=(1) cmd]";
    array_as_argument_is_error: "echo a=(1)" => "error: syntax error near unexpected token `('";
    declare_array: "declare -a a=(1 2) b=x c" => "[declare -a %a=(1 2) %b=x c]";
    local_assignment: "local x=$y" => "[local %x=${y}]";
    export_tilde: "export P=~/bin" => "[export %P=<~>/bin]";
    readonly_and_typeset: "readonly r=1; typeset t=2" => "[readonly %r=1]; [typeset %t=2]";
    declaration_quoted_name_not_special: "'declare' a=1" => "['declare' a=1]";
    argument_assignment_tilde: "echo a=~/x:~/y" => "[echo a=<~>/x:<~>/y]";
    keyword_as_argument: "echo if then fi" => "[echo if then fi]";
    keyword_after_assignment: "x=1 if" => "[%x=1 if]";

    // Pipelines and lists.
    pipeline: "a | b | c" => "[a] | [b] | [c]";
    pipeline_stderr: "a |& b" => "[a] 2>&1 | [b]";
    pipeline_stderr_after_redirects: "a >f |& b" => "[a] >f 2>&1 | [b]";
    pipeline_newline_after_pipe: "a |\n b" => "[a] | [b]";
    negation: "! a | b" => "! [a] | [b]";
    double_negation: "! ! a" => "[a]";
    negation_alone: "!; !\n! &" => "! []; ! []; ! [] &";
    error_negation_then_and: "! && a" => "error: syntax error near unexpected token `&&'";
    error_negation_after_pipe: "a | ! b" => "error: syntax error near unexpected token `!'";
    negation_of_subshell_without_blank: "!(a) && b" => "! (sub [a]) && [b]";
    extglob_after_command_name: "a !(b)" => "[a !(b)]";
    time_keyword: "time -p a | b; ! time c" => "time [a] | [b]; ! time [c]";
    time_keyword_group: "time { a; } 2>e" => "time (group [a]) 2>e";
    time_keyword_alone: "time; time x=1" => "time []; time [%x=1]";
    time_quoted_is_a_command: "'time' a" => "['time' a]";
    and_or: "a && b || c" => "[a] && [b] || [c]";
    and_or_newline: "a &&\n\n b" => "[a] && [b]";
    sequence: "a; b\nc" => "[a]; [b]; [c]";
    trailing_semicolon: "a;" => "[a]";
    background: "a & b" => "[a] &; [b]";
    background_last: "a &" => "[a] &";
    comment_after_command: "echo a#b #c" => "[echo a#b]";
    comment_needs_word_start: "echo #a b\necho c" => "[echo]; [echo c]";
    line_continuation: "echo a \\\n b" => "[echo a b]";
    line_continuation_in_word: "ec\\\nho" => "[echo]";

    // Compound commands.
    subshell: "(a; b)" => "(sub [a]; [b])";
    subshell_nested: "( (a) )" => "(sub (sub [a]))";
    group: "{ a; b; }" => "(group [a]; [b])";
    group_newlines: "{\n a\n}" => "(group [a])";
    group_brace_word_is_not_group: "{a,b}" => "[<{a,b}>]";
    if_one_line: "if a; then b; fi" => "(if [a] then [b])";
    if_elif_else: "if a; then b; elif c; then d; else e; fi" => "(if [a] then [b] elif [c] then [d] else [e])";
    if_newlines: "if a\nthen\n b\nfi" => "(if [a] then [b])";
    if_list_condition: "if a && b; c; then d; fi" => "(if [a] && [b]; [c] then [d])";
    for_in: "for x in a b; do c; done" => "(for x in a b do [c])";
    for_newlines: "for x in a b\ndo\n c\ndone" => "(for x in a b do [c])";
    for_no_in: "for x; do c; done" => "(for x do [c])";
    for_no_in_newline: "for x\ndo c; done" => "(for x do [c])";
    for_empty_in: "for x in; do c; done" => "(for x in do [c])";
    for_brace_glob: "for f in *.txt {a,b}; do c; done" => "(for f in *.txt <{a,b}> do [c])";
    for_arith: "for ((i=0; i<n; i++)); do c; done" => "(for ((i=0; i<n; i++)) do [c])";
    for_arith_empty_parts: "for ((;;)); do c; done" => "(for ((;;)) do [c])";
    for_arith_newline: "for ((i=0;i<3;i++))\ndo c\ndone" => "(for ((i=0;i<3;i++)) do [c])";
    for_brace_body: "for x in a b; { c; }" => "(for x in a b do [c])";
    for_arith_brace_body: "for ((;;)) { c; }" => "(for ((;;)) do [c])";
    while_loop: "while a; do b; done" => "(while [a] do [b])";
    until_loop: "until a; do b; done" => "(until [a] do [b])";
    while_read_redirect: "while read l; do echo $l; done < file" => "(while [read l] do [echo ${l}]) <file";
    group_redirect: "{ a; b; } > out 2>&1" => "(group [a]; [b]) >out 2>&1";
    case_basic: "case $x in a|b) c;; *) d;; esac" => "(case ${x} (a|b) [c] ;; (*) [d] ;;)";
    case_paren_pattern: "case x in (a) b;; esac" => "(case x (a) [b] ;;)";
    case_terminators: "case x in a) b;& c) d;;& e) f;; esac" => "(case x (a) [b] ;& (c) [d] ;;& (e) [f] ;;)";
    case_last_without_terminator: "case x in a) b\nesac" => "(case x (a) [b] ;;)";
    case_empty_body: "case x in a) ;; esac" => "(case x (a)  ;;)";
    case_no_arms: "case x in esac" => "(case x)";
    case_multiline: "case $1 in\n  start)\n    run\n    ;;\n  *.txt | *.md) echo doc ;;\nesac" => "(case ${1} (start) [run] ;; (*.txt|*.md) [echo doc] ;;)";
    case_esac_pattern_in_parens: "case x in (esac) a;; esac" => "(case x (esac) [a] ;;)";
    case_quoted_pattern: "case x in \"*\") a;; esac" => "(case x (\"*\") [a] ;;)";
    arith_command: "((x++))" => "((x++))";
    arith_command_spaces: "(( i < 3 ))" => "(( i < 3 ))";
    arith_command_nested_parens: "(( (1+2)*3 ))" => "(( (1+2)*3 ))";
    arith_command_expansion: "(( $x + ${#a[@]} ))" => "(( ${x} + ${#a[@]} ))";
    function_parens: "f() { a; }" => "(fn f (group [a]))";
    function_space_before_parens: "f () { a; }" => "(fn f (group [a]))";
    function_keyword: "function f { a; }" => "(fn f (group [a]))";
    function_keyword_parens: "function f() { a; }" => "(fn f (group [a]))";
    function_newline_body: "f()\n{\n a\n}" => "(fn f (group [a]))";
    function_name_as_written: "$x-y() { a; }" => "(fn $x-y (group [a]))";
    cond_unary_operator_operand: "[[ -f == ]]" => "[[ RegularFile == ]]";
    function_subshell_body: "f() ( a )" => "(fn f (sub [a]))";
    function_redirect: "f() { a; } > out" => "(fn f (group [a]) >out)";
    function_dashed_name: "my-func() { :; }" => "(fn my-func (group [:]))";
    function_then_call: "f() { echo hi; }; f" => "(fn f (group [echo hi])); [f]";

    // [[ ]].
    cond_word: "[[ $a ]]" => "[[ ${a} ]]";
    cond_unary: "[[ -f $file ]]" => "[[ RegularFile ${file} ]]";
    cond_string_tests: "[[ -z $a || -n \"$b\" ]]" => "[[ (EmptyString ${a} || NonEmptyString \"${b}\") ]]";
    cond_pattern_and_file: "[[ $a == b* && -f $c ]]" => "[[ (${a} Match b* && RegularFile ${c}) ]]";
    cond_precedence: "[[ a || b && c ]]" => "[[ (a || (b && c)) ]]";
    cond_not_and_group: "[[ ! ( a || b ) && c ]]" => "[[ (!(a || b) && c) ]]";
    cond_less_greater: "[[ a < b || a > b ]]" => "[[ (a Less b || a Greater b) ]]";
    cond_numeric: "[[ $n -eq 1 && $n -ne 2 && 1 -lt 2 && 1 -le 1 && 2 -gt 1 && 2 -ge 2 ]]" => "[[ (((((${n} Eq 1 && ${n} Ne 2) && 1 Lt 2) && 1 Le 1) && 2 Gt 1) && 2 Ge 2) ]]";
    cond_files: "[[ a -nt b || a -ot b || a -ef b ]]" => "[[ ((a NewerThan b || a OlderThan b) || a SameFile b) ]]";
    cond_single_equals: "[[ $a = x ]]" => "[[ ${a} Match x ]]";
    cond_not_equal: "[[ $a != x* ]]" => "[[ ${a} NoMatch x* ]]";
    cond_regex: "[[ $x =~ ^(a|b)+[0-9]$ ]]" => "[[ ${x} Regex ^(a|b)+[0-9]$ ]]";
    cond_regex_with_space_in_parens: "[[ $x =~ (a b) ]]" => "[[ ${x} Regex (a b) ]]";
    cond_regex_quoted: "[[ $x =~ \"a.b\"\\.c ]]" => "[[ ${x} Regex \"a.b\"'.'c ]]";
    cond_regex_then_and: "[[ $x =~ ^a && -n $y ]]" => "[[ (${x} Regex ^a && NonEmptyString ${y}) ]]";
    cond_unary_op_as_string: "[[ -f == -f ]]" => "[[ -f Match -f ]]";
    cond_other_unary_tests: "[[ -d a && -e b && -s c && -r d && -w e && -x f && -L g && -h h ]]" => "[[ (((((((Directory a && Exists b) && NonEmptyFile c) && Readable d) && Writable e) && Executable f) && Symlink g) && Symlink h) ]]";
    cond_newline_after_and: "[[ a &&\n b ]]" => "[[ (a && b) ]]";
    cond_then_command: "[[ a ]] && echo y" => "[[ a ]] && [echo y]";
    cond_no_brace_expansion: "[[ $a == {x,y} ]]" => "[[ ${a} Match {x,y} ]]";
    bracket_test_is_command: "[ -f x ]" => "[[ -f x ]]";

    // Redirections.
    redirect_write: "echo > out" => "[echo] >out";
    redirect_anywhere: "> out echo a 2> err b" => "[echo a b] >out 2>err";
    redirect_only: "> file" => "[] >file";
    redirect_append: "echo >> log" => "[echo] >>log";
    redirect_read: "cat < in" => "[cat] <in";
    redirect_fd_dup: "cmd 2>&1 1>&2 <&0" => "[cmd] 2>&1 1>&2 <&0";
    redirect_close: "cmd 2>&-" => "[cmd] 2>&-";
    redirect_both: "cmd &> all &>> more" => "[cmd] &>all &>>more";
    redirect_dup_to_file: "cmd >& file" => "[cmd] >&file";
    redirect_fd_to_file: "cmd 3> f 10< g" => "[cmd] 3>f 10<g";
    redirect_read_write: "cmd 3<> f" => "[cmd] 3<>f";
    redirect_clobber: "cmd >| f" => "[cmd] >|f";
    redirect_no_space: "echo a>b" => "[echo a] >b";
    redirect_digit_word_not_fd: "echo 2x>f" => "[echo 2x] >f";
    redirect_quoted_digit_not_fd: "echo '2'>f" => "[echo '2'] >f";
    redirect_tilde_target: "cmd > ~/out" => "[cmd] ><~>/out";
    here_string: "cat <<< \"$x y\"" => "[cat] <<<\"${x} y\"";
    heredoc: "cat <<EOF\nhello $x\nEOF\n" => "[cat] <<EOF(\"hello ${x}\n\")";
    heredoc_quoted: "cat <<'EOF'\nhello $x\nEOF" => "[cat] <<'EOF'('hello $x\n')";
    heredoc_double_quoted_delimiter: "cat <<\"EOF\"\n$x\nEOF" => "[cat] <<'EOF'('$x\n')";
    heredoc_backslash_delimiter: "cat <<\\EOF\n$x\nEOF" => "[cat] <<'EOF'('$x\n')";
    heredoc_partly_quoted_delimiter: "cat <<E\"O\"F\n$x\nEOF" => "[cat] <<'EOF'('$x\n')";
    heredoc_strip_tabs: "cat <<-EOF\n\t\ta\n\tb\n\tEOF\n" => "[cat] <<-EOF(\"a\nb\n\")";
    heredoc_escapes: "cat <<EOF\n\\$x \\\\ \\a \"q\"\nEOF" => "[cat] <<EOF(\"$x \\ \\a \"q\"\n\")";
    heredoc_line_continuation: "cat <<EOF\na\\\nb\nEOF" => "[cat] <<EOF(\"ab\n\")";
    heredoc_empty: "cat <<EOF\nEOF" => "[cat] <<EOF(\"\")";
    heredoc_two_on_one_line: "cat <<A; cat <<B\na\nA\nb\nB\n" => "[cat] <<A(\"a\n\"); [cat] <<B(\"b\n\")";
    heredoc_two_on_one_command: "cat <<A <<'B'\na\nA\nb\nB" => "[cat] <<A(\"a\n\") <<'B'('b\n')";
    heredoc_then_more_commands: "cat <<EOF | wc -l\nx\nEOF\necho done" => "[cat] <<EOF(\"x\n\") | [wc -l]; [echo done]";
    heredoc_in_loop: "while read l; do\n cat <<EOF\n$l\nEOF\ndone" => "(while [read l] do [cat] <<EOF(\"${l}\n\"))";
    heredoc_on_loop: "while read l; do echo $l; done <<EOF\na\nEOF" => "(while [read l] do [echo ${l}]) <<EOF(\"a\n\")";
    heredoc_in_function: "f() {\n cat <<EOF\nx\nEOF\n}" => "(fn f (group [cat] <<EOF(\"x\n\")))";
    heredoc_in_command_subst: "x=$(cat <<EOF\nhello\nEOF\n)" => "[%x=$([cat] <<EOF(\"hello\n\"))]";
    heredoc_closed_with_paren: "x=$(cat <<EOF\nhi\nEOF)\necho" => "[%x=$([cat] <<EOF(\"hi\n\"))]; [echo]";
    heredoc_closed_with_paren_strip_tabs: "x=$(cat <<-EOF\n\thi\n\tEOF )" => "[%x=$([cat] <<-EOF(\"hi\n\"))]";
    heredoc_paren_line_outside_substitution: "cat <<EOF\nEOF)\nEOF" => "[cat] <<EOF(\"EOF)\n\")";
    heredoc_with_command_subst: "cat <<EOF\n$(echo hi) `pwd`\nEOF" => "[cat] <<EOF(\"$([echo hi]) $([pwd])\n\")";
    heredoc_delimiter_with_spaces_inside: "cat <<EOF\n EOF\nEOF " => "error: here-document at line 1 delimited by end-of-file (wanted `EOF')";
    heredoc_unterminated: "cat <<EOF\nabc" => "error: here-document at line 1 delimited by end-of-file (wanted `EOF')";
    heredoc_missing_delimiter: "cat <<\n" => "error: syntax error near unexpected token `newline'";

    // Words: quoting.
    single_quotes: "echo 'a b' 'c\"d'" => "[echo 'a b' 'c\"d']";
    double_quotes: "echo \"a $x b\"" => "[echo \"a ${x} b\"]";
    double_quote_escapes: "echo \"\\$ \\\" \\\\ \\a \\`\"" => "[echo \"$ \" \\ \\a `\"]";
    empty_quotes: "echo '' \"\"" => "[echo '' \"\"]";
    backslash_escapes: "echo a\\ b \\* \\$x" => "[echo a' 'b '*' '$'x]";
    adjacent_quotes: "echo a'b'\"c\"d" => "[echo a'b'\"c\"d]";
    ansi_c: "echo $'a\\tb\\n\\\\\\'\\\"'" => "[echo 'a\tb\n\\'\"']";
    ansi_c_codes: "echo $'\\x41\\u00e9\\101\\e\\a\\b\\f\\r\\v'" => "[echo 'Aé\u{41}\u{1b}\u{7}\u{8}\u{c}\r\u{b}']";
    ansi_c_nul_ends_the_text: "echo $'a\\0b' $'\\x00'" => "[echo 'a' '']";
    ansi_c_control: "echo $'\\cA\\q'" => "[echo '\u{1}\\q']";
    ansi_c_in_double_quotes_is_literal: "echo \"$'x'\"" => "[echo \"$'x'\"]";
    locale_string: "echo $\"hi $x\"" => "[echo \"hi ${x}\"]";
    glob_chars_unquoted: "ls *.txt a?[bc] '*'" => "[ls *.txt a?[bc] '*']";
    extglob: "ls @(a|b) !(*.txt) +([0-9]) ?(x) *(y z)" => "[ls @(a|b) !(*.txt) +([0-9]) ?(x) *(y z)]";
    extglob_quoted_inside: "ls @('a b'|$x)" => "[ls @('a b'|${x})]";
    extglob_in_cond: "[[ $x == +([0-9]) ]]" => "[[ ${x} Match +([0-9]) ]]";
    extglob_in_case: "case $x in @(a|b)) c;; esac" => "(case ${x} (@(a|b)) [c] ;;)";
    error_extglob_unclosed: "ls @(a" => "error: unexpected EOF while looking for matching `)'";
    dollar_alone: "echo $ a$ \"$\"" => "[echo $ a$ \"$\"]";
    hash_in_word: "echo a#b" => "[echo a#b]";

    // Words: parameters.
    params_simple: "echo $x ${y} $1 ${10} $0" => "[echo ${x} ${y} ${1} ${10} ${0}]";
    params_positional_single_digit: "echo $10" => "[echo ${1}0]";
    params_special: "echo $# $@ $* $? $$ $! $-" => "[echo ${#} ${@} ${*} ${?} ${$} ${!} ${-}]";
    params_special_braced: "echo ${#} ${@} ${?} ${!} ${-}" => "[echo ${#} ${@} ${?} ${!} ${-}]";
    param_name_stops: "echo $a.b $a-b ${a}c" => "[echo ${a}.b ${a}-b ${a}c]";
    param_default: "echo ${x:-w} ${x-w}" => "[echo ${x:-w} ${x-w}]";
    param_assign: "echo ${x:=w} ${x=w}" => "[echo ${x:=w} ${x=w}]";
    param_alternative: "echo ${x:+w} ${x+w}" => "[echo ${x:+w} ${x+w}]";
    param_error: "echo ${x:?msg} ${x?} ${x:?}" => "[echo ${x:?msg} ${x?} ${x:?}]";
    param_length: "echo ${#x} ${#arr[@]} ${#arr[*]} ${#1}" => "[echo ${#x} ${#arr[@]} ${#arr[*]} ${#1}]";
    param_count_with_default: "echo ${#:-0}" => "[echo ${#:-0}]";
    param_length_of_flags: "echo ${#-}" => "[echo ${#-}]";
    param_remove: "echo ${x%pat} ${x%%pat} ${x#pat} ${x##pat}" => "[echo ${x%pat} ${x%%pat} ${x#pat} ${x##pat}]";
    param_remove_glob: "echo ${f%.*} ${f##*/}" => "[echo ${f%.*} ${f##*/}]";
    param_replace: "echo ${x/a/b} ${x//a/b} ${x/#a/b} ${x/%a/b} ${x/a}" => "[echo ${x/a/b} ${x//a/b} ${x/#a/b} ${x/%a/b} ${x/a/}]";
    param_replace_slash_in_replacement: "echo ${x/a/b/c}" => "[echo ${x/a/b/c}]";
    param_substring: "echo ${x:1} ${x:1:2} ${x: -1} ${x:(-2):1}" => "[echo ${x:1} ${x:1:2} ${x: -1} ${x:(-2):1}]";
    param_substring_expansions: "echo ${x:$i:${#y}}" => "[echo ${x:${i}:${#y}}]";
    param_case: "echo ${x^} ${x^^} ${x,} ${x,,} ${x^^[ab]}" => "[echo ${x^} ${x^^} ${x,} ${x,,} ${x^^[ab]}]";
    param_transform: "echo ${x@Q}" => "[echo ${x@Q}]";
    param_indirect: "echo ${!x} ${!x:-d}" => "[echo ${!x} ${!x:-d}]";
    param_prefix_names: "echo ${!pre*} ${!pre@}" => "[echo ${!pre*} ${!pre@}]";
    param_array_keys: "echo ${!arr[@]} ${!arr[*]}" => "[echo ${!arr[@]} ${!arr[*]}]";
    param_array_elements: "echo ${arr[0]} ${arr[i+1]} ${arr[@]} ${arr[*]} ${arr[$k]}" => "[echo ${arr[0]} ${arr[i+1]} ${arr[@]} ${arr[*]} ${arr[${k}]}]";
    param_array_slice: "echo ${arr[@]:1:2}" => "[echo ${arr[@]:1:2}]";
    param_positional_slice: "echo ${@:2} ${*:1:1}" => "[echo ${@:2} ${*:1:1}]";
    param_nested_default: "echo ${x:-${y:-z}}" => "[echo ${x:-${y:-z}}]";
    param_default_with_spaces: "echo ${x:-a b;c|d}" => "[echo ${x:-a b;c|d}]";
    param_default_quoted: "echo ${x:-\"a b\"} ${x:-'c'}" => "[echo ${x:-\"a b\"} ${x:-'c'}]";
    param_default_in_double_quotes_keeps_single_quotes: "echo \"${x:-'a'}\"" => "[echo \"${x:-'a'}\"]";
    param_pattern_in_double_quotes_quotes: "echo \"${x#'a'}\"" => "[echo \"${x#'a'}\"]";
    param_default_nested_braces: "echo ${x:-{a}}" => "[echo ${x:-{a}}]";
    param_default_escaped_brace: "echo ${x:-\\}}" => "[echo ${x:-'}'}]";
    param_default_tilde: "echo ${x:-~/d}" => "[echo ${x:-<~>/d}]";
    param_default_command_subst: "echo ${x:-$(pwd)}" => "[echo ${x:-$([pwd])}]";
    param_in_double_quotes: "echo \"${x:-a}/${y#b}\"" => "[echo \"${x:-a}/${y#b}\"]";

    // Words: substitutions.
    command_subst: "echo $(ls -l)" => "[echo $([ls -l])]";
    command_subst_quoted_inside_quotes: "echo \"$(echo \"a b\")\"" => "[echo \"$([echo \"a b\"])\"]";
    command_subst_nested: "echo $(a $(b))" => "[echo $([a $([b])])]";
    command_subst_pipeline: "x=$(a | b; c)" => "[%x=$([a] | [b]; [c])]";
    command_subst_case: "echo $(case x in a) b;; esac)" => "[echo $((case x (a) [b] ;;))]";
    command_subst_multiline: "echo $(\n a\n b\n)" => "[echo $([a]; [b])]";
    command_subst_comment: "echo $(a # )\n)" => "[echo $([a])]";
    command_subst_empty: "echo $()" => "[echo $()]";
    command_subst_subshell: "echo $( (a) )" => "[echo $((sub [a]))]";
    command_subst_of_subshells_not_arith: "echo $((a) | (b))" => "[echo $((sub [a]) | (sub [b]))]";
    backquotes: "echo `ls`" => "[echo $([ls])]";
    backquotes_escapes: "echo `echo \\$x \\`pwd\\``" => "[echo $([echo ${x} $([pwd])])]";
    backquotes_in_double_quotes: "echo \"`echo \\\"a\\\"`\"" => "[echo \"$([echo \"a\"])\"]";
    arith_expansion: "echo $((1 + 2)) $(( x * (y - 1) ))" => "[echo $((1 + 2)) $(( x * (y - 1) ))]";
    arith_expansion_params: "echo $(($x + ${#a}))" => "[echo $((${x} + ${#a}))]";
    arith_expansion_nested: "echo $(( $((1+1)) * 2 ))" => "[echo $(( $((1+1)) * 2 ))]";
    arith_expansion_command_subst: "echo $(( $(echo 1) + 1 ))" => "[echo $(( $([echo 1]) + 1 ))]";
    arith_expansion_in_quotes: "echo \"$((1+2))\"" => "[echo \"$((1+2))\"]";
    process_subst: "diff <(a) <(b)" => "[diff <([a]) <([b])]";
    process_subst_output: "tee >(wc -l)" => "[tee >([wc -l])]";
    process_subst_redirect: "while read l; do :; done < <(ls)" => "(while [read l] do [:]) <<([ls])";

    // Words: tilde and braces.
    tilde_alone: "cd ~" => "[cd <~>]";
    tilde_path: "ls ~/x ~root/y ~+ ~-" => "[ls <~>/x <~root>/y <~+> <~->]";
    tilde_not_at_start: "echo a~ a/~" => "[echo a~ a/~]";
    tilde_quoted: "echo '~' \\~ \"~\"" => "[echo '~' '~' \"~\"]";
    tilde_before_quotes_is_literal: "echo ~\"root\" ~$x" => "[echo ~\"root\" ~${x}]";
    tilde_before_quoted_path: "echo ~/\"my dir\"" => "[echo <~>/\"my dir\"]";
    brace_list: "echo {a,b,c}" => "[echo <{a,b,c}>]";
    brace_prefix_suffix: "echo pre{a,b}post" => "[echo pre<{a,b}>post]";
    brace_nested: "echo {a,{b,c}d}" => "[echo <{a,<{b,c}>d}>]";
    brace_empty_alternative: "echo x{,.bak}" => "[echo x<{,.bak}>]";
    brace_with_expansion: "echo {$a,b}" => "[echo <{${a},b}>]";
    brace_quoted_alternative: "echo {a,\"b c\"}" => "[echo <{a,\"b c\"}>]";
    brace_quoted_not_expanded: "echo \"{a,b}\" '{a,b}' \\{a,b}" => "[echo \"{a,b}\" '{a,b}' '{'a,b}]";
    brace_quoted_comma_not_separator: "echo {a\\,b}" => "[echo {a','b}]";
    brace_no_comma: "echo {a} {} a{b" => "[echo {a} {} a{b]";
    brace_inner_of_literal: "echo {a{b,c}}" => "[echo {a<{b,c}>}]";
    brace_unclosed_outer: "echo {a,{b,c}" => "[echo {a,<{b,c}>]";
    brace_param_not_brace: "echo ${x}{a,b}" => "[echo ${x}<{a,b}>]";
    brace_seq_numbers: "echo {1..5} {5..1} {-2..2}" => "[echo <{1..5..1}> <{5..1..1}> <{-2..2..1}>]";
    brace_seq_letters: "echo {a..e} {z..x..2}" => "[echo <{a..e..1}> <{z..x..2}>]";
    brace_seq_padded: "echo {01..10} {1..10..2}" => "[echo <{1..10..1 %02}> <{1..10..2}>]";
    brace_seq_invalid: "echo {1..} {a..1} {1..2..x} {ab..c}" => "[echo {1..} {a..1} {1..2..x} {ab..c}]";
    brace_seq_in_list: "echo {{1..2},x}" => "[echo <{<{1..2..1}>,x}>]";
    brace_command_name: "{a,b}c" => "[<{a,b}>c]";
    brace_group_keyword_needs_space: "{ echo {a,b}; }" => "(group [echo <{a,b}>])";

    // Positions.
    keyword_quoted_is_word: "'if' a" => "['if' a]";
    done_as_argument: "echo done" => "[echo done]";
    close_brace_as_argument: "echo }" => "[echo }]";
    close_brackets_as_argument: "echo ]]" => "[echo ]]]";

    // Errors.
    error_unfinished_if: "if true; then" => "error: syntax error: unexpected end of file";
    error_unfinished_if_no_then: "if true" => "error: syntax error: unexpected end of file";
    error_stray_done: "done" => "error: syntax error near unexpected token `done'";
    error_stray_fi: "echo a; fi" => "error: syntax error near unexpected token `fi'";
    error_stray_then: "then" => "error: syntax error near unexpected token `then'";
    error_stray_in: "in" => "error: syntax error near unexpected token `in'";
    error_stray_brace: "}" => "error: syntax error near unexpected token `}'";
    error_stray_brackets: "]]" => "error: syntax error near unexpected token `]]'";
    error_empty_then: "if a; then fi" => "error: syntax error near unexpected token `fi'";
    error_empty_group: "{ }" => "error: syntax error near unexpected token `}'";
    error_empty_subshell: "( )" => "error: syntax error near unexpected token `)'";
    error_unclosed_subshell: "(a" => "error: syntax error: unexpected end of file";
    error_stray_paren: "a )" => "error: syntax error near unexpected token `)'";
    error_unclosed_group: "{ a }" => "error: syntax error: unexpected end of file";
    error_unterminated_double_quote: "echo \"unterminated" => "error: unexpected EOF while looking for matching `\"'";
    error_unterminated_single_quote: "echo 'abc" => "error: unexpected EOF while looking for matching `''";
    error_unterminated_backquote: "echo `abc" => "error: unexpected EOF while looking for matching ``'";
    error_unterminated_command_subst: "echo $(abc" => "error: unexpected EOF while looking for matching `)'";
    error_unterminated_param: "echo ${abc" => "error: unexpected EOF while looking for matching `}'";
    error_unterminated_arith: "echo $(( (1 )" => "error: unexpected EOF while looking for matching `)'";
    bad_substitution: "echo ${x!} a; b" => "[echo <bad ${x!}> a]; [b]";
    bad_substitution_empty: "echo ${}" => "[echo <bad ${}>]";
    bad_substitution_zsh: "echo ${(k)m[@]} ${=1} \"${(M)${x}:#a}\"" => "[echo <bad ${(k)m[@]}> <bad ${=1}> \"<bad ${(M)${x}:#a}>\"]";
    bad_substitution_quoted_brace: "echo ${x!'}'} z" => "[echo <bad ${x!'}'}> z]";
    bad_substitution_length_with_op: "echo ${#x:-1}" => "[echo <bad ${#x:-1}>]";
    error_bad_substitution_unclosed: "echo ${x!" => "error: unexpected EOF while looking for matching `}'";
    error_leading_pipe: "| a" => "error: syntax error near unexpected token `|'";
    error_trailing_pipe: "a |" => "error: syntax error: unexpected end of file";
    error_double_semicolon: "a;;" => "error: syntax error near unexpected token `;;'";
    error_leading_semicolon: "; a" => "error: syntax error near unexpected token `;'";
    error_and_without_left: "&& a" => "error: syntax error near unexpected token `&&'";
    error_redirect_without_target: "echo >" => "error: syntax error: unexpected end of file";
    error_redirect_newline: "echo >\n" => "error: syntax error near unexpected token `newline'";
    error_redirect_to_operator: "echo > ;" => "error: syntax error near unexpected token `;'";
    error_function_body_not_compound: "f() echo hi" => "error: syntax error near unexpected token `echo'";
    error_for_missing_do: "for x in a; echo; done" => "error: syntax error near unexpected token `echo'";
    error_case_missing_in: "case x a) ;; esac" => "error: syntax error near unexpected token `a'";
    error_case_unclosed: "case x in a) b;;" => "error: syntax error: unexpected end of file";
    error_cond_unary_missing_operand: "[[ -f ]]" => "error: unexpected argument `]]' to conditional unary operator";
    error_cond_binary_missing_operand: "[[ a == ]]" => "error: unexpected argument `]]' to conditional binary operator";
    error_cond_two_words: "[[ a b ]]" => "error: conditional binary operator expected";
    error_cond_unclosed_paren: "[[ ( a ]]" => "error: unexpected token `]]', expected `)'";
    error_cond_empty: "[[ ]]" => "error: unexpected token `]]' in conditional command";
    error_cond_unclosed: "[[ a" => "error: syntax error: unexpected end of file";
    error_arith_for_two_parts: "for ((i=0; i<3)); do :; done" => "error: syntax error: arithmetic for needs `((init; cond; step))'";
    error_dparen_as_argument: "echo ((a))" => "error: syntax error near unexpected token `(('";
    error_paren_after_words: "echo a (b)" => "error: syntax error near unexpected token `('";
}

// Bracket tests are ordinary commands, not `[[`; this case above checks the renderer only
// distinguishes by name. Check the real structure here.
#[test]
fn single_bracket_is_simple_command() {
    let program = parse("[ -f x ]").expect("parses");
    let kind = &program.items[0].and_or.first.commands[0].kind;
    assert!(matches!(kind, CommandKind::Simple(_)), "{kind:?}");
}

fn error(src: &str) -> ParseError {
    match parse(src) {
        Ok(program) => ParseError {
            message: format!("parsed: {}", sexp::list(&program)),
            line: 0,
            column: 0,
        },
        Err(e) => e,
    }
}

#[test]
fn error_positions() {
    let e = error("echo a\necho b\n  done");
    assert_eq!((e.line, e.column), (3, 3));
    let e = error("if true; then\n echo");
    assert_eq!(e.line, 2);
    let e = error("echo 'a\nb");
    assert_eq!(e.line, 2);
}

#[test]
fn command_lines() {
    let program = parse("a\n\nb; c\nif x\nthen y\nfi").expect("parses");
    let lines: Vec<usize> = program
        .items
        .iter()
        .map(|item| item.and_or.first.commands[0].line)
        .collect();
    assert_eq!(lines, vec![1, 3, 3, 4]);
}

#[test]
fn lines_after_multiline_words() {
    let program = parse("echo \"a\nb\" $(c\nd)\ne").expect("parses");
    assert_eq!(program.items[1].and_or.first.commands[0].line, 4);
}

#[test]
fn heredoc_body_is_double_quoted_word() {
    let program = parse("cat <<EOF\na $x\nEOF").expect("parses");
    let redirect = &program.items[0].and_or.first.commands[0].redirects[0];
    let expected = Redirect {
        fd: None,
        var: None,
        kind: RedirectKind::HereDoc(HereDoc {
            delimiter: "EOF".into(),
            strip_tabs: false,
            expand: true,
            body: Word {
                parts: vec![WordPart::DoubleQuoted(vec![
                    WordPart::Literal("a ".into()),
                    WordPart::Param(ParamExpansion {
                        param: Param::Var("x".into()),
                        indirect: false,
                        op: ParamOp::Plain,
                        braced: false,
                    }),
                    WordPart::Literal("\n".into()),
                ])],
            },
        }),
    };
    assert_eq!(redirect, &expected);
}

#[test]
fn word_structure_is_kept() {
    let program = parse("echo a'b'\"c$d\"").expect("parses");
    let kind = &program.items[0].and_or.first.commands[0].kind;
    let CommandKind::Simple(cmd) = kind else {
        return assert!(matches!(kind, CommandKind::Simple(_)));
    };
    let expected = Arg::Word(Word {
        parts: vec![
            WordPart::Literal("a".into()),
            WordPart::SingleQuoted("b".into()),
            WordPart::DoubleQuoted(vec![
                WordPart::Literal("c".into()),
                WordPart::Param(ParamExpansion {
                    param: Param::Var("d".into()),
                    indirect: false,
                    op: ParamOp::Plain,
                    braced: false,
                }),
            ]),
        ],
    });
    assert_eq!(cmd.words[1], expected);
}

/// Runs `f` on a thread with a small stack, like the guest's (debug builds use about four
/// times the stack of release builds).
fn with_small_stack(f: impl FnOnce() + Send + 'static) {
    let size = if cfg!(debug_assertions) {
        4 << 20
    } else {
        512 << 10
    };
    let handle = std::thread::Builder::new().stack_size(size).spawn(f);
    assert!(handle.is_ok_and(|h| h.join().is_ok()));
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    with_small_stack(|| {
        for (open, close) in [
            ("( ", " )"),
            ("{ ", "; }"),
            ("if a; then ", "; fi"),
            ("$(", ")"),
            ("\"$(", ")\""),
            ("${x:-", "}"),
            ("$((", "))"),
        ] {
            let src = format!("{}a{}", open.repeat(5000), close.repeat(5000));
            let result = parse(&src);
            assert!(
                result.as_ref().is_err_and(
                    |e| e.message.contains("nesting") || e.message.contains("recursion")
                ),
                "{open}: {result:?}"
            );
        }
    });
}

#[test]
fn nesting_below_the_limit_parses() {
    with_small_stack(|| {
        for (open, close) in [
            ("(", ")"),
            ("{ ", "; }"),
            ("if a; then ", "; fi"),
            ("while a; do ", "; done"),
            ("$(", ")"),
            ("\"$(", ")\""),
            ("${x:-", "}"),
        ] {
            let src = format!("echo {}a{}", open.repeat(45), close.repeat(45));
            let src = src.replacen("echo (", "(", 1).replacen("echo {", "{", 1);
            let src = src
                .replacen("echo if", "if", 1)
                .replacen("echo while", "while", 1);
            assert!(parse(&src).is_ok(), "{open}: {:?}", parse(&src));
        }
    });
}

#[test]
fn deep_conditions_are_an_error() {
    with_small_stack(|| {
        for (open, close) in [("( ", " )"), ("! ", "")] {
            let src = format!("[[ {}a{} ]]", open.repeat(5000), close.repeat(5000));
            let result = parse(&src);
            assert!(
                result.is_err_and(|e| e.message.contains("nesting")),
                "{open}"
            );
        }
    });
}

#[test]
fn deep_braces_are_an_error() {
    with_small_stack(|| {
        let src = format!("echo {}a,b{}", "{a,".repeat(5000), "}".repeat(5000));
        let result = parse(&src);
        assert!(result.is_err_and(|e| e.message.contains("brace")));
    });
}

#[test]
fn long_cond_chain_is_an_error() {
    let src = format!("[[ a{} ]]", " && a".repeat(5000));
    assert!(parse(&src).is_err_and(|e| e.message.contains("nesting")));
}

#[test]
fn many_unmatched_braces_are_fast() {
    let src = format!("echo {}", "{".repeat(100_000));
    assert!(parse(&src).is_ok());
}

#[test]
fn long_scripts_parse() {
    let src = "echo $x | grep -v y && z=1\n".repeat(5000);
    assert!(parse(&src).is_ok_and(|p| p.items.len() == 5000));
}
