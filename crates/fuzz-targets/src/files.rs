//! Targets over shard files: whole files, and section payloads inside a
//! valid container (so the fuzzer reaches the section decoders instead of
//! stopping at a checksum).

use registry_core::Registry;
use registry_core::registry::RegistryLoader;
use registry_core::search::{Engine, Filters};
use registry_core::shard::{self, SectionKind, Stored};

use crate::SECTION_KINDS;
use crate::data::demo;
use crate::pieces;

/// Any bytes as a shard file: `read_file` and the sliced loader the page
/// uses agree (same registry or the same error), a file that reads is
/// written back unchanged by `reopen`, and a registry that loads answers
/// every accessor and query without failing.
pub fn shard(data: &[u8]) {
    let _ = shard::read_header(data);
    let whole = Registry::from_bytes(data);
    let sliced = RegistryLoader::new(vec![data.to_vec()]).and_then(|mut loader| {
        while !loader.step(333)? {}
        loader.finish()
    });
    match (&whole, &sliced) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a.len(), b.len());
            assert!((0..a.len()).all(|i| a.id(i) == b.id(i)));
        }
        (Err(a), Err(b)) => assert_eq!(a, b, "the whole and the sliced reader disagree"),
        (a, b) => panic!(
            "the whole and the sliced reader disagree: {:?} vs {:?}",
            a.as_ref().err(),
            b.as_ref().err()
        ),
    }
    if let Ok(file) = shard::read_file(data) {
        let built = shard::reopen(data).expect("a file that reads reopens");
        let kinds: Vec<SectionKind> = built.sections.iter().map(|s| s.entry.kind).collect();
        let again = shard::read_file(&built.file(&kinds)).expect("a reopened file reads");
        assert_eq!(again.sections, file.sections);
        assert_eq!(again.info, file.info);
    }
    if let Ok(registry) = whole {
        exercise(registry);
    }
}

/// The input's first byte picks a section kind ([`SECTION_KINDS`], low
/// three bits) and the format version (bit 3: version 1), the rest is that
/// section's payload, stored uncompressed with valid checksums in the demo
/// shard in place of its own (an `exact_words` payload goes into a head
/// piece, read by the pieces client).
pub fn sections(data: &[u8]) {
    let Some((&selector, payload)) = data.split_first() else {
        return;
    };
    let kind = SECTION_KINDS[(selector & 7) as usize % SECTION_KINDS.len()];
    if kind == SectionKind::ExactWords {
        return pieces::head_with_exact_words(payload);
    }
    let mut built = demo().built.clone();
    built.info.format_version = if selector & 8 != 0 { 1 } else { 2 };
    built.push_section(kind, payload, &Stored);
    if let Ok(registry) = Registry::from_bytes(&built.full_file()) {
        exercise(registry);
    }
}

/// Every accessor of every record, then a few queries: a registry that
/// loaded has been checked whole, so nothing here may fail.
pub(crate) fn exercise(registry: Registry) {
    for i in 0..registry.len() {
        let _ = registry.summary(i);
        let _ = registry.domains(i);
        let _ = registry.prior(i);
        if registry.has_records() {
            let record = registry
                .record(i)
                .expect("records were checked when they loaded");
            let ids = registry.external_ids(i).expect("checked at load");
            assert_eq!(ids, record.external_ids);
            let mut values = 0;
            registry
                .for_each_external_id(i, |_| values += 1)
                .expect("checked at load");
            assert!(values >= ids.iter().map(|e| e.all.len()).sum::<usize>());
        }
    }
    let engine = Engine::new(registry);
    for q in ["a", "univ", "0", "de la"] {
        let _ = engine.suggest(q, &Filters::default(), 5);
    }
    for path in [
        "/v2/organizations",
        "/v2/organizations?query=university",
        "/v1/organizations?affiliation=university",
        "/v2/organizations?query.advanced=names.value:a*",
    ] {
        let r = engine.handle(path);
        assert!(
            matches!(r.status, 200 | 400 | 404 | 503),
            "{path}: {}",
            r.status
        );
    }
}
