//! Reading an input record by record: lines, or NUL-terminated records for `-z`.

use crate::limits::MAX_LINE;
use crate::task::Input;

/// Records of an input ending at a terminator byte: newline-terminated lines, or NUL-terminated
/// records for `-z`.
pub struct Records {
    input: Input,
    delim: u8,
    pending: Vec<u8>,
    start: usize,
}

impl Records {
    /// Records of `input` ending at `delim`.
    pub fn new(input: Input, delim: u8) -> Self {
        Records {
            input,
            delim,
            pending: Vec::new(),
            start: 0,
        }
    }

    /// Appends the next record (with its terminator, if it has one) to `out`; false at the end.
    pub async fn next_into(&mut self, out: &mut Vec<u8>) -> bool {
        if self.delim == b'\n' {
            return self.input.read_line_into(out).await;
        }
        let before = out.len();
        loop {
            let rest = &self.pending[self.start..];
            if let Some(at) = rest.iter().position(|&b| b == self.delim) {
                out.extend_from_slice(&rest[..=at]);
                self.start += at + 1;
                return true;
            }
            if rest.len() > MAX_LINE {
                self.pending = Vec::new();
                return self.input.too_long(out, before);
            }
            match self.input.read_chunk().await {
                Some(chunk) => {
                    self.pending.drain(..self.start);
                    self.start = 0;
                    self.pending.extend_from_slice(&chunk);
                }
                None => {
                    let found = self.start < self.pending.len();
                    out.extend_from_slice(&self.pending[self.start..]);
                    self.start = self.pending.len();
                    return found;
                }
            }
        }
    }
}

/// Splits `data` into lines ending at `delim`; the last line may lack it.
pub fn split_lines(data: &[u8], delim: u8) -> impl Iterator<Item = &[u8]> {
    let mut rest = data;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = rest
            .iter()
            .position(|&b| b == delim)
            .map_or(rest.len(), |at| at + 1);
        let (line, tail) = rest.split_at(end);
        rest = tail;
        Some(line)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_split_at_the_delimiter() {
        let lines: Vec<&[u8]> = split_lines(b"a\nb", b'\n').collect();
        assert_eq!(lines, vec![&b"a\n"[..], &b"b"[..]]);
    }
}
