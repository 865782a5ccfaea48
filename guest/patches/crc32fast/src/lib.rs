//! CRC-32 (ISO-HDLC, gzip's), with the API of the `crc32fast` crate that flate2 uses, patched in
//! by `guest/Cargo.toml`. crc32fast computes it 16 bytes at a time from sixteen 1 KB tables;
//! this one byte at a time from one table. gzip's checksum costs a fraction of deflating or
//! inflating the same bytes, and the module is 15 KB (gzipped) smaller.

/// The reflected polynomial 0x04C11DB7.
const POLY: u32 = 0xEDB8_8320;

/// The CRC of each byte value, computed at compile time.
static TABLE: [u32; 256] = table();

const fn table() -> [u32; 256] {
    let mut table = [0; 256];
    let mut i = 0;
    while i < 256 {
        let mut crc = i as u32;
        let mut bit = 0;
        while bit < 8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ POLY
            } else {
                crc >> 1
            };
            bit += 1;
        }
        table[i] = crc;
        i += 1;
    }
    table
}

fn advance(state: u32, bytes: &[u8]) -> u32 {
    let mut crc = !state;
    for &byte in bytes {
        crc = TABLE[((crc ^ u32::from(byte)) & 0xff) as usize] ^ (crc >> 8);
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
