//! A small deterministic generator (xorshift64) shared by the tests that build pseudo-random
//! inputs, so every run is reproducible and a failure can be replayed from its seed.

/// xorshift64; the seed must not be 0.
pub struct Rng(pub u64);

#[allow(dead_code)] // each test crate uses some of these
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// `n` characters drawn from `alphabet`.
    pub fn from(&mut self, alphabet: &str, n: usize) -> String {
        let a: Vec<char> = alphabet.chars().collect();
        (0..n).map(|_| a[self.below(a.len())]).collect()
    }
}

/// The 62 letters and digits of base62 tokens.
pub const ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// A fixed pseudo-random run of `n` base62 characters, one per seed (any seed, 0 too).
pub fn base62(seed: u64, n: usize) -> String {
    Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1).from(ALNUM, n)
}
