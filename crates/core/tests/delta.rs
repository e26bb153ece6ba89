//! Deltas between releases (`shard::delta`): exact, small, and refused
//! whole when they do not fit.

mod common;

use common::{Rng, Zstd, import_file};
use registry_core::shard::delta::{self, DeltaError};
use registry_core::shard::{self, Stored};
use registry_core::{Record, Registry};

fn image(records: &[Record], release: &str) -> Vec<u8> {
    let built = shard::build(records, release, 1_700_000_000, &Zstd).unwrap();
    delta::stored_image(&built.full_file()).unwrap()
}

/// The demo's next release: an alias added to every 7th record, a link
/// changed on every 11th, one record added and one withdrawn from the file.
fn next_release(mut records: Vec<Record>) -> Vec<Record> {
    for (i, r) in records.iter_mut().enumerate() {
        if i % 7 == 3 {
            let mut alias = r.names[0].clone();
            alias.types = vec!["alias".into()];
            alias.value.push_str(" (new alias)");
            r.names.push(alias);
        }
        if i % 11 == 5
            && let Some(link) = r.links.first_mut()
        {
            link.value.push_str("/new");
        }
    }
    let mut added = records[1].clone();
    added.id = "https://ror.org/05zzzzz40".into();
    added.names[0].value = "Added Institute of Delta Tests".into();
    records.remove(4);
    records.push(added);
    records
}

#[test]
fn a_delta_makes_the_next_release_byte_for_byte_and_is_small() {
    let old = import_file(&common::demo_path());
    let (a, b) = (image(&old, "A"), image(&next_release(old.clone()), "B"));
    let d = delta::write(&a, &b, &Zstd);
    assert_eq!(delta::apply(&a, &d, b.len() as u64).unwrap(), b);
    assert!(
        d.len() * 4 < b.len(),
        "delta {} of {} bytes",
        d.len(),
        b.len()
    );
    // The image is a shard file: it loads as the compressed one does.
    let registry = Registry::from_bytes(&b).unwrap();
    assert_eq!(registry.info().release, "B");
    assert_eq!(registry.len(), old.len());
}

#[test]
fn the_stored_image_loads_like_the_file_and_is_its_own_image() {
    let records = import_file(&common::demo_path());
    let file = shard::build(&records, "A", 1, &Zstd).unwrap().full_file();
    let img = delta::stored_image(&file).unwrap();
    assert_eq!(delta::stored_image(&img).unwrap(), img);
    let stored = shard::build(&records, "A", 1, &Stored).unwrap().full_file();
    assert_eq!(
        img, stored,
        "the image is what a build without compression writes"
    );
    let (x, y) = (
        Registry::from_bytes(&file).unwrap(),
        Registry::from_bytes(&img).unwrap(),
    );
    for i in 0..x.len() {
        assert_eq!(x.record(i).unwrap(), y.record(i).unwrap());
    }
    assert!(delta::stored_image(b"not a shard").is_err());
}

#[test]
fn random_edits_round_trip() {
    let mut rng = Rng(0x5eed);
    for round in 0..40 {
        let len = 1 + rng.below(20_000);
        let source: Vec<u8> = (0..len)
            .map(|_| (rng.below(if round % 2 == 0 { 256 } else { 4 })) as u8)
            .collect();
        let mut target = source.clone();
        for _ in 0..rng.below(30) {
            let at = rng.below(target.len() + 1);
            match rng.below(3) {
                0 => {
                    let n = rng.below(40);
                    let new: Vec<u8> = (0..n).map(|_| rng.below(256) as u8).collect();
                    target.splice(at..at, new);
                }
                1 => {
                    let end = (at + rng.below(60)).min(target.len());
                    target.drain(at..end);
                }
                _ => {
                    // A run moved from elsewhere in the source.
                    let from = rng.below(source.len());
                    let end = (from + rng.below(100)).min(source.len());
                    target.splice(at..at, source[from..end].iter().copied());
                }
            }
        }
        for codec in [&Zstd as &dyn shard::Compressor, &Stored] {
            let d = delta::write(&source, &target, codec);
            assert_eq!(
                delta::apply(&source, &d, u64::MAX).unwrap(),
                target,
                "round {round}"
            );
        }
    }
    // Empty files either side.
    for (s, t) in [(&b""[..], &b"abc"[..]), (b"abc", b""), (b"", b"")] {
        assert_eq!(delta::apply(s, &delta::write(s, t, &Zstd), 10).unwrap(), t);
    }
}

#[test]
fn a_delta_for_another_file_is_refused() {
    let (a, b) = (
        b"the first release's bytes".repeat(50),
        b"the second release's bytes".repeat(50),
    );
    let d = delta::write(&a, &b, &Zstd);
    let other = b"another file entirely".repeat(50);
    let e = delta::apply(&other, &d, u64::MAX).unwrap_err();
    assert!(matches!(e, DeltaError::WrongSource { .. }), "{e}");
    assert!(e.to_string().contains("download the full file"), "{e}");
    assert_eq!(
        delta::apply(&a, &a, u64::MAX).unwrap_err(),
        DeltaError::NotADelta
    );
    let e = delta::apply(&a, &d, 100).unwrap_err();
    assert_eq!(
        e,
        DeltaError::TooLarge {
            claimed: b.len() as u64,
            limit: 100
        }
    );
}

#[test]
fn a_damaged_delta_is_refused_never_applied_wrong() {
    let old = import_file(&common::demo_path());
    let (a, b) = (
        image(&old[..20], "A"),
        image(&next_release(old[..20].to_vec()), "B"),
    );
    for codec in [&Zstd as &dyn shard::Compressor, &Stored] {
        let d = delta::write(&a, &b, codec);
        // Every byte flipped, every length cut: an error, or (a flip the
        // ops cannot tell, e.g. a literal byte) still never a wrong result.
        for i in 0..d.len() {
            let mut bad = d.clone();
            bad[i] ^= 0x41;
            match delta::apply(&a, &bad, u64::MAX) {
                Ok(out) => assert_eq!(out, b, "byte {i} flipped gave a wrong result"),
                Err(e) => assert!(!e.to_string().is_empty()),
            }
        }
        for cut in 0..d.len() {
            assert!(
                delta::apply(&a, &d[..cut], u64::MAX).is_err(),
                "cut at {cut}"
            );
        }
    }
}

#[test]
fn a_delta_claiming_a_huge_result_or_ops_allocates_nothing() {
    // Headers stating a 1 TB result, or 1 TB of ops, over four stored bytes.
    let forged = |target_len: u64, ops_len: u64| {
        let mut h = Vec::new();
        let varint = |out: &mut Vec<u8>, mut v: u64| {
            while v >= 0x80 {
                out.push(v as u8 | 0x80);
                v >>= 7;
            }
            out.push(v as u8);
        };
        varint(&mut h, 3);
        h.extend_from_slice(&common::crc32_reference(b"abc").to_le_bytes());
        varint(&mut h, target_len);
        h.extend_from_slice(&0u32.to_le_bytes());
        h.push(1);
        varint(&mut h, ops_len);
        varint(&mut h, 4);
        let mut d = delta::DELTA_MAGIC.to_vec();
        d.extend_from_slice(&delta::DELTA_VERSION.to_le_bytes());
        d.extend_from_slice(&(h.len() as u32).to_le_bytes());
        d.extend_from_slice(&h);
        let crc = common::crc32_reference(&d);
        d.extend_from_slice(&crc.to_le_bytes());
        d.extend_from_slice(&[0x28, 0xb5, 0x2f, 0xfd]);
        d
    };
    let huge_result = forged(1 << 40, 100);
    let e = delta::apply(b"abc", &huge_result, u64::MAX).unwrap_err();
    assert!(
        matches!(e, DeltaError::TooLarge { limit, .. } if limit == delta::MAX_TARGET_BYTES),
        "{e}"
    );
    let e = delta::apply(b"abc", &huge_result, 1000).unwrap_err();
    assert_eq!(
        e,
        DeltaError::TooLarge {
            claimed: 1 << 40,
            limit: 1000
        }
    );
    let huge_ops = forged(10, 1 << 40);
    assert!(matches!(
        delta::read_header(&huge_ops),
        Err(DeltaError::Damaged { .. })
    ));
    assert!(matches!(
        delta::apply(b"abc", &forged(10, 100), 10),
        Err(DeltaError::Damaged { .. })
    ));
}

/// `compat/delta-1.delta` turns the stored image of `compat/format-2.shard`
/// into a release with one alias more: version 1 deltas keep applying.
#[test]
fn the_version_1_delta_fixture_still_applies() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/compat");
    let source = delta::stored_image(&std::fs::read(dir.join("format-2.shard")).unwrap()).unwrap();
    let d = std::fs::read(dir.join("delta-1.delta")).unwrap();
    let next = delta::apply(&source, &d, u64::MAX).unwrap();
    let registry = Registry::from_bytes(&next).unwrap();
    assert_eq!(registry.info().release, "compat-delta-1");
    let aliases: usize = (0..registry.len())
        .map(|i| registry.names(i).filter(|n| n.is_alias()).count())
        .sum();
    let before = Registry::from_bytes(&source).unwrap();
    let aliases_before: usize = (0..before.len())
        .map(|i| before.names(i).filter(|n| n.is_alias()).count())
        .sum();
    assert_eq!(aliases, aliases_before + 1);
}

/// Writes `compat/delta-1.delta` (run once, when the fixture is made:
/// `cargo test -p registry-core --test delta -- --ignored`).
#[test]
#[ignore]
fn write_the_delta_fixture() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/compat");
    let source = delta::stored_image(&std::fs::read(dir.join("format-2.shard")).unwrap()).unwrap();
    let registry = Registry::from_bytes(&source).unwrap();
    let mut records: Vec<Record> = (0..registry.len())
        .map(|i| registry.record(i).unwrap())
        .collect();
    let mut alias = records[0].names[0].clone();
    alias.types = vec!["alias".into()];
    alias.value = "Delta Fixture Alias".into();
    records[0].names.push(alias);
    let target = image(&records, "compat-delta-1");
    std::fs::write(
        dir.join("delta-1.delta"),
        delta::write(&source, &target, &Zstd),
    )
    .unwrap();
}

/// A build that keeps the last release's table orders holds the same
/// records, and its delta is smaller: a string table reordered by new use
/// counts moves every reference after a moved value.
#[test]
fn keeping_the_table_orders_keeps_the_records_and_shrinks_the_delta() {
    let old = import_file(&common::demo_path());
    // A new release where a rare type becomes the most used one: a table
    // ordered by use moves it to the front.
    let mut next = next_release(old.clone());
    for r in next.iter_mut().step_by(2) {
        r.types = vec!["archive".into()];
    }
    let a_file = shard::build(&old, "A", 1, &Zstd).unwrap().full_file();
    let a = delta::stored_image(&a_file).unwrap();
    let parsed = shard::read_file(&a_file).unwrap();
    let orders = shard::TableOrders::read(&parsed.sections, parsed.info.record_count, 2).unwrap();
    let kinds = shard::SectionKind::ALL;
    let kept = shard::build_after(&next, "B", 1, &Zstd, &kinds, &orders).unwrap();
    let fresh = shard::build(&next, "B", 1, &Zstd).unwrap();
    let (x, y) = (
        Registry::from_bytes(&kept.full_file()).unwrap(),
        Registry::from_bytes(&fresh.full_file()).unwrap(),
    );
    for i in 0..x.len() {
        assert_eq!(x.record(i).unwrap(), y.record(i).unwrap());
    }
    let size = |b: &shard::BuiltShard| {
        delta::write(&a, &delta::stored_image(&b.full_file()).unwrap(), &Zstd).len()
    };
    assert!(
        size(&kept) < size(&fresh),
        "kept {} fresh {}",
        size(&kept),
        size(&fresh)
    );
}
