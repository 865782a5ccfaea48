//! Captured standard output and error, capped per execution.

/// One captured stream: bytes not yet handed to the host, and how much was written in total.
#[derive(Default)]
pub struct Stream {
    pending: Vec<u8>,
    written: u64,
    truncated: bool,
}

impl Stream {
    /// Appends `bytes`, keeping at most `cap` bytes per execution; past the cap a single marker
    /// line says how to get the rest. Returns whether the stream takes more: a writer that
    /// reached the cap is told to stop (as by a closed pipe) instead of producing to the time
    /// limit for nothing (`yes`).
    pub fn write(&mut self, bytes: &[u8], cap: u64) -> bool {
        if self.truncated {
            return false;
        }
        let room = cap.saturating_sub(self.written);
        let take = bytes.len().min(usize::try_from(room).unwrap_or(usize::MAX));
        self.pending.extend_from_slice(&bytes[..take]);
        self.written += take as u64;
        if take < bytes.len() {
            self.truncated = true;
            let marker = format!(
                "\n[output truncated: more than {cap} bytes; print less or return a summary]\n"
            );
            self.pending.extend_from_slice(marker.as_bytes());
        }
        !self.truncated
    }

    /// Takes the bytes produced since the last call.
    pub fn take(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.pending)
    }

    /// Forgets the per-execution count, for the next execution.
    pub fn reset(&mut self) {
        *self = Stream::default();
    }
}

/// Standard output and standard error of the running execution.
#[derive(Default)]
pub struct Output {
    /// File descriptor 1.
    pub stdout: Stream,
    /// File descriptor 2.
    pub stderr: Stream,
    /// Per-stream cap in bytes.
    pub cap: u64,
}

impl Output {
    /// Writes to fd 1 (stdout) or anything else (stderr); false once that stream is past its
    /// cap (see [`Stream::write`]).
    pub fn write(&mut self, fd: i32, bytes: &[u8]) -> bool {
        let cap = self.cap;
        if fd == 1 {
            &mut self.stdout
        } else {
            &mut self.stderr
        }
        .write(bytes, cap)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_writer_past_the_cap_is_told_to_stop() {
        let mut s = Stream::default();
        assert!(s.write(b"abc", 3));
        assert!(!s.write(b"d", 3));
        assert!(!s.write(b"e", 3));
    }

    #[test]
    fn truncates_once_with_marker() {
        let mut s = Stream::default();
        s.write(b"hello", 3);
        s.write(b"more", 3);
        let text = String::from_utf8(s.take()).unwrap_or_default();
        assert!(text.starts_with("hel\n[output truncated: more than 3 bytes"));
        assert_eq!(text.matches("truncated").count(), 1);
    }

    #[test]
    fn take_drains_but_keeps_count() {
        let mut s = Stream::default();
        s.write(b"ab", 3);
        assert_eq!(s.take(), b"ab");
        s.write(b"cd", 3);
        assert!(String::from_utf8(s.take())
            .unwrap_or_default()
            .starts_with("c\n[output"));
    }
}
