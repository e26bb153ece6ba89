//! The demo registry every target works on.

use std::collections::HashMap;
use std::sync::OnceLock;

use registry_core::pieces::{self, PieceBudget, PieceKind, PieceSpec};
use registry_core::search::Engine;
use registry_core::shard::{self, BuiltShard, Stored};
use registry_core::{Record, RecordId, Registry, import};

/// The 63 fictional records of `data/demo/`.
pub const DEMO_JSON: &[u8] = include_bytes!("../../../data/demo/registry-demo.json");

/// Pieces small enough that the demo has split prefixes, heads with exact
/// words and several leaves per first character.
pub const BUDGET: PieceBudget = PieceBudget {
    raw_bytes: 1024,
    head_records: 4,
    exact_words_bytes: 256,
};

/// The demo data, built once.
pub struct Demo {
    /// The records in registry order (by id).
    pub records: Vec<Record>,
    /// The whole registry.
    pub engine: Engine,
    /// Its shard, uncompressed sections.
    pub built: BuiltShard,
    /// Its pieces under [`BUDGET`].
    pub specs: Vec<PieceSpec>,
    /// Each piece's file, by kind ([`PieceKind::code`]) and prefix.
    pub piece_files: HashMap<(&'static str, String), Vec<u8>>,
}

impl Demo {
    /// The split prefixes (what directory parts list).
    pub fn split_keys(&self) -> impl Iterator<Item = &str> {
        self.specs
            .iter()
            .filter(|s| s.kind == PieceKind::Head)
            .map(|s| s.key.as_str())
    }

    /// The first characters with split prefixes (what the manifest lists).
    pub fn split_firsts(&self) -> Vec<String> {
        let mut firsts: Vec<String> = self
            .split_keys()
            .map(|k| pieces::first_char(k).to_string())
            .collect();
        firsts.sort();
        firsts.dedup();
        firsts
    }

    /// The leaves and heads (kind and prefix), in partition order: what
    /// the `pieces` target's second byte picks from for a piece file.
    pub fn term_pieces(&self) -> Vec<(PieceKind, &str)> {
        self.specs
            .iter()
            .filter(|s| s.kind != PieceKind::Id)
            .map(|s| (s.kind, s.key.as_str()))
            .collect()
    }

    /// The keys of the pieces of `kind`, in partition order.
    pub fn keys(&self, kind: PieceKind) -> Vec<&str> {
        self.specs
            .iter()
            .filter(|s| s.kind == kind)
            .map(|s| s.key.as_str())
            .collect()
    }
}

/// The demo data (built on first use).
pub fn demo() -> &'static Demo {
    static DEMO: OnceLock<Demo> = OnceLock::new();
    DEMO.get_or_init(|| {
        let mut records = import::import_dump(DEMO_JSON, Default::default(), &mut |_, _| {})
            .expect("the demo imports")
            .records;
        records.sort_by_key(|r| RecordId::parse(&r.id).ok());
        let built = shard::build(&records, "demo", 0, &Stored).expect("the demo builds");
        let engine = Engine::new(Registry::from_bytes(&built.full_file()).expect("the demo loads"));
        let specs = pieces::partition(&engine, &BUDGET);
        let piece_files = specs
            .iter()
            .map(|s| {
                let subset: Vec<Record> = s
                    .records
                    .iter()
                    .map(|&i| records[i as usize].clone())
                    .collect();
                let file = pieces::piece_file(s, &subset, "demo", 0, &Stored)
                    .expect("the demo's pieces build");
                ((s.kind.code(), s.key.clone()), file)
            })
            .collect();
        Demo {
            records,
            engine,
            built,
            specs,
            piece_files,
        }
    })
}
