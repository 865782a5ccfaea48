//! `select var in words; do body; done`: a numbered menu of the words on stderr, then the
//! `PS3` prompt and a line read from stdin into `REPLY`, as bash does it.

use super::super::io::Fds;
use super::super::{Flow, Sh};
use crate::shell::ast::ForCommand;

/// bash's tab stops when it lines up menu columns.
const TAB: usize = 8;

impl Sh {
    /// Runs a `select` loop over `items` (already expanded): until `break`, or status 1 at
    /// the end of input. An empty line shows the menu again; a reply that is not one of
    /// the numbers sets the variable to the empty string.
    pub(super) async fn run_select(&self, c: &ForCommand, items: Vec<String>, fds: &Fds) -> Flow {
        if items.is_empty() {
            return Flow::Normal(0);
        }
        self.in_loop(async {
            let mut status = 0;
            let mut iterations = 0;
            let mut show_menu = true;
            loop {
                if let Some(flow) = self.loop_tick(&mut iterations).await {
                    return flow;
                }
                let Some(choice) = self.select_query(&items, show_menu, fds).await else {
                    return Flow::Normal(1);
                };
                if let Some(done) = self.loop_pass(c, choice, &mut status, fds).await {
                    return done;
                }
                show_menu = self
                    .state
                    .borrow()
                    .get("REPLY")
                    .is_some_and(|r| r.is_empty());
            }
        })
        .await
    }

    /// Shows the menu (when asked) and the prompt, and reads a reply: the chosen word, ""
    /// for a reply that is not a number of the menu, None at the end of input.
    async fn select_query(
        &self,
        items: &[String],
        mut show_menu: bool,
        fds: &Fds,
    ) -> Option<String> {
        loop {
            if show_menu {
                let columns = self.state.borrow().get("COLUMNS");
                fds.eprint(&menu(
                    items,
                    columns.and_then(|c| c.parse().ok()).unwrap_or(80),
                ))
                .await;
            }
            let prompt = self
                .state
                .borrow()
                .get("PS3")
                .unwrap_or_else(|| "#? ".into());
            fds.eprint(&prompt).await;
            let input = fds.input(0).cloned();
            let reply = match input {
                Some(input) => crate::shell::builtins::read_reply(&input).await,
                None => None,
            };
            let Some(reply) = reply else {
                // bash ends the prompt's line on stdout.
                let _ = fds.write(1, b"\n").await;
                return None;
            };
            let _ = self
                .state
                .borrow_mut()
                .assign("REPLY", reply.clone(), false);
            if reply.is_empty() {
                show_menu = true;
                continue;
            }
            let chosen = reply.trim().parse::<usize>().ok();
            return Some(
                chosen
                    .and_then(|n| n.checked_sub(1))
                    .and_then(|i| items.get(i))
                    .cloned()
                    .unwrap_or_default(),
            );
        }
    }
}

/// bash's menu: `N) word` entries, numbers right-aligned, in as many columns as fit in
/// `columns`, filled down first; one column when all would fit on a single row.
fn menu(items: &[String], columns: usize) -> String {
    let digits = items.len().to_string().len();
    let widest = items.iter().map(|i| i.chars().count()).max().unwrap_or(0);
    let cell = widest + digits + 4;
    let cols = (columns / cell).max(1);
    let mut rows = items.len().div_ceil(cols);
    if rows == 1 {
        rows = items.len();
    }
    let mut out = String::new();
    for row in 0..rows {
        let mut pos = 0;
        let mut index = row;
        loop {
            let item = &items[index];
            out.push_str(&format!("{:>digits$}) {item}", index + 1));
            let end = pos + digits + 2 + item.chars().count();
            index += rows;
            if index >= items.len() {
                break;
            }
            indent(&mut out, end, pos + cell);
            pos += cell;
        }
        out.push('\n');
    }
    out
}

/// Pads from column `from` to `to` with tabs and spaces, as bash does.
fn indent(out: &mut String, mut from: usize, to: usize) {
    while from < to {
        if to / TAB > from / TAB {
            out.push('\t');
            from += TAB - from % TAB;
        } else {
            out.push(' ');
            from += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::menu;

    #[test]
    fn menu_in_columns_like_bash() {
        let words = |n: usize| (1..=n).map(|i| format!("w{i}")).collect::<Vec<_>>();
        assert_eq!(menu(&words(2), 80), "1) w1\n2) w2\n");
        assert_eq!(menu(&words(3), 16), "1) w1  3) w3\n2) w2\n");
        let greek = ["alpha", "beta", "epsilon", "zeta"].map(String::from);
        assert_eq!(
            menu(&greek, 24),
            "1) alpha    3) epsilon\n2) beta\t    4) zeta\n"
        );
    }
}
