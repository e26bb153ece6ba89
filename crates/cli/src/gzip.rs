//! Writing `.gz` files (the core only reads them): one deflate member via
//! miniz_oxide, with a fixed header (no name, mtime 0) so the bytes depend on
//! the content alone.

use miniz_oxide::deflate::compress_to_vec;
use registry_core::crc32::crc32;

/// `data` as a gzip file (deflate level 6: the usual speed/size balance).
pub fn compress(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
    out.extend_from_slice(&compress_to_vec(data, 6));
    out.extend_from_slice(&crc32(data).to_le_bytes());
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_the_core_reader() {
        let text = b"[{\"a\": 1}] the quick brown fox ".repeat(100);
        let gz = compress(&text);
        assert_eq!(registry_core::container::gunzip(&gz).unwrap(), text);
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    }
}
