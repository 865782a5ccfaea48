//! `column [-t] [-s SEP] [-o SEP] [-x] [-c WIDTH] [FILE]...`: lay out lines in columns, as
//! util-linux's column does: a table with `-t`, else entries filled into tab-aligned
//! columns across the width (`$COLUMNS` or 80).

use crate::applets::common::inputs_or_stdin;
use crate::applets::common::{open, parse_args, write_and_finish};
use crate::applets::common::{warn, OptSpec};
use crate::applets::text::width::str_width;
use crate::applets::{Applet, Ctx, Help};
use crate::task::LocalFuture;

/// The `column` applet.
pub const APPLET: Applet = Applet {
    name: "column",
    usage: "column [OPTION]... [FILE]...\n  -t, --table                 make a table of the input's fields\n  -s, --separator=CHARS       field separators for -t (default: runs of white space)\n  -o, --output-separator=STR  between table columns (default two spaces)\n  -N, --table-columns=NAMES   comma-separated header line for -t\n  -R, --table-right=COLUMNS   right-align these columns (numbers, comma-separated)\n  -c, --output-width=WIDTH    width to fill (default $COLUMNS or 80)\n  -x, --fillrows              fill rows before columns",
    help: Help::Anywhere,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "txne",
    short_val: "socNR",
    long: &["table", "fillrows", "table-noempty"],
    long_val: &[
        "separator",
        "output-separator",
        "output-width",
        "table-columns",
        "table-right",
    ],
    digits: None,
    stop_at_operand: false,
};

#[derive(Default)]
struct Options {
    table: bool,
    fill_rows: bool,
    separators: Option<String>,
    output_sep: Option<String>,
    width: Option<usize>,
    headers: Option<Vec<String>>,
    right: Vec<usize>,
}

fn run(ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(main(ctx))
}

async fn main(mut ctx: Ctx) -> i32 {
    let (opts, operands) = match parse_args(&mut ctx, &SPEC, 1).await {
        Ok(parsed) => parsed,
        Err(status) => return status,
    };
    let mut o = Options::default();
    for opt in &opts {
        let value = opt.value();
        if opt.is('t', "table") {
            o.table = true;
        } else if opt.is('x', "fillrows") {
            o.fill_rows = true;
        } else if opt.is('s', "separator") {
            o.separators = Some(value.to_string());
        } else if opt.is('o', "output-separator") {
            o.output_sep = Some(value.to_string());
        } else if opt.is('N', "table-columns") {
            o.headers = Some(value.split(',').map(str::to_string).collect());
        } else if opt.is('R', "table-right") {
            o.right = value.split(',').filter_map(|n| n.parse().ok()).collect();
        } else if opt.is('c', "output-width") {
            match value.parse() {
                Ok(width) => o.width = Some(width),
                Err(_) => {
                    warn(&mut ctx, format!("invalid columns argument: '{value}'")).await;
                    return 1;
                }
            }
        }
    }
    let paths = inputs_or_stdin(operands);
    let mut text = String::new();
    let mut status = 0;
    for path in &paths {
        match open(&mut ctx, path) {
            Ok(mut input) => text.push_str(&String::from_utf8_lossy(&input.read_all().await)),
            Err(e) => {
                warn(&mut ctx, format!("{path}: {}", e.reason)).await;
                status = 1;
            }
        }
    }
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let out = if o.table {
        table(&lines, &o)
    } else {
        let width = o.width.unwrap_or_else(|| {
            ctx.env
                .get("COLUMNS")
                .and_then(|c| c.parse().ok())
                .unwrap_or(80)
        });
        fill(&lines, width, o.fill_rows)
    };
    write_and_finish(&mut ctx, out.as_bytes(), status).await
}

/// Splits a line into cells: on runs of white space by default (ignoring leading and
/// trailing ones), or on each separator character (empty cells kept).
fn cells<'a>(line: &'a str, separators: Option<&str>) -> Vec<&'a str> {
    match separators {
        None => line.split_ascii_whitespace().collect(),
        Some(seps) => line.split(|c| seps.contains(c)).collect(),
    }
}

fn table(lines: &[&str], o: &Options) -> String {
    let mut rows: Vec<Vec<&str>> = Vec::new();
    if let Some(headers) = &o.headers {
        rows.push(headers.iter().map(String::as_str).collect());
    }
    rows.extend(lines.iter().map(|l| cells(l, o.separators.as_deref())));
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut widths = vec![0; columns];
    for row in &rows {
        for (i, cell) in row.iter().enumerate() {
            widths[i] = widths[i].max(str_width(cell));
        }
    }
    let sep = o.output_sep.as_deref().unwrap_or("  ");
    let mut out = String::new();
    for row in &rows {
        for (i, &width) in widths.iter().enumerate() {
            let cell = row.get(i).copied().unwrap_or("");
            let pad = " ".repeat(width - str_width(cell));
            let last = i + 1 == columns;
            if o.right.contains(&(i + 1)) {
                out.push_str(&pad);
                out.push_str(cell);
            } else {
                out.push_str(cell);
                if !last {
                    out.push_str(&pad);
                }
            }
            if !last {
                out.push_str(sep);
            }
        }
        out.push('\n');
    }
    out
}

/// util-linux's fill modes: columns `maxlength` wide (rounded up past a tab stop), padded
/// with tabs; column-major unless `rows`.
fn fill(entries: &[&str], width: usize, rows: bool) -> String {
    if entries.is_empty() {
        return String::new();
    }
    let widths: Vec<usize> = entries.iter().map(|e| str_width(e)).collect();
    let longest = widths.iter().copied().max().unwrap_or(0);
    let column = (longest + 8) & !7;
    let columns = (width / column).max(1);
    let mut out = String::new();
    if rows {
        for (line, chunk) in entries.chunks(columns).zip(widths.chunks(columns)) {
            push_row(
                &mut out,
                line.iter().copied().zip(chunk.iter().copied()),
                column,
            );
        }
        return out;
    }
    let count = entries.len();
    let row_count = count.div_ceil(columns);
    for row in 0..row_count {
        let items = (row..count)
            .step_by(row_count)
            .map(|i| (entries[i], widths[i]));
        push_row(&mut out, items, column);
    }
    out
}

/// One output line: each entry but the last followed by tabs up to its column's end.
fn push_row<'a>(out: &mut String, items: impl Iterator<Item = (&'a str, usize)>, column: usize) {
    let items: Vec<(&str, usize)> = items.collect();
    let mut end = column;
    let mut position = 0;
    for (i, (entry, width)) in items.iter().enumerate() {
        out.push_str(entry);
        position += width;
        if i + 1 == items.len() {
            break;
        }
        while (position + 8) & !7 <= end {
            out.push('\t');
            position = (position + 8) & !7;
        }
        end += column;
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use crate::applets::text::cases::Table;

    const TABLE: Table = Table {
        name: "column",
        files: &[("f", "a b\nccc d\n")],
        ok: &[
            (&["-t"], "a b c\nlonger x\ny\n", "a       b  c\nlonger  x  \ny          \n"),
            (&["-t", "-s,"], "a,b,,c\nd,e\n", "a  b    c\nd  e    \n"),
            (&["-t", "-s:", "-o", " | "], "a:b\nccc:d\n", "a   | b\nccc | d\n"),
            (&["-t"], "a  b\n\n  c   d  \n", "a  b\nc  d\n"),
            (&["-t", "-o", "|"], "a b\n", "a|b\n"),
            (&["-t", "-s", ":", "-o", " | "], "a:b:c\n1:2\n", "a | b | c\n1 | 2 | \n"),
            (&["-s", " ", "-t"], "a  b\n", "a    b\n"),
            (&["-t", "-s", "\t"], "a\tb c\n", "a  b c\n"),
            (&["-t"], "é b\nxx y\n", "é   b\nxx  y\n"),
            (&["-t", "f"], "", "a    b\nccc  d\n"),
            (&["-t", "-N", "X,Y,Z"], "a b c\nd e f\n", "X  Y  Z\na  b  c\nd  e  f\n"),
            (&[], "x\n\ny\n", "x\ty\n"),
            (&[], "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n21\n22\n23\n24\n25\n26\n27\n28\n29\n30\n", "1\t4\t7\t10\t13\t16\t19\t22\t25\t28\n2\t5\t8\t11\t14\t17\t20\t23\t26\t29\n3\t6\t9\t12\t15\t18\t21\t24\t27\t30\n"),
            (&["-x"], "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n21\n22\n23\n24\n25\n26\n27\n28\n29\n30\n", "1\t2\t3\t4\t5\t6\t7\t8\t9\t10\n11\t12\t13\t14\t15\t16\t17\t18\t19\t20\n21\t22\t23\t24\t25\t26\t27\t28\t29\t30\n"),
            (&["-c", "30"], "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n", "1\t5\t9\n2\t6\t10\n3\t7\t11\n4\t8\t12\n"),
            (&["-c", "20"], "abcdefgh\nx\n", "abcdefgh\nx\n"),
            (&["-c", "40"], "apple\nbanana split\nkiwi\nfig\n", "apple\t\tkiwi\nbanana split\tfig\n"),
            (&["-t"], "", ""),
        ],
        err: &[
            (&["missing"], "", "", "column: missing: No such file or directory\n", 1),
            (&["-y"], "", "", "column: invalid option -- 'y'\nTry 'column --help' for more information.\n", 1),
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
}
