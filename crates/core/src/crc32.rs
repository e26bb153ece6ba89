//! CRC-32 (IEEE 802.3, as in gzip and zip), slicing-by-8.
//!
//! The eight 256-entry tables (8 KB) are computed on first use rather than
//! stored: computing them takes microseconds, and they would add about 7 KB
//! of incompressible data to the wasm.
//!
//! Kept by hand rather than taken from `crc32fast` (issue #39 weighed it):
//! that crate stores a 16 KB table for targets without a CRC instruction,
//! and the browser's wasm is one. Built with it, the shipped wasm (after
//! `wasm-opt -Oz`) grew from 653,523 to 670,736 bytes, 231,639 to 248,000
//! brotli: 7 % more to download for every visitor, for checksums that take
//! milliseconds either way. Natively `crc32fast` is much faster (30 GB/s
//! against 1.5 on x86-64, 64 MB), but the CLI checksums a full registry's
//! shards in well under a tenth of a second with this code, so one
//! implementation for every target wins. The tests pin it to the bytewise
//! definition and the standard check values, so shard fixtures keep loading.

use std::sync::OnceLock;

type Tables = [[u32; 256]; 8];

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Box<Tables>> = OnceLock::new();
    TABLES.get_or_init(|| {
        let mut t: Box<Tables> = Box::new([[0u32; 256]; 8]);
        for i in 0..256 {
            let mut c = i as u32;
            for _ in 0..8 {
                c = if c & 1 != 0 {
                    0xEDB8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
            }
            t[0][i] = c;
        }
        for i in 0..256 {
            for k in 1..8 {
                let prev = t[k - 1][i];
                t[k][i] = t[0][(prev & 0xff) as usize] ^ (prev >> 8);
            }
        }
        t
    })
}

/// CRC-32 of `data`.
pub fn crc32(data: &[u8]) -> u32 {
    let t = tables();
    let mut c = !0u32;
    let mut chunks = data.chunks_exact(8);
    for b in &mut chunks {
        let lo = c ^ u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        c = t[7][(lo & 0xff) as usize]
            ^ t[6][((lo >> 8) & 0xff) as usize]
            ^ t[5][((lo >> 16) & 0xff) as usize]
            ^ t[4][(lo >> 24) as usize]
            ^ t[3][b[4] as usize]
            ^ t[2][b[5] as usize]
            ^ t[1][b[6] as usize]
            ^ t[0][b[7] as usize];
    }
    for &b in chunks.remainder() {
        c = t[0][((c ^ b as u32) & 0xff) as usize] ^ (c >> 8);
    }
    !c
}

#[cfg(test)]
mod tests {
    use super::crc32;

    /// The plain bytewise algorithm, for comparison.
    fn reference(data: &[u8]) -> u32 {
        let mut c = !0u32;
        for &b in data {
            c ^= b as u32;
            for _ in 0..8 {
                c = if c & 1 != 0 {
                    0xEDB8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
            }
        }
        !c
    }

    #[test]
    fn known_vectors() {
        assert_eq!(crc32(b""), 0);
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(
            crc32(b"The quick brown fox jumps over the lazy dog"),
            0x414F_A339
        );
    }

    #[test]
    fn agrees_with_the_bytewise_algorithm_at_every_length_and_offset() {
        let data: Vec<u8> = (0..300u32).map(|i| (i * 7919 % 251) as u8).collect();
        for start in 0..9 {
            for end in start..data.len() {
                assert_eq!(crc32(&data[start..end]), reference(&data[start..end]));
            }
        }
    }
}
