//! Damaged shards give typed errors, never panics or wrong data.

mod common;

use registry_core::shard::{
    self, BuiltShard, FORMAT_VERSION, OLDEST_READABLE_VERSION, SectionKind, ShardError,
};
use registry_core::{Record, Registry};

fn demo() -> Vec<Record> {
    common::import_file(&common::demo_path())
}

/// Offsets to try: every byte of the header region, then a spread.
fn offsets(len: usize) -> Vec<usize> {
    let mut v: Vec<usize> = (0..len.min(256)).collect();
    v.extend((256..len).step_by((len / 400).max(1)));
    v.push(len - 1);
    v
}

#[test]
fn truncation_at_any_offset_is_reported_as_truncation() {
    let bytes = common::shard_bytes(&demo());
    for cut in offsets(bytes.len()) {
        let err = Registry::from_bytes(&bytes[..cut]).unwrap_err();
        let ok = match cut {
            0 => matches!(err, ShardError::NotAShard { .. }),
            _ => matches!(err, ShardError::Truncated { .. }),
        };
        assert!(ok, "cut at {cut}: {err:?}");
        assert!(
            err.to_string().contains("registry build") || cut == 0,
            "{err}"
        );
    }
}

#[test]
fn any_flipped_byte_is_detected() {
    let bytes = common::shard_bytes(&demo());
    for at in offsets(bytes.len()) {
        for mask in [0x01u8, 0x80, 0xff] {
            let mut b = bytes.clone();
            b[at] ^= mask;
            let err = Registry::from_bytes(&b)
                .expect_err(&format!("flip {mask:#x} at {at} went unnoticed"));
            assert!(
                matches!(
                    err,
                    ShardError::NotAShard { .. }
                        | ShardError::UnsupportedVersion { .. }
                        | ShardError::Truncated { .. }
                        | ShardError::TrailingBytes { .. }
                        | ShardError::HeaderChecksum { .. }
                        | ShardError::SectionChecksum { .. }
                ),
                "flip at {at}: {err:?}"
            );
        }
    }
}

#[test]
fn wrong_magic_says_what_the_file_looks_like() {
    let cases: [(&[u8], Option<&str>); 5] = [
        (b"[{\"id\": 1}]", Some("JSON")),
        (&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0], Some("gzip")),
        (b"<!DOCTYPE html><html>", Some("HTML")),
        (b"PK\x03\x04rest-of-zip", Some("zip")),
        (b"just some bytes here", None),
    ];
    for (bytes, hint) in cases {
        let err = Registry::from_bytes(bytes).unwrap_err();
        let ShardError::NotAShard { looks_like } = &err else {
            panic!("{err:?}")
        };
        match hint {
            Some(h) => assert!(looks_like.unwrap().contains(h), "{err}"),
            None => assert!(looks_like.is_none()),
        }
        assert!(err.to_string().contains("registry build"));
    }
}

#[test]
fn a_newer_format_version_asks_for_an_update() {
    let mut bytes = common::shard_bytes(&demo());
    bytes[8..10].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
    let err = Registry::from_bytes(&bytes).unwrap_err();
    assert_eq!(
        err,
        ShardError::UnsupportedVersion {
            found: FORMAT_VERSION + 1,
            oldest: OLDEST_READABLE_VERSION,
            newest: FORMAT_VERSION
        }
    );
    assert!(err.to_string().contains("newer"), "{err}");
    bytes[8..10].copy_from_slice(&0u16.to_le_bytes());
    let err = Registry::from_bytes(&bytes).unwrap_err();
    assert!(err.to_string().contains("older"), "{err}");
}

#[test]
fn trailing_garbage_is_refused() {
    let mut bytes = common::shard_bytes(&demo());
    bytes.extend_from_slice(b"garbage");
    assert_eq!(
        Registry::from_bytes(&bytes).unwrap_err(),
        ShardError::TrailingBytes { extra: 7 }
    );
}

#[test]
fn missing_and_duplicate_sections() {
    let built = shard::build(&demo(), "t", 0, &common::Zstd).unwrap();
    let records_only = built.file(&[SectionKind::Records]);
    assert_eq!(
        Registry::from_bytes(&records_only).unwrap_err(),
        ShardError::MissingSection {
            section: SectionKind::Summary
        }
    );
    let full = built.full_file();
    let names = built.file(&[SectionKind::Names]);
    assert_eq!(
        Registry::from_files(&[&full, &names]).unwrap_err(),
        ShardError::DuplicateSection {
            section: SectionKind::Names
        }
    );
}

/// Replaces one section's raw bytes and recomputes its checksums, so only
/// the decoder's own checks stand between hostile content and a panic.
fn with_section(built: &BuiltShard, kind: SectionKind, raw: Vec<u8>) -> Vec<u8> {
    let mut b = built.clone();
    let s = b
        .sections
        .iter_mut()
        .find(|s| s.entry.kind == kind)
        .unwrap();
    s.entry.raw_len = raw.len() as u64;
    s.entry.stored_len = raw.len() as u64;
    s.entry.stored_crc = common::crc32_reference(&raw);
    s.entry.raw_crc = common::crc32_reference(&raw);
    s.stored = raw;
    b.full_file()
}

#[test]
fn hostile_section_contents_with_valid_checksums_never_panic() {
    let records = demo();
    let built = shard::build(&records, "t", 0, &shard::Stored).unwrap();
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut errors = 0;
    for round in 0..1500 {
        let kind = SectionKind::ALL[round % 3];
        let mut raw = built
            .sections
            .iter()
            .find(|s| s.entry.kind == kind)
            .unwrap()
            .stored
            .clone();
        match next() % 4 {
            0 => {
                let at = (next() as usize) % raw.len();
                raw[at] = next() as u8;
            }
            1 => raw.truncate((next() as usize) % raw.len()),
            2 => {
                let at = (next() as usize) % raw.len();
                raw.insert(at, next() as u8);
            }
            _ => {
                for _ in 0..8 {
                    let at = (next() as usize) % raw.len();
                    raw[at] = 0xff;
                }
            }
        }
        match Registry::from_bytes(&with_section(&built, kind, raw)) {
            Err(e) => {
                errors += 1;
                assert!(
                    e.to_string().contains("registry build")
                        || matches!(e, ShardError::MissingSection { .. }),
                    "{e}"
                );
            }
            // A change can be harmless (a letter in a name): every record must still decode or error cleanly.
            Ok(reg) => (0..reg.len()).for_each(|i| {
                let _ = reg.record(i);
                let _ = reg.summary(i);
            }),
        }
    }
    assert!(
        errors > 500,
        "only {errors} of 1500 mutations were detected"
    );
}

#[test]
fn reopening_a_file_gives_identical_section_files() {
    let built = shard::build(&demo(), "t", 7, &common::Zstd).unwrap();
    let again = shard::reopen(&built.full_file()).unwrap();
    assert_eq!(again.info, built.info);
    for kinds in [
        &SectionKind::ALL[..],
        &[SectionKind::Names],
        &[SectionKind::Summary, SectionKind::Records],
    ] {
        assert_eq!(again.file(kinds), built.file(kinds));
    }
    let mut damaged = built.full_file();
    let last = damaged.len() - 1;
    damaged[last] ^= 1;
    assert!(shard::reopen(&damaged).is_err());
}

/// The step-wise reader (`FileReader`, used to load a page's main-thread
/// instance in slices) agrees with `read_file` on intact files and on
/// damaged zstd streams whose stored checksum was recomputed: same
/// sections, or both an error; never a panic.
#[test]
fn the_stepwise_reader_agrees_with_read_file_on_hostile_zstd_streams() {
    let built = shard::build(&demo(), "t", 0, &common::Zstd).unwrap();
    let read_in_steps = |bytes: &[u8]| {
        let mut r = shard::FileReader::new(bytes.to_vec())?;
        while !r.step(700)? {}
        r.finish()
    };
    let intact = built.full_file();
    let (a, b) = (
        shard::read_file(&intact).unwrap(),
        read_in_steps(&intact).unwrap(),
    );
    assert_eq!(a.sections, b.sections);
    let mut rng = common::Rng(0x2545_F491_4F6C_DD1D);
    let (mut both_err, mut both_ok) = (0, 0);
    for round in 0..600 {
        let mut b = built.clone();
        let s = &mut b.sections[round % 3];
        let at = (rng.next() as usize) % s.stored.len();
        match rng.next() % 3 {
            0 => s.stored[at] = rng.next() as u8,
            1 => s.stored.truncate(at),
            _ => s.stored.insert(at, rng.next() as u8),
        }
        s.entry.stored_len = s.stored.len() as u64;
        s.entry.stored_crc = common::crc32_reference(&s.stored);
        let file = b.full_file();
        match (shard::read_file(&file), read_in_steps(&file)) {
            (Ok(x), Ok(y)) => {
                assert_eq!(x.sections, y.sections, "round {round}");
                both_ok += 1;
            }
            (Err(_), Err(_)) => both_err += 1,
            (x, y) => panic!(
                "round {round}: read_file {:?} vs steps {:?}",
                x.err(),
                y.err()
            ),
        }
    }
    assert!(both_err > 400, "{both_err} errors, {both_ok} harmless");
}
