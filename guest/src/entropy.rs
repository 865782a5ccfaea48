//! Randomness from the host. Everything random in the guest (`Math.random`'s seed, `$RANDOM`'s
//! seed) starts here, from WASI `random_get`, which the host records or fixes, so runs replay
//! exactly and a sandbox with a fixed seed is deterministic.

/// Fills `bytes` with randomness from the host (`/dev/urandom`, `mktemp`'s names).
#[cfg(target_os = "wasi")]
pub fn fill(bytes: &mut [u8]) {
    #[link(wasm_import_module = "wasi_snapshot_preview1")]
    extern "C" {
        fn random_get(buf: *mut u8, len: usize) -> u16;
    }
    // SAFETY: the buffer is valid for its length; the host fills it (or leaves it on error).
    unsafe { random_get(bytes.as_mut_ptr(), bytes.len()) };
}

/// Native builds (unit tests) take their randomness from the standard library's hasher keys.
#[cfg(not(target_os = "wasi"))]
pub fn fill(bytes: &mut [u8]) {
    use std::hash::{BuildHasher, RandomState};
    let state = RandomState::new();
    for (i, chunk) in bytes.chunks_mut(8).enumerate() {
        let word = state.hash_one(i).to_le_bytes();
        chunk.copy_from_slice(&word[..chunk.len()]);
    }
}

/// Four random words from the host.
pub fn random_words() -> [u32; 4] {
    let mut bytes = [0u8; 16];
    fill(&mut bytes);
    words(bytes)
}

/// A random 64-bit value from the host.
pub fn random_u64() -> u64 {
    let [a, b, _, _] = random_words();
    (u64::from(a) << 32) | u64::from(b)
}

/// What the host gives each sandbox when it starts ([`crate::corral_reseed`]): its seeds and
/// times, in one message, so that starting a sandbox makes no call back to the host. The host
/// draws them in the order the guest once asked for them itself (`Math.random`'s seed, the
/// shell's clock, `$RANDOM`'s seed, the files' clock), so traces recorded then still replay.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Seeds {
    /// `Math.random`'s seed.
    pub js: [u32; 4],
    /// The shell's start time (`$SECONDS`), in milliseconds since the Unix epoch.
    pub shell_ms: f64,
    /// `$RANDOM`'s seed.
    pub shell: u64,
    /// The files' time, in milliseconds since the Unix epoch.
    pub files_ms: f64,
}

impl Seeds {
    /// The message's size: 16 random bytes, a realtime clock reading in nanoseconds, 16
    /// random bytes (of which `$RANDOM` takes 8), another clock reading; little-endian.
    pub const LEN: usize = 48;

    /// Reads the host's message; `None` unless it is exactly [`Seeds::LEN`] bytes.
    pub fn parse(bytes: &[u8]) -> Option<Seeds> {
        if bytes.len() != Self::LEN {
            return None;
        }
        let mut w = [0u32; Self::LEN / 4];
        for (word, chunk) in w.iter_mut().zip(bytes.chunks_exact(4)) {
            *word = u32::from_le_bytes(chunk.try_into().ok()?);
        }
        let ms = |low: u32, high: u32| ((u64::from(high) << 32) | u64::from(low)) as f64 / 1e6;
        Some(Seeds {
            js: [w[0], w[1], w[2], w[3]],
            shell_ms: ms(w[4], w[5]),
            shell: (u64::from(w[6]) << 32) | u64::from(w[7]),
            files_ms: ms(w[10], w[11]),
        })
    }
}

fn words(bytes: [u8; 16]) -> [u32; 4] {
    let word = |i: usize| u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
    [word(0), word(4), word(8), word(12)]
}

/// Endless random bytes (`/dev/urandom`): a 32-byte seed from the host stretched with SHA-256
/// in counter mode, so megabytes cost one host call and a trace records 32 bytes, not megabytes.
pub struct Stream {
    seed: [u8; 32],
    counter: u64,
}

impl Stream {
    /// A stream with a fresh seed from the host.
    pub fn new() -> Self {
        let mut seed = [0u8; 32];
        fill(&mut seed);
        Stream { seed, counter: 0 }
    }

    /// Fills `bytes` with the stream's next bytes (whole blocks: a partial one is dropped).
    pub fn fill(&mut self, bytes: &mut [u8]) {
        use sha2::Digest;
        for chunk in bytes.chunks_mut(32) {
            let mut hasher = sha2::Sha256::new();
            hasher.update(self.seed);
            hasher.update(self.counter.to_le_bytes());
            self.counter += 1;
            chunk.copy_from_slice(&hasher.finalize()[..chunk.len()]);
        }
    }
}

impl Default for Stream {
    fn default() -> Self {
        Stream::new()
    }
}

#[cfg(test)]
mod tests {
    use super::{Seeds, Stream};

    #[test]
    fn seeds_are_read_in_the_order_the_host_draws_them() {
        let mut bytes: Vec<u8> = (1u8..=16).collect();
        bytes.extend(1_234_500_000u64.to_le_bytes());
        bytes.extend(17u8..=32);
        bytes.extend(2_000_000u64.to_le_bytes());
        let seeds = Seeds::parse(&bytes).expect("48 bytes");
        assert_eq!(
            seeds.js,
            [0x0403_0201, 0x0807_0605, 0x0c0b_0a09, 0x100f_0e0d]
        );
        assert_eq!(seeds.shell_ms, 1_234.5);
        assert_eq!(seeds.shell, 0x1413_1211_1817_1615);
        assert_eq!(seeds.files_ms, 2.0);
        assert_eq!(Seeds::parse(&bytes[1..]), None);
    }

    #[test]
    fn stream_blocks_differ_and_fill_any_length() {
        let mut stream = Stream::new();
        let mut bytes = [0u8; 70];
        stream.fill(&mut bytes);
        assert_ne!(bytes[..32], bytes[32..64]);
        assert!(bytes[64..].iter().any(|&b| b != 0));
    }
}
