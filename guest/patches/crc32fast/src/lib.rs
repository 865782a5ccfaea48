//! CRC-32 (ISO-HDLC, gzip's), with the API of the `crc32fast` crate that flate2 uses, patched in
//! by `guest/Cargo.toml`. crc32fast computes it 16 bytes at a time from sixteen 1 KB tables kept
//! in the module's data (15 KB of the gzipped module: tables do not compress); this one 8 bytes
//! at a time from eight tables computed on first use (~20 µs, 8 KB of the heap), so the module
//! holds only the code that makes them.

use std::sync::OnceLock;

/// The reflected polynomial 0x04C11DB7.
const POLY: u32 = 0xEDB8_8320;

/// `TABLES[0][b]`: the CRC of the byte `b`; `TABLES[k][b]`: of `b` followed by `k` zero bytes.
type Tables = [[u32; 256]; 8];

static TABLES: OnceLock<Box<Tables>> = OnceLock::new();

fn tables() -> &'static Tables {
    TABLES.get_or_init(|| {
        let mut tables = Box::new([[0; 256]; 8]);
        for (byte, entry) in tables[0].iter_mut().enumerate() {
            let mut crc = byte as u32;
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ POLY
                } else {
                    crc >> 1
                };
            }
            *entry = crc;
        }
        for k in 1..8 {
            for byte in 0..256 {
                let previous = tables[k - 1][byte];
                tables[k][byte] = (previous >> 8) ^ tables[0][(previous & 0xff) as usize];
            }
        }
        tables
    })
}

fn advance(state: u32, bytes: &[u8]) -> u32 {
    let t = tables();
    let at = |table: usize, index: u32| t[table][(index & 0xff) as usize];
    let mut crc = !state;
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        let low = crc ^ u32::from_le_bytes([word[0], word[1], word[2], word[3]]);
        let high = u32::from_le_bytes([word[4], word[5], word[6], word[7]]);
        crc = at(7, low)
            ^ at(6, low >> 8)
            ^ at(5, low >> 16)
            ^ at(4, low >> 24)
            ^ at(3, high)
            ^ at(2, high >> 8)
            ^ at(1, high >> 16)
            ^ at(0, high >> 24);
    }
    for &byte in words.remainder() {
        crc = at(0, crc ^ u32::from(byte)) ^ (crc >> 8);
    }
    !crc
}

/// A running CRC-32.
#[derive(Clone, Debug, Default)]
pub struct Hasher {
    amount: u64,
    state: u32,
}

impl Hasher {
    /// A hasher of no bytes yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// A hasher that continues from the checksum `init`.
    pub fn new_with_initial(init: u32) -> Self {
        Self::new_with_initial_len(init, 0)
    }

    /// A hasher that continues from the checksum `init` of `amount` bytes.
    pub fn new_with_initial_len(init: u32, amount: u64) -> Self {
        Self {
            amount,
            state: init,
        }
    }

    /// Adds `bytes` to the checksum.
    pub fn update(&mut self, bytes: &[u8]) {
        self.amount += bytes.len() as u64;
        self.state = advance(self.state, bytes);
    }

    /// The checksum of the bytes so far.
    pub fn finalize(self) -> u32 {
        self.state
    }

    /// Back to no bytes.
    pub fn reset(&mut self) {
        *self = Self::default();
    }

    /// Continues with the bytes that `other` has seen: crc(a ++ b) = crc(a ++ zeros) ^
    /// crc(zeros) ^ crc(b), with as many zeros as b has bytes (linear in b's length; flate2
    /// calls it only from its `Crc::combine`, which corral never uses).
    pub fn combine(&mut self, other: &Self) {
        let zeros = [0u8; 256];
        let (mut shifted, mut of_zeros) = (self.state, 0);
        let mut left = other.amount;
        while left > 0 {
            let n = left.min(zeros.len() as u64) as usize;
            shifted = advance(shifted, &zeros[..n]);
            of_zeros = advance(of_zeros, &zeros[..n]);
            left -= n as u64;
        }
        self.state = shifted ^ of_zeros ^ other.state;
        self.amount += other.amount;
    }
}

#[cfg(test)]
mod tests {
    use super::Hasher;

    fn crc(bytes: &[u8]) -> u32 {
        let mut h = Hasher::new();
        h.update(bytes);
        h.finalize()
    }

    #[test]
    fn known_checksums() {
        assert_eq!(crc(b""), 0);
        assert_eq!(crc(b"123456789"), 0xCBF4_3926);
        assert_eq!(
            crc(b"The quick brown fox jumps over the lazy dog"),
            0x414F_A339
        );
    }

    /// The CRC one bit at a time, as the polynomial defines it.
    fn bitwise(bytes: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &byte in bytes {
            crc ^= u32::from(byte);
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ super::POLY
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }

    #[test]
    fn every_length_and_alignment_agrees_with_the_bitwise_definition() {
        let data: Vec<u8> = (0..300u32).map(|i| (i * 151 + i / 5) as u8).collect();
        for start in 0..9 {
            for end in start..data.len() {
                assert_eq!(
                    crc(&data[start..end]),
                    bitwise(&data[start..end]),
                    "{start}..{end}"
                );
            }
        }
    }

    #[test]
    fn updates_in_pieces_and_combine_agree_with_one_update() {
        let data: Vec<u8> = (0..1000u32).map(|i| (i * 7 + i / 3) as u8).collect();
        for cut in [0, 1, 255, 256, 257, 999, 1000] {
            let mut a = Hasher::new();
            a.update(&data[..cut]);
            let mut b = Hasher::new();
            b.update(&data[cut..]);
            let mut pieces = a.clone();
            pieces.update(&data[cut..]);
            a.combine(&b);
            assert_eq!(a.finalize(), crc(&data), "combine at {cut}");
            assert_eq!(pieces.finalize(), crc(&data), "update at {cut}");
        }
    }
}
