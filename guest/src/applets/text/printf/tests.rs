use crate::applets::text::cases::Table;

const TABLE: Table = Table {
    name: "printf",
    files: &[],
    ok: &[
        (&["%5.1e|%G|%g|%g|%.0e|%#.3g|%e\\n", "12345", "1e20", "0.0001234", "123456789", "5", "2", "-0.5"], "", "1.2e+04|1E+20|0.0001234|1.23457e+08|5e+00|2.00|-5.000000e-01\n"),
        (&["%08.2f|%-8.2f|%+.1f|% .1f\\n", "-3.14159", "2", "0", "1"], "", "-0003.14|2.00    |+0.0| 1.0\n"),
        (&["%x %o %X\\n", "-255", "-8", "3735928559"], "", "ffffffffffffff01 1777777777777777777770 DEADBEEF\n"),
        (&["%s=%s\\n", "a", "1", "b", "2", "c", "3"], "", "a=1\nb=2\nc=3\n"),
        (&["[%3s][%-3s][%.1s]\\n", "abcd", "x", ""], "", "[abcd][x  ][]\n"),
        (&["%s\\n", "hello"], "", "hello\n"),
        (&["[%(%Y-%m-%d %H:%M:%S)T][%()T]\\n", "0", "86400"], "", "[1970-01-01 00:00:00][00:00:00]\n"),
        (&["[%12(%H:%M)T][%-8(%M)T][%.2(%Y)T]\\n", "3600", "60", "0"], "", "[       01:00][01      ][19]\n"),
        (&["%(%Y)T %s\\n", "0", "a", "86400000", "b"], "", "1970 a\n1972 b\n"),
        (&["%(%%)T|\\n", "0"], "", "%|\n"),
        (&["%s-%s\\n", "a", "b", "c"], "", "a-b\nc-\n"),
        (&["%s %d\\n", "a", "1", "b"], "", "a 1\nb 0\n"),
        (&["%d|%i|%u\\n", "42", "-7", "3"], "", "42|-7|3\n"),
        (&["%x %X %o %u\\n", "255", "255", "8", "-1"], "", "ff FF 10 18446744073709551615\n"),
        (&["%d %d %d\\n", "0x1f", "010", "-0x10"], "", "31 8 -16\n"),
        (&["%d %d\\n", "'A", "\"b"], "", "65 98\n"),
        (&["%d\\n", "'é"], "", "233\n"),
        (&["%x\\n", "'A"], "", "41\n"),
        (&["%5.2f|%-6s|%+d|% d|%05d\\n", "3.14159", "ab", "5", "7", "42"], "", " 3.14|ab    |+5| 7|00042\n"),
        (&["%e %g %g %G\\n", "12345.678", "0.0001", "1e20", "1e-10"], "", "1.234568e+04 0.0001 1e+20 1E-10\n"),
        (&["%.0f %.0f %.0f %#.0f %#x %#o %#g\\n", "0.5", "1.5", "2.5", "3", "255", "8", "1.5"], "", "0 2 2 3. 0xff 010 1.50000\n"),
        (&["%+.3e|% g|%G|%g|%g\\n", "0", "-0.00001234", "1e-5", "123456", "1234567"], "", "+0.000e+00|-1.234e-05|1E-05|123456|1.23457e+06\n"),
        (&["%05.1f|%-8.3f|%08.3e|%+05d|%-05d|% 05d\\n", "3.14159", "2.5", "1234.5", "42", "42", "42"], "", "003.1|2.500   |1.234e+03|+0042|42   | 0042\n"),
        (&["%.3d|%5.3d|%-5.3x|%.0d|\\n", "7", "7", "255", "0"], "", "007|  007|0ff  ||\n"),
        (&["%10.3g|%-10g|%010g\\n", "3.14159", "2", "-2.5"], "", "      3.14|2         |-0000002.5\n"),
        (&["%.10g\\n", "3.14159265358979"], "", "3.141592654\n"),
        (&["%g %g %g\\n", "100000", "1000000", "0.00001"], "", "100000 1e+06 1e-05\n"),
        (&["%f %f %f\\n", "inf", "-inf", "nan"], "", "inf -inf nan\n"),
        (&["%f\\n", "0x10"], "", "16.000000\n"),
        (&["%c%c\\n", "hello", "w"], "", "hw\n"),
        (&["%5c|%-3c|\\n", "ab", "x"], "", "    a|x  |\n"),
        (&["%b\\n", "a\\tb\\x41\\0101\\101"], "", "a\tbAAA\n"),
        (&["%b|", "\\'\\\"\\?\\e"], "", "\\'\\\"\\?\u{1b}|"),
        (&["%b", "a\\cb", "never"], "", "a"),
        // The program's `%q` is coreutils' (quotes when needed); bash's builtin uses backslashes.
        (&["%q\\n", "a b", "it's", "$x", ""], "", "'a b'\n\"it's\"\n'$x'\n''\n"),
        (&["%q\\n", "a,b", "~a", "a~", "a=b", "#a", "a#", "a{b}", "*", "[x]"], "", "a,b\n'~a'\na~\n'a=b'\n'#a'\na#\n'a{b}'\n'*'\n'[x]'\n"),
        (&["%q\\n", "a\tb", "a\nb", "\u{1}"], "", "'a'$'\\t''b'\n'a'$'\\n''b'\n''$'\\001'\n"),
        (&["%5q|\\n", "ab"], "", "   ab|\n"),
        (&["%*d|%-*d|%.*f\\n", "5", "1", "4", "2", "2", "3.14159"], "", "    1|2   |3.14\n"),
        (&["%*s|%-*s|\\n", "-4", "a", "3", "b"], "", "a   |b  |\n"),
        (&["%.*s|\\n", "-1", "abc"], "", "abc|\n"),
        (&["\\x41\\0101\\101\\n"], "", "A\u{8}1A\n"),
        // The program stops at `\c` in the format (coreutils); bash's builtin prints it.
        (&["a\\cb\\n"], "", "a"),
        (&["%s\\c", "foo", "bar"], "", "foo"),
        (&["\\a\\v\\f\\r\\e\\\"\\?\\z"], "", "\u{7}\u{b}\u{c}\r\u{1b}\"?\\z"),
        (&["\\u00e9|\\x4142\\n"], "", "é|A42\n"),
        (&["%%|%s%%\\n", "x"], "", "%|x%\n"),
        (&["%.3s|%10.4s|%5.1s|%.s|\\n", "abcdef", "abcdef", "abc", "abc"], "", "abc|      abcd|    a||\n"),
        (&["%5s|%-5s|\\n", "é", "é"], "", "   é|é   |\n"),
        (&["%05s|%-05s|%+s|% s\\n", "a", "b", "c", "d"], "", "    a|b    |c|d\n"),
        (&["%#5x|%#o|%#X\\n", "0", "0", "10"], "", "    0|0|0XA\n"),
        (&["%s", "a", "%s"], "", "a%s"),
        (&["%s\\n"], "", "\n"),
        (&["%d|%d\\n", ""], "", "0|0\n"),
        (&["--", "%s\\n", "dash"], "", "dash\n"),
        (&["--", "-%s\\n", "a"], "", "-a\n"),
        (&["-"], "", "-"),
        (&["ab%zcd\\n", "1"], "", "ab1d\n"),
        (&["%ld %lld %hd\\n", "1", "2", "3"], "", "1 2 3\n"),
        (&["%d %d\\n", "  7", "+5"], "", "7 5\n"),
        (&["%'d\\n", "1234567"], "", "1234567\n"),
        (&["-x"], "", "-x"),
        (&["-%s\\n", "a"], "", "-a\n"),
    ],
    err: &[
        // The program's messages are coreutils' (bash's builtin: `printf: abc: invalid number`,
        // `` `y': invalid format character``, a usage line; see the differential cases).
        (&["no args\\n", "x"], "", "no args\n", "printf: warning: ignoring excess arguments, starting with 'x'\n", 0),
        (&["%d\\n", "abc"], "", "0\n", "printf: 'abc': expected a numeric value\n", 1),
        (&["%d %s\\n", "12abc", "x"], "", "12 x\n", "printf: '12abc': value not completely converted\n", 1),
        (&["%d|", "08", "-", "0x", "0x1g", "07a", "1.5"], "", "0|0|0|1|7|1|", "printf: '08': value not completely converted\nprintf: '-': expected a numeric value\nprintf: '0x': value not completely converted\nprintf: '0x1g': value not completely converted\nprintf: '07a': value not completely converted\nprintf: '1.5': value not completely converted\n", 1),
        (&["%.2f|%f\\n", "1,5", "abc"], "", "1.00|0.000000\n", "printf: '1,5': value not completely converted\nprintf: 'abc': expected a numeric value\n", 1),
        (&["%d\\n", " 12", "12 "], "", "12\n12\n", "printf: '12 ': value not completely converted\n", 1),
        (&["%d %d\\n", "99999999999999999999", "-99999999999999999999"], "", "9223372036854775807 -9223372036854775808\n", "printf: '99999999999999999999': Numerical result out of range\nprintf: '-99999999999999999999': Numerical result out of range\n", 1),
        (&["ab%ycd\\n"], "", "ab", "printf: %y: invalid conversion specification\n", 1),
        (&["%s-%y\\n", "a", "b"], "", "a-", "printf: %y: invalid conversion specification\n", 1),
        (&["%5%|\\n"], "", "", "printf: %5%: invalid conversion specification\n", 1),
        (&["ab%"], "", "ab", "printf: %: invalid conversion specification\n", 1),
        (&[], "", "", "printf: missing operand\nTry 'printf --help' for more information.\n", 1),
    ],
};

#[test]
fn cases() {
    TABLE.check();
}

#[test]
#[ignore = "compares the tables with the real GNU tools"]
fn gnu() {
    TABLE.check_gnu();
}
