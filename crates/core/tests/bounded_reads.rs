//! Readers that trust no size: a claimed length, count or decompressed
//! size is bounded by what the input can hold, so a few crafted bytes get a
//! typed error without the reader reserving what they claim. Peak heap is
//! measured by a counting allocator (per thread, so tests running side by
//! side do not add up).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use registry_core::container;
use registry_core::crc32::crc32;
use registry_core::shard::{self, MAGIC, SectionKind, ShardError};
use registry_core::{Registry, registry::RegistryLoader};

struct Counting;

thread_local! {
    static CURRENT: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn count(delta: isize) {
    let _ = CURRENT.try_with(|c| {
        let now = c.get() + delta;
        c.set(now);
        let _ = PEAK.try_with(|p| p.set(p.get().max(now)));
    });
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            count(layout.size() as isize);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        count(-(layout.size() as isize));
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            count(new_size as isize - layout.size() as isize);
        }
        p
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Runs `f` and returns its result and the most heap it held at once above
/// what this thread held before.
fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = CURRENT.with(Cell::get);
    PEAK.with(|p| p.set(base));
    let out = f();
    let peak = PEAK.with(Cell::get) - base;
    (out, peak.max(0) as usize)
}

const MB: usize = 1 << 20;
const BUDGET: usize = 100 * MB;

fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// One section as the header describes it: kind and codec codes, claimed
/// decompressed length, stored bytes (the CRCs are computed: only the
/// claims are crafted, so the reader gets past its checksums).
struct Section<'a> {
    kind: u8,
    codec: u8,
    raw_len: u64,
    stored_len: Option<u64>,
    stored: &'a [u8],
    raw_crc: u32,
}

fn section(kind: SectionKind, raw: &[u8]) -> Section<'_> {
    let kind = match kind {
        SectionKind::Summary => 1,
        SectionKind::Names => 2,
        SectionKind::Records => 3,
        SectionKind::Domains => 4,
        SectionKind::ExactWords => 5,
        SectionKind::SearchStats => 6,
        SectionKind::TermMembers => 7,
        SectionKind::TermGroups => 8,
        SectionKind::SearchTerms => 9,
    };
    Section {
        kind,
        codec: 0,
        raw_len: raw.len() as u64,
        stored_len: None,
        stored: raw,
        raw_crc: crc32(raw),
    }
}

/// A format-2 container (release "", build time 0, build id 0) with the
/// given record count and sections.
fn container(record_count: u64, sections: &[Section]) -> Vec<u8> {
    let mut h = vec![0u8, 0]; // release "", build time 0
    varint(&mut h, record_count);
    h.extend([0u8; 8]);
    varint(&mut h, sections.len() as u64);
    for s in sections {
        h.push(s.kind);
        h.push(s.codec);
        varint(&mut h, s.raw_len);
        varint(&mut h, s.stored_len.unwrap_or(s.stored.len() as u64));
        h.extend(crc32(s.stored).to_le_bytes());
        h.extend(s.raw_crc.to_le_bytes());
    }
    let mut out = MAGIC.to_vec();
    out.extend(shard::FORMAT_VERSION.to_le_bytes());
    out.extend((h.len() as u32).to_le_bytes());
    out.extend(h);
    out.extend(crc32(&out).to_le_bytes());
    for s in sections {
        out.extend(s.stored);
    }
    out
}

/// A zstd frame of one raw block holding `content`, whose header states a
/// window of 2^`window_log` bytes.
fn zstd_frame(window_log: u8, content: &[u8]) -> Vec<u8> {
    let mut f = vec![0x28, 0xb5, 0x2f, 0xfd];
    f.push(0x00); // no content size, a window descriptor, no checksum
    f.push((window_log - 10) << 3);
    let header = (content.len() as u32) << 3 | 1; // last block, raw
    f.extend(&header.to_le_bytes()[..3]);
    f.extend(content);
    f
}

/// The shard the issue describes: 59 bytes whose one section claims 2 GiB
/// decompressed. Readers used to reserve the claim before decoding (peak
/// RSS 2.1 GB, then an error).
fn claims_two_gib() -> Vec<u8> {
    let bytes = zstd_summary(&zstd_frame(10, b"abcd"), 1 << 31, 0);
    assert_eq!(bytes.len(), 59);
    bytes
}

/// A file of one record whose summary is the zstd frame `frame`, said to
/// hold `raw_len` bytes of CRC `raw_crc`.
fn zstd_summary(frame: &[u8], raw_len: u64, raw_crc: u32) -> Vec<u8> {
    let summary = Section {
        codec: 1,
        raw_len,
        raw_crc,
        ..section(SectionKind::Summary, frame)
    };
    container(1, &[summary])
}

fn assert_claim_refused(err: &ShardError) {
    let ShardError::Oversized {
        section: SectionKind::Summary,
        claimed,
        stored,
        limit,
    } = *err
    else {
        panic!("expected Oversized, got {err:?}");
    };
    assert_eq!((claimed, stored), (1 << 31, 13));
    assert!(limit < claimed, "{limit}");
    assert!(err.to_string().contains("claims 2147483648 bytes"), "{err}");
}

#[test]
fn a_59_byte_shard_claiming_2_gib_is_refused_within_100_mb() {
    let bytes = claims_two_gib();
    let (result, peak) = peak_of(|| Registry::from_bytes(&bytes));
    println!("59-byte shard claiming 2 GiB: Registry::from_bytes peak heap {peak} bytes");
    assert_claim_refused(&result.unwrap_err());
    assert!(peak <= BUDGET, "peak heap {peak} bytes");
    // The header alone (`registry info`) and the sliced loader the page
    // uses refuse it the same way.
    assert_claim_refused(&shard::read_header(&bytes).unwrap_err());
    let (result, peak) = peak_of(|| RegistryLoader::new(vec![bytes.clone()]));
    assert_claim_refused(&result.err().unwrap());
    assert!(peak <= BUDGET, "peak heap {peak} bytes");
}

#[test]
fn a_zstd_window_larger_than_its_section_is_refused_before_it_is_reserved() {
    // 128 MiB window for a section of 3 bytes: the decoder reserves the
    // window when it reads the frame header.
    let bytes = zstd_summary(&zstd_frame(27, b"abc"), 3, crc32(b"abc"));
    for sliced in [false, true] {
        let (result, peak) = peak_of(|| match sliced {
            false => shard::read_file(&bytes).map(drop),
            true => RegistryLoader::new(vec![bytes.clone()]).and_then(|l| l.finish().map(drop)),
        });
        let err = result.unwrap_err();
        assert!(
            matches!(
                err,
                ShardError::Decompress {
                    section: SectionKind::Summary,
                    ..
                }
            ),
            "{err:?}"
        );
        assert!(peak <= 16 * MB, "sliced {sliced}: peak heap {peak} bytes");
    }
    // The same frame with a window that fits is read.
    let ok = zstd_summary(&zstd_frame(10, b"abc"), 3, crc32(b"abc"));
    let file = shard::read_file(&ok).unwrap();
    assert_eq!(file.sections[0].1, b"abc");
}

#[test]
fn an_uncompressed_section_says_its_own_length() {
    let bytes = container(
        1,
        &[Section {
            raw_len: 1 << 20,
            ..section(SectionKind::Summary, b"abc")
        }],
    );
    let err = Registry::from_bytes(&bytes).unwrap_err();
    assert!(matches!(err, ShardError::BadHeader { .. }), "{err:?}");
    assert!(err.to_string().contains("says it holds 1048576"), "{err}");
}

#[test]
fn stored_lengths_near_2_64_are_refused_without_overflow() {
    // Two sections of 2^63 bytes each: their sum wrapped to 0.
    let sections = [SectionKind::Summary, SectionKind::Names].map(|k| Section {
        stored_len: Some(1 << 63),
        raw_len: 0,
        ..section(k, b"")
    });
    let bytes = container(0, &sections);
    let err = Registry::from_bytes(&bytes).unwrap_err();
    assert!(matches!(err, ShardError::Truncated { .. }), "{err:?}");
}

/// Summary bytes (format 2) for records with the given id deltas, all
/// active, with no types, places or successors.
fn summary(deltas: &[u64]) -> Vec<u8> {
    let mut s = Vec::new();
    varint(&mut s, deltas.len() as u64);
    deltas.iter().for_each(|&d| varint(&mut s, d));
    s.extend(deltas.iter().map(|_| 0u8)); // status: active
    s.push(0); // type table
    s.extend(deltas.iter().map(|_| 0u8)); // type counts
    s.extend([0, 0, 0]); // cities, countries, continents
    s.extend(deltas.iter().map(|_| 0u8)); // location counts
    s.extend(deltas.iter().map(|_| 0u8)); // successor counts
    s.extend(deltas.iter().map(|_| 128u8)); // priors
    s
}

/// Names bytes: no name kinds, no names.
fn no_names(records: usize) -> Vec<u8> {
    let mut n = vec![0u8];
    n.extend(std::iter::repeat_n(0u8, records));
    n
}

#[test]
fn an_id_delta_near_2_64_is_refused_not_wrapped() {
    // The second id is 6 + (2^64 - 4): it used to overflow (a panic in
    // debug builds, id 2 after id 5 in release builds).
    let s = summary(&[5, u64::MAX - 3]);
    let n = no_names(2);
    let bytes = container(
        2,
        &[
            section(SectionKind::Summary, &s),
            section(SectionKind::Names, &n),
        ],
    );
    let err = Registry::from_bytes(&bytes).unwrap_err();
    let ShardError::Malformed {
        section: SectionKind::Summary,
        what,
        ..
    } = &err
    else {
        panic!("{err:?}")
    };
    assert!(what.contains("identifier out of range"), "{err}");
    // Deltas that stay in range load.
    let s = summary(&[5, 3]);
    let ok = container(
        2,
        &[
            section(SectionKind::Summary, &s),
            section(SectionKind::Names, &n),
        ],
    );
    let r = Registry::from_bytes(&ok).unwrap();
    assert_eq!((r.id(0).number(), r.id(1).number()), (5, 9));
}

#[test]
fn a_type_index_beyond_u16_is_refused_not_truncated() {
    // 65,537 distinct types, and a record of type 65,536: stored as u16 it
    // used to become type 0.
    let mut s = Vec::new();
    varint(&mut s, 1);
    varint(&mut s, 7); // id
    s.push(0); // active
    varint(&mut s, 65_537);
    for t in 0..65_537u32 {
        let name = format!("t{t}");
        varint(&mut s, name.len() as u64);
        s.extend(name.as_bytes());
    }
    varint(&mut s, 1);
    varint(&mut s, 65_536);
    s.extend([0, 0, 0, 0, 0, 128]);
    let n = no_names(1);
    let bytes = container(
        1,
        &[
            section(SectionKind::Summary, &s),
            section(SectionKind::Names, &n),
        ],
    );
    match Registry::from_bytes(&bytes) {
        Err(ShardError::Malformed { what, .. }) => assert!(what.contains("type index"), "{what}"),
        Err(e) => panic!("{e:?}"),
        Ok(r) => panic!("read as type {:?}", r.types(0).collect::<Vec<_>>()),
    }
}

#[test]
fn front_coded_exact_words_cannot_spell_more_than_their_encoding_allows() {
    use registry_core::shard::pieces::ExactWords;
    // A 20,000-byte word, then 10,000 entries of 5 bytes that each repeat
    // it whole plus one letter: 100 KB spelling 200 MB.
    let mut b = Vec::new();
    varint(&mut b, 40);
    varint(&mut b, 10_001);
    varint(&mut b, 0);
    varint(&mut b, 20_000);
    b.extend(std::iter::repeat_n(b'a', 20_000));
    for i in 0..10_000u64 {
        varint(&mut b, 20_000 + i);
        varint(&mut b, 1);
        b.push(b'a');
    }
    let (result, peak) = peak_of(|| ExactWords::decode(&b).map(|w| w.encode().len()));
    let err = result.expect_err("decoded");
    assert!(err.to_string().contains("64 times"), "{err}");
    assert!(peak <= 16 * MB, "peak heap {peak} bytes");
}

#[test]
fn a_gzip_bomb_stops_at_the_size_its_trailer_states() {
    // 64 MiB of zeros deflate to ~64 KB; the trailer says 100 bytes.
    let zeros = vec![0u8; 64 * MB];
    let deflated = miniz_oxide::deflate::compress_to_vec(&zeros, 6);
    drop(zeros);
    let mut gz = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
    gz.extend(&deflated);
    gz.extend(0u32.to_le_bytes());
    gz.extend(100u32.to_le_bytes());
    let (result, peak) = peak_of(|| container::gunzip(&gz));
    assert!(matches!(result, Err(container::ContainerError::BadGzip(_))));
    assert!(peak <= MB, "peak heap {peak} bytes");
}

#[test]
fn a_zip_directory_count_is_bounded_by_the_file() {
    // An end-of-central-directory record alone, claiming 65,535 entries.
    let mut zip = 0x0605_4b50u32.to_le_bytes().to_vec();
    zip.extend([0, 0, 0, 0]);
    zip.extend(65_535u16.to_le_bytes());
    zip.extend(65_535u16.to_le_bytes());
    zip.extend([0; 10]);
    let (result, peak) = peak_of(|| container::unzip_dump(&zip));
    assert!(matches!(result, Err(container::ContainerError::BadZip(_))));
    assert!(peak <= 64 << 10, "peak heap {peak} bytes");
}
