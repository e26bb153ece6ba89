//! Static files under `--root`: safe paths, MIME types, the cache headers
//! HOSTING.md asks of a host, validators, and an in-memory cache of the
//! files and their compressed forms (a site is a few MB; compressing a wasm
//! once instead of per request is what makes brotli affordable).

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use registry_core::id::percent_decode;

use super::encoding::{self, Effort, Encoding};
use super::range::{self, Ranged};

/// Bytes of files (and their compressed forms) kept in memory; beyond it the
/// cache starts over. The real registry's whole site is ~65 MB.
const CACHE_BYTES: usize = 256 << 20;

/// Files larger than this are read per request and never compressed.
const CACHE_FILE_BYTES: u64 = 32 << 20;

/// `length` bytes of a file from `start`.
fn read_part(path: &Path, start: u64, length: u64) -> std::io::Result<Vec<u8>> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = std::fs::File::open(path)?;
    file.seek(SeekFrom::Start(start))?;
    let length = usize::try_from(length).map_err(std::io::Error::other)?;
    let mut bytes = vec![0; length];
    file.read_exact(&mut bytes)?;
    Ok(bytes)
}

/// MIME type of a file name.
pub fn mime(path: &Path) -> &'static str {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    match ext.as_str() {
        "html" | "htm" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" | "map" => "application/json",
        "webmanifest" => "application/manifest+json",
        "wasm" => "application/wasm",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "ico" => "image/x-icon",
        "txt" => "text/plain; charset=utf-8",
        "md" => "text/markdown; charset=utf-8",
        "xml" => "application/xml",
        "woff" => "font/woff",
        "woff2" => "font/woff2",
        "gz" => "application/gzip",
        "zst" => "application/zstd",
        _ => "application/octet-stream",
    }
}

fn is_hash(s: &str) -> bool {
    s.len() == 16 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// `Cache-Control` for a path relative to the root, as HOSTING.md asks: a
/// file named by its content (`<stem>.<16 hex>.<ext>`) or under a build's
/// pieces folder (`…/pieces/<16 hex build id>/…`) never changes; anything
/// else (`index.html`, `sw.js`, `registry*.js`, `manifest.json`, …) may, so
/// it is revalidated (cheap: see [`Files::get`]'s `ETag`).
pub fn cache_control(rel: &str) -> &'static str {
    const IMMUTABLE: &str = "public, max-age=31536000, immutable";
    let segments: Vec<&str> = rel.split('/').filter(|s| !s.is_empty()).collect();
    let in_build = segments
        .windows(2)
        .take(segments.len().saturating_sub(2))
        .any(|w| w[0] == "pieces" && is_hash(w[1]));
    let hashed_name = segments
        .last()
        .is_some_and(|name| name.split('.').skip(1).any(is_hash));
    if in_build || hashed_name {
        IMMUTABLE
    } else {
        "no-cache"
    }
}

/// A safe file path under `root` for a URL path, if any: percent-decoded,
/// no `..`, NUL or backslash; a directory means its `index.html`.
pub fn static_path(root: &Path, url_path: &str) -> Option<PathBuf> {
    let decoded = percent_decode(url_path);
    if decoded.contains('\0') || decoded.contains('\\') {
        return None;
    }
    let rel = Path::new(decoded.trim_start_matches('/'));
    let mut out = root.to_path_buf();
    for c in rel.components() {
        match c {
            Component::Normal(p) => out.push(p),
            Component::CurDir => {}
            _ => return None,
        }
    }
    if out.is_dir() {
        out.push("index.html");
    }
    Some(out)
}

/// One file as last read, with its compressed forms made on first use.
struct Entry {
    len: u64,
    modified: Option<SystemTime>,
    etag: String,
    identity: Bytes,
    brotli: OnceLock<Option<Bytes>>,
    gzip: OnceLock<Option<Bytes>>,
}

impl Entry {
    fn variant(&self, encoding: Encoding) -> Option<Bytes> {
        let cell = match encoding {
            Encoding::Identity => return None,
            Encoding::Brotli => &self.brotli,
            Encoding::Gzip => &self.gzip,
        };
        cell.get_or_init(|| {
            encoding::compress(&self.identity, encoding, Effort::Once).map(Bytes::from)
        })
        .clone()
    }
}

/// What a static request asks beyond its path.
pub struct Ask {
    /// The coding the client accepts best.
    pub accept: Encoding,
    pub if_none_match: Option<String>,
    /// The one `Range` value (None when absent or sent more than once).
    pub range: Option<String>,
    pub if_range: Option<String>,
    /// A HEAD request: a file too large for the cache is not read.
    pub head: bool,
}

/// Bytes `start..=end` of a file of `total` bytes: a 206.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Part {
    pub start: u64,
    pub end: u64,
    pub total: u64,
}

/// What a static request gets.
pub enum Answer {
    Found {
        /// Empty for a HEAD request of a file too large for the cache.
        body: Bytes,
        /// The `Content-Length`: the body's, or the one a GET would get.
        length: u64,
        encoding: Encoding,
        mime: &'static str,
        cache_control: &'static str,
        etag: String,
        /// The file's time (`Last-Modified`).
        modified: Option<SystemTime>,
        /// Whether the body depends on `Accept-Encoding` (`Vary`).
        varies: bool,
        /// A range of the file (always identity bytes), or None: all of it.
        part: Option<Part>,
    },
    NotModified {
        cache_control: &'static str,
        etag: String,
    },
    /// A range past the file's end: 416 with `Content-Range: bytes */total`.
    Unsatisfiable {
        total: u64,
    },
    NotFound,
}

/// The files under one root.
pub struct Files {
    root: PathBuf,
    cache: Mutex<(HashMap<PathBuf, Arc<Entry>>, usize)>,
}

fn etag_of(len: u64, modified: Option<SystemTime>) -> String {
    let nanos = modified
        .and_then(|m| m.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    format!("\"{len:x}-{nanos:x}\"")
}

/// The `ETag` of a coded form: each representation has its own (RFC 9110
/// §8.8.3), so a cache never serves gzip bytes for a brotli tag.
fn tagged(etag: &str, suffix: &str) -> String {
    format!("\"{}{suffix}\"", etag.trim_matches('"'))
}

/// Whether an `If-None-Match` value names `etag` (weak comparison, as RFC
/// 9110 §13.1.2 asks; a coding suffix `-br`/`-gz` names the same file).
fn none_match(header: &str, etag: &str) -> bool {
    let base = etag.trim_matches('"');
    header.split(',').map(str::trim).any(|tag| {
        let tag = tag.strip_prefix("W/").unwrap_or(tag).trim_matches('"');
        tag == "*"
            || tag == base
            || tag.strip_suffix("-br").or(tag.strip_suffix("-gz")) == Some(base)
    })
}

impl Files {
    pub fn new(root: PathBuf) -> Files {
        Files {
            root,
            cache: Mutex::new((HashMap::new(), 0)),
        }
    }

    /// The file for a URL path (blocking: file system and compression).
    ///
    /// A range (see `range`) is answered with the file's own bytes, never a
    /// compressed form, with the file's `ETag`; `If-None-Match` is looked at
    /// first (RFC 9110 §13.2.2), then `If-Range`, then `Range`.
    pub fn get(&self, url_path: &str, ask: &Ask) -> Answer {
        let Some(path) = static_path(&self.root, url_path) else {
            return Answer::NotFound;
        };
        let Ok(meta) = std::fs::metadata(&path) else {
            return Answer::NotFound;
        };
        if !meta.is_file() {
            return Answer::NotFound;
        }
        let rel = path
            .strip_prefix(&self.root)
            .map(|r| r.to_string_lossy().replace('\\', "/"))
            .unwrap_or_default();
        let cache_control = cache_control(&rel);
        let mime = mime(&path);
        if meta.len() >= CACHE_FILE_BYTES && (ask.head || ask.range.is_some()) {
            // Too large for the cache: read only the range asked (a pack
            // read in pieces), and nothing for HEAD.
            if let Some(answer) = self.large(&path, &meta, ask, mime, cache_control) {
                return answer;
            }
        }
        let Some(entry) = self.entry(&path, &meta) else {
            return Answer::NotFound;
        };
        let not_modified = ask
            .if_none_match
            .as_deref()
            .is_some_and(|h| none_match(h, &entry.etag));
        let varies = encoding::compressible(mime) && entry.len < CACHE_FILE_BYTES;
        if !not_modified && let Some(r) = &ask.range {
            let ranged = range::ranged(
                r,
                ask.if_range.as_deref(),
                entry.len,
                &entry.etag,
                entry.modified,
            );
            match ranged {
                Ranged::Whole => {}
                Ranged::Unsatisfiable => return Answer::Unsatisfiable { total: entry.len },
                Ranged::Part { start, end } => {
                    // Within the file: end < len, which fits in memory.
                    let body = entry.identity.slice(start as usize..=end as usize);
                    return Answer::Found {
                        length: body.len() as u64,
                        body,
                        encoding: Encoding::Identity,
                        mime,
                        cache_control,
                        etag: entry.etag.clone(),
                        modified: entry.modified,
                        varies,
                        part: Some(Part {
                            start,
                            end,
                            total: entry.len,
                        }),
                    };
                }
            }
        }
        let compressed = if varies {
            entry.variant(ask.accept)
        } else {
            None
        };
        let (body, encoding) = match compressed {
            Some(b) => (b, ask.accept),
            None => (entry.identity.clone(), Encoding::Identity),
        };
        let etag = match encoding {
            Encoding::Identity => entry.etag.clone(),
            Encoding::Brotli => tagged(&entry.etag, "-br"),
            Encoding::Gzip => tagged(&entry.etag, "-gz"),
        };
        if not_modified {
            return Answer::NotModified {
                cache_control,
                etag,
            };
        }
        Answer::Found {
            length: body.len() as u64,
            body,
            encoding,
            mime,
            cache_control,
            etag,
            modified: entry.modified,
            varies,
            part: None,
        }
    }

    /// A HEAD or range request of a file too large for the cache (never
    /// compressed): answered without reading the whole file, or None when
    /// the whole file is to be sent (a range ignored on a GET).
    fn large(
        &self,
        path: &Path,
        meta: &std::fs::Metadata,
        ask: &Ask,
        mime: &'static str,
        cache_control: &'static str,
    ) -> Option<Answer> {
        let total = meta.len();
        let modified = meta.modified().ok();
        let etag = etag_of(total, modified);
        if ask
            .if_none_match
            .as_deref()
            .is_some_and(|h| none_match(h, &etag))
        {
            return Some(Answer::NotModified {
                cache_control,
                etag,
            });
        }
        let ranged = match &ask.range {
            Some(r) => range::ranged(r, ask.if_range.as_deref(), total, &etag, modified),
            None => Ranged::Whole,
        };
        let (start, end, part) = match ranged {
            Ranged::Unsatisfiable => return Some(Answer::Unsatisfiable { total }),
            Ranged::Whole if !ask.head => return None,
            Ranged::Whole => (0, total.saturating_sub(1), None),
            Ranged::Part { start, end } => (start, end, Some(Part { start, end, total })),
        };
        let length = end - start + 1; // total ≥ CACHE_FILE_BYTES > 0
        let body = if ask.head {
            Bytes::new()
        } else {
            // A file that shrank since its size was read: read again whole.
            Bytes::from(read_part(path, start, length).ok()?)
        };
        Some(Answer::Found {
            body,
            length,
            encoding: Encoding::Identity,
            mime,
            cache_control,
            etag,
            modified,
            varies: false,
            part,
        })
    }

    /// The cached entry of a file, reread when its size or time changed.
    fn entry(&self, path: &Path, meta: &std::fs::Metadata) -> Option<Arc<Entry>> {
        let len = meta.len();
        let modified = meta.modified().ok();
        {
            let cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(e) = cache.0.get(path)
                && e.len == len
                && e.modified == modified
            {
                return Some(e.clone());
            }
        }
        let bytes = std::fs::read(path).ok()?;
        let entry = Arc::new(Entry {
            len: bytes.len() as u64,
            modified,
            etag: etag_of(bytes.len() as u64, modified),
            identity: Bytes::from(bytes),
            brotli: OnceLock::new(),
            gzip: OnceLock::new(),
        });
        if entry.len < CACHE_FILE_BYTES {
            // Compressed forms are never larger than the file: count them
            // at most twice more.
            let cost = entry.len as usize
                * if encoding::compressible(mime(path)) {
                    3
                } else {
                    1
                };
            let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
            if cache.1 + cost > CACHE_BYTES {
                // Responses in flight keep their bytes; only the index goes.
                cache.0.clear();
                cache.1 = 0;
            }
            if let Some(old) = cache.0.insert(path.to_path_buf(), entry.clone()) {
                let old_cost = old.len as usize
                    * if encoding::compressible(mime(path)) {
                        3
                    } else {
                        1
                    };
                cache.1 = cache.1.saturating_sub(old_cost);
            }
            cache.1 += cost;
        }
        Some(entry)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_policy_of_hosting_md() {
        let immutable = "public, max-age=31536000, immutable";
        for rel in [
            "ui/registry_ui_bg.0123456789abcdef.wasm",
            "ui/app.0123456789ABCDEF.css",
            "data/registry.fedcba9876543210.shard",
            "data/pieces/0123456789abcdef/un.shard",
            "data/pieces/0123456789abcdef/dir/u.json",
            "registry-data/pieces/0123456789abcdef/first.pack",
        ] {
            assert_eq!(cache_control(rel), immutable, "{rel}");
        }
        for rel in [
            "index.html",
            "sw.js",
            "registry.js",
            "registry-picker.js",
            "data/manifest.json",
            "app-files.json",
            "ui/app.012345.css",
            "data/pieces/0123456789abcdef",
            "pieces/notahash12345678/x.shard",
        ] {
            assert_eq!(cache_control(rel), "no-cache", "{rel}");
        }
    }

    #[test]
    fn paths_stay_under_the_root() {
        let root = Path::new("/srv/site");
        assert_eq!(
            static_path(root, "/pkg/a%20b.js"),
            Some(PathBuf::from("/srv/site/pkg/a b.js"))
        );
        for bad in [
            "/../etc/passwd",
            "/%2e%2e/x",
            "/a/../../b",
            "/a%00b",
            "/a%5cb",
        ] {
            assert_eq!(static_path(root, bad), None, "{bad}");
        }
    }

    #[test]
    fn if_none_match_compares_weakly() {
        let etag = "\"1f-abc\"";
        assert!(none_match("\"1f-abc\"", etag));
        assert!(none_match("W/\"1f-abc\"", etag));
        assert!(none_match("\"x\", \"1f-abc-br\"", etag));
        assert!(none_match("*", etag));
        assert!(!none_match("\"1f-abd\"", etag));
        assert!(!none_match("", etag));
    }
}
