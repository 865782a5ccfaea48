//! Randomness from the host. Everything random in the guest (`Math.random`'s seed, `$RANDOM`'s
//! seed) starts here, from WASI `random_get`, which the host records or fixes, so runs replay
//! exactly and a sandbox with a fixed seed is deterministic.

/// Four random words from the host.
#[cfg(target_os = "wasi")]
pub fn random_words() -> [u32; 4] {
    #[link(wasm_import_module = "wasi_snapshot_preview1")]
    extern "C" {
        fn random_get(buf: *mut u8, len: usize) -> u16;
    }
    let mut bytes = [0u8; 16];
    // SAFETY: the buffer is valid for 16 bytes; the host fills it (or leaves zeros on error).
    unsafe { random_get(bytes.as_mut_ptr(), bytes.len()) };
    words(bytes)
}

/// Native builds (unit tests) take their randomness from the standard library's hasher keys.
#[cfg(not(target_os = "wasi"))]
pub fn random_words() -> [u32; 4] {
    use std::hash::{BuildHasher, RandomState};
    let state = RandomState::new();
    let mut bytes = [0u8; 16];
    for (i, chunk) in bytes.chunks_exact_mut(8).enumerate() {
        chunk.copy_from_slice(&state.hash_one(i).to_le_bytes());
    }
    words(bytes)
}

/// A random 64-bit value from the host.
pub fn random_u64() -> u64 {
    let [a, b, _, _] = random_words();
    (u64::from(a) << 32) | u64::from(b)
}

fn words(bytes: [u8; 16]) -> [u32; 4] {
    let word = |i: usize| u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
    [word(0), word(4), word(8), word(12)]
}
