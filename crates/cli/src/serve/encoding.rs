//! Content codings: which one a client accepts (`Accept-Encoding`), and
//! compressing a body with it. Brotli is preferred over gzip at equal
//! preference: it is smaller for the JS, wasm and JSON this server sends,
//! and every browser that sends `br` decodes it.

use std::io::Write;

/// A content coding this server can send.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Encoding {
    Identity,
    Gzip,
    Brotli,
}

impl Encoding {
    /// The `Content-Encoding` value, none for identity.
    pub fn header(self) -> Option<&'static str> {
        match self {
            Encoding::Identity => None,
            Encoding::Gzip => Some("gzip"),
            Encoding::Brotli => Some("br"),
        }
    }
}

/// How hard to compress: a static file is compressed once and kept, an API
/// answer on every request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effort {
    Once,
    PerRequest,
}

/// Bodies below this size are sent as they are: the coding's framing would
/// eat most of the saving.
pub const MIN_SIZE: usize = 1024;

/// The coding to send for an `Accept-Encoding` value (RFC 9110 §12.5.3):
/// the acceptable coding with the highest `q`, brotli first on a tie;
/// identity when the header is absent or names nothing we have.
pub fn negotiate(accept: Option<&str>) -> Encoding {
    let Some(accept) = accept else {
        return Encoding::Identity;
    };
    let (mut br, mut gzip, mut any) = (None, None, None);
    for item in accept.split(',') {
        let mut parts = item.split(';');
        let name = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        let q = parts
            .filter_map(|p| p.trim().strip_prefix("q=").or(p.trim().strip_prefix("Q=")))
            .filter_map(|v| v.trim().parse::<f32>().ok())
            .find(|q| q.is_finite())
            .unwrap_or(1.0)
            .clamp(0.0, 1.0);
        match name.as_str() {
            "br" => br = Some(q),
            "gzip" | "x-gzip" => gzip = Some(q),
            "*" => any = Some(q),
            _ => {}
        }
    }
    let br = br.or(any).unwrap_or(0.0);
    let gzip = gzip.or(any).unwrap_or(0.0);
    if br > 0.0 && br >= gzip {
        Encoding::Brotli
    } else if gzip > 0.0 {
        Encoding::Gzip
    } else {
        Encoding::Identity
    }
}

/// Whether a MIME type is worth compressing (text and wasm; not images,
/// archives or the zstd-compressed shard files).
pub fn compressible(mime: &str) -> bool {
    let essence = mime.split(';').next().unwrap_or("").trim();
    essence.starts_with("text/")
        || matches!(
            essence,
            "application/json"
                | "application/manifest+json"
                | "application/wasm"
                | "application/xml"
                | "image/svg+xml"
        )
}

/// `data` in `encoding`, or `None` when that would not be smaller (or for
/// identity).
pub fn compress(data: &[u8], encoding: Encoding, effort: Effort) -> Option<Vec<u8>> {
    if data.len() < MIN_SIZE {
        return None;
    }
    let out = match encoding {
        Encoding::Identity => return None,
        Encoding::Brotli => {
            let params = brotli::enc::BrotliEncoderParams {
                // 9 is within a few percent of 11 at a fraction of its time
                // (a 1 MB wasm: ~0.1 s against ~2 s); 4 keeps per-request
                // JSON at well under a millisecond.
                quality: if effort == Effort::Once { 9 } else { 4 },
                lgwin: 22,
                size_hint: data.len(),
                ..Default::default()
            };
            let mut out = Vec::with_capacity(data.len() / 3);
            brotli::BrotliCompress(&mut &data[..], &mut out, &params).ok()?;
            out
        }
        Encoding::Gzip => {
            let level = if effort == Effort::Once { 9 } else { 5 };
            let mut enc = flate2::write::GzEncoder::new(
                Vec::with_capacity(data.len() / 3),
                flate2::Compression::new(level),
            );
            enc.write_all(data).ok()?;
            enc.finish().ok()?
        }
    };
    (out.len() < data.len()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn negotiation_follows_q_values() {
        use Encoding::*;
        for (header, want) in [
            (None, Identity),
            (Some(""), Identity),
            (Some("gzip, deflate, br, zstd"), Brotli),
            (Some("gzip"), Gzip),
            (Some("GZIP"), Gzip),
            (Some("br;q=0.5, gzip"), Gzip),
            (Some("br;q=0, gzip;q=0"), Identity),
            (Some("*"), Brotli),
            (Some("*;q=0.2, br;q=0"), Gzip),
            (Some("identity"), Identity),
            (Some("deflate"), Identity),
            (Some("br;q=nonsense"), Brotli),
            (Some("gzip;q=1e9"), Gzip),
        ] {
            assert_eq!(negotiate(header), want, "{header:?}");
        }
    }

    #[test]
    fn compressed_bodies_decode_to_the_original() {
        let data: Vec<u8> = (0..20_000)
            .flat_map(|i| {
                format!("{{\"id\": {i}, \"name\": \"University {}\"}},", i % 97).into_bytes()
            })
            .collect();
        for effort in [Effort::Once, Effort::PerRequest] {
            let br = compress(&data, Encoding::Brotli, effort).expect("smaller");
            let mut back = Vec::new();
            brotli::Decompressor::new(&br[..], 4096)
                .read_to_end(&mut back)
                .unwrap();
            assert_eq!(back, data);
            let gz = compress(&data, Encoding::Gzip, effort).expect("smaller");
            let mut back = Vec::new();
            flate2::read::GzDecoder::new(&gz[..])
                .read_to_end(&mut back)
                .unwrap();
            assert_eq!(back, data);
        }
        assert_eq!(compress(b"tiny", Encoding::Brotli, Effort::Once), None);
        // Random bytes do not shrink: sent as they are.
        let mut x = 0x2545_f491_4f6c_dd1d_u64;
        let noise: Vec<u8> = (0..4096)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 24) as u8
            })
            .collect();
        assert_eq!(compress(&noise, Encoding::Gzip, Effort::Once), None);
    }

    #[test]
    fn what_is_compressible() {
        assert!(compressible("text/html; charset=utf-8"));
        assert!(compressible("application/wasm"));
        assert!(compressible("application/json"));
        assert!(!compressible("application/octet-stream"));
        assert!(!compressible("image/png"));
    }
}
