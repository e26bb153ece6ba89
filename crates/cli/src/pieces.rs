//! The partitioned typeahead index on disk ([`registry_core::pieces`]):
//! `pieces/<build id>/<hex of the prefix>.shard` (leaves) and
//! `….h.shard` (heads of split prefixes), plus one directory part per first
//! character, `pieces/<build id>/d-<hex of the character>.json`, listing
//! the split prefixes that start with it. The build id is in every path,
//! so each file is immutable; the manifest gives the path and the first
//! characters that have a part.
//!
//! `registry bench-pieces <dump>` prints piece counts and sizes and the data
//! bytes a typeahead client receives before its first suggestion.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use registry_core::pieces::search::{ListQuery, Need, SearchAnswer, SearchClient, search_pieces};
use registry_core::pieces::{self, Answer, Directory, PieceBudget, PieceClient, PieceKind};
use registry_core::search::{Engine, SuggestContext, Version};
use registry_core::shard::{self, BuiltShard, SectionKind};
use registry_core::{Record, Registry};

use crate::encoders::{Zstd, sha256_hex};
use crate::load;
use crate::out_file::OutFile;
use crate::stats::percentile;

const KINDS: [SectionKind; 2] = [SectionKind::Summary, SectionKind::Names];

/// File name of a piece, relative to the data directory.
pub fn piece_name(build_id: u64, key: &str, kind: PieceKind) -> String {
    let hex: String = key.bytes().map(|b| format!("{b:02x}")).collect();
    match kind {
        PieceKind::Leaf => format!("pieces/{build_id:016x}/{hex}.shard"),
        PieceKind::Head => format!("pieces/{build_id:016x}/{hex}.h.shard"),
        // Ids are ASCII digits and letters: the key as it is.
        PieceKind::Id => format!("pieces/{build_id:016x}/i-{key}.shard"),
    }
}

/// File name of the record piece of key `key` ([`shard::pieces::record_key`]).
pub fn record_piece_name(build_id: u64, key: &str) -> String {
    format!("pieces/{build_id:016x}/r-{key}.shard")
}

/// File name of the record card of key `key`: the summaries (the shape a
/// suggestion's `summary` has) of the records of that record piece, as
/// JSON, which a record page reads to paint the name before any wasm.
pub fn record_card_name(build_id: u64, key: &str) -> String {
    format!("pieces/{build_id:016x}/r-{key}.json")
}

/// File name of the directory part of first character `first`.
pub fn part_name(build_id: u64, first: &str) -> String {
    let hex: String = first.bytes().map(|b| format!("{b:02x}")).collect();
    format!("pieces/{build_id:016x}/d-{hex}.json")
}

/// The written pieces: piece files, then the directory parts, and what
/// the manifest says.
pub struct Written {
    pub files: Vec<OutFile>,
    /// The files of E2 over pieces (term pieces, rank chunks, members,
    /// statistics).
    pub search: Vec<OutFile>,
    pub manifest: registry_contract::Pieces,
    pub specs: Vec<pieces::PieceSpec>,
}

/// The piece budget of `build` and `site`, defaults aside.
#[derive(clap::Args)]
pub struct PieceArgs {
    /// Raw bytes a typeahead leaf may hold (default 49152; a small value
    /// splits a small registry, for tests)
    #[arg(long, value_name = "n", value_parser = at_least(256))]
    piece_bytes: Option<usize>,
    /// Records in the head of a split prefix (default 40)
    #[arg(long, value_name = "n", value_parser = at_least(10))]
    head: Option<usize>,
}

impl PieceArgs {
    pub fn budget(&self) -> PieceBudget {
        let d = PieceBudget::default();
        PieceBudget {
            raw_bytes: self.piece_bytes.unwrap_or(d.raw_bytes),
            head_records: self.head.unwrap_or(d.head_records),
            ..d
        }
    }
}

/// A whole number ≥ `min`.
fn at_least(min: u64) -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::new().range(min..)
}

/// Typeahead pieces: counts, sizes, bytes before the first answer.
///
/// The partitioned typeahead index: piece counts and sizes, and the data
/// bytes a cold typeahead client receives before its first suggestion
/// (first 1-3 keystrokes of names); then E2 over pieces: the share of requests answered from pieces, data
/// bytes before the first page (p50/p95, per kind of file, what the
/// requests around the p95 and the heaviest 5 % fetch) and the pieces
/// folder.
#[derive(clap::Args)]
pub struct BenchPiecesArgs {
    /// A registry dump
    #[arg(value_name = "dump")]
    dump: PathBuf,
    /// Raw bytes a leaf may hold, in KiB
    #[arg(long, value_name = "KiB", default_value_t = PieceBudget::default().raw_bytes / 1024)]
    budget: usize,
    /// Records in the head of a split prefix
    #[arg(long, value_name = "n", default_value_t = PieceBudget::default().head_records)]
    head: usize,
    /// zstd level
    #[arg(long, value_name = "1-22", default_value_t = crate::arg_values::DEFAULT_ZSTD_LEVEL, value_parser = crate::arg_values::zstd_level)]
    level: i32,
    /// Names typed
    #[arg(long, value_name = "n", default_value_t = 1000)]
    targets: usize,
    /// Write each E2 request (query, bytes, files; or why the whole registry
    /// answers it) as JSON lines
    #[arg(long, value_name = "file")]
    requests: Option<PathBuf>,
    /// Replay the E2 requests of such a file (query, filter, page) instead
    /// of sampling the data's names: the same query set at two registry
    /// sizes (e.g. a 35,990-record run's file against `registry synth
    /// --factor 4`)
    #[arg(long, value_name = "file")]
    queries: Option<PathBuf>,
}

/// Which list of [`Written`] a file belongs to.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// The typeahead's and the record pages' files.
    Typeahead,
    /// E2's files.
    Search,
}

/// The release name and build time a piece's own header holds: none. A
/// piece is of the release whose manifest proves its hash; naming the
/// release in it changed every piece's bytes at every release, though
/// most of their records had not changed (a next release of 35,990
/// records: 3.2 % of the pieces' bytes kept, 23.4 % without the name).
const PIECE_RELEASE: (&str, u64) = ("", 0);

/// The zstd level pieces are compressed at, at most (`--level` above it
/// is for the whole registry's files). Pieces are small: at 35,990 records
/// level 19 made the packs 0.2 % smaller than 16 (87.78 vs 87.95 MB) for
/// 36 % more of the build's CPU time (53 vs 34 s); 12 was 1.9 % larger.
pub const PIECE_LEVEL: i32 = 16;

/// The records of some ordinals of the shard, decoded (see [`build_pieces`]).
type RecordsOf<'a> = dyn Fn(&[u32]) -> Result<Vec<Record>, String> + Sync + 'a;

/// What a build says of its pieces, the files aside.
pub struct About {
    pub manifest: registry_contract::Pieces,
    pub specs: Vec<pieces::PieceSpec>,
}

/// [`build_pieces`] with every file kept in memory (what `bench-pieces`
/// reads).
pub fn build_pieces_in_memory(
    built: &BuiltShard,
    level: i32,
    budget: &PieceBudget,
) -> Result<Written, String> {
    let (mut files, mut search) = (Vec::new(), Vec::new());
    let about = build_pieces(built, level, budget, &mut |_, _| {}, &mut |part, f| {
        match part {
            Part::Typeahead => files.push(f),
            Part::Search => search.push(f),
        }
        Ok(())
    })?;
    Ok(Written {
        files,
        search,
        manifest: about.manifest,
        specs: about.specs,
    })
}

/// Cuts the records of `built` into pieces, each file handed to `sink` as
/// soon as it is made (so a build holds no more of them than a pack:
/// `registry site` at ×4 records held 550 MB); `progress(done, total)`
/// after each batch of typeahead pieces. The records are decoded from the
/// shard a piece at a time: held as `Record`s, the 143,960 of ×4 took
/// ~0.5 GB, their sections 42 MB.
pub fn build_pieces(
    built: &BuiltShard,
    level: i32,
    budget: &PieceBudget,
    progress: &mut dyn FnMut(usize, usize),
    sink: &mut dyn FnMut(Part, OutFile) -> Result<(), String>,
) -> Result<About, String> {
    let level = level.min(PIECE_LEVEL);
    let registry = Registry::from_bytes(&built.file(&KINDS)).map_err(|e| e.to_string())?;
    let engine = Engine::new(registry);
    let specs = pieces::partition(&engine, budget);
    let whole = Registry::from_bytes(&built.file(&SectionKind::ALL)).map_err(|e| e.to_string())?;
    // Both registries are of one shard: a record's ordinal is the same in each.
    let records_of = |ordinals: &[u32]| -> Result<Vec<Record>, String> {
        ordinals
            .iter()
            .map(|&i| {
                whole
                    .record(i as usize)
                    .map_err(|e| format!("record #{i}: {e}"))
            })
            .collect()
    };
    // The directory in parts by first character, so a client fetches only
    // the part its query starts with; the manifest lists the parts.
    let mut parts: std::collections::BTreeMap<&str, Vec<&str>> = Default::default();
    for s in specs.iter().filter(|s| s.kind == PieceKind::Head) {
        parts
            .entry(pieces::first_char(&s.key))
            .or_default()
            .push(s.key.as_str());
    }
    // The first-keystroke pack: heads and parts of the commonest first
    // characters (those that begin ≥ 0.5 % of the display names).
    let split_first: Vec<&str> = parts.keys().copied().collect();
    let firsts = pieces::pack_first_characters(&engine, &split_first, 0.005);
    // Their heads are kept for the pack, which is made after them.
    let mut heads: HashMap<String, Vec<u8>> = HashMap::new();
    let (mut done, mut piece_bytes) = (0, 0);
    // Each file is handed over from this thread, so progress is told here.
    crate::parallel::each(
        &specs,
        |s| {
            let bytes = pieces::piece_file(
                s,
                &records_of(&s.records)?,
                PIECE_RELEASE.0,
                PIECE_RELEASE.1,
                &Zstd(level),
            )?;
            Ok::<_, String>(OutFile {
                name: piece_name(built.info.build_id, &s.key, s.kind),
                sections: s.sections(),
                bytes,
            })
        },
        &mut |s, f: OutFile| {
            if s.kind == PieceKind::Head && firsts.contains(&s.key) {
                heads.insert(s.key.clone(), f.bytes.clone());
            }
            piece_bytes += f.bytes.len();
            done += 1;
            progress(done, specs.len());
            sink(Part::Typeahead, f)
        },
    )?;
    let mut entries = Vec::new();
    for f in &firsts {
        if let Some(head) = heads.remove(f) {
            entries.push(pieces::pack::Entry {
                kind: b'h',
                key: f.clone(),
                body: head,
            });
        }
        entries.push(pieces::pack::Entry {
            kind: b'd',
            key: f.clone(),
            body: serde_json::to_vec(&parts[f.as_str()]).unwrap_or_default(),
        });
    }
    let search = search_files(
        built,
        &engine,
        &whole,
        &specs,
        &records_of,
        level,
        budget,
        &mut |f| sink(Part::Search, f),
    )?;
    let pack = pieces::pack::encode(&entries);
    let first_pack = registry_contract::FirstPack {
        name: "first.pack".into(),
        bytes: pack.len(),
        first: firsts,
        sha256: Some(sha256_hex(&pack)),
    };
    for (first, keys) in &parts {
        sink(
            Part::Typeahead,
            OutFile {
                name: part_name(built.info.build_id, first),
                sections: Vec::new(),
                bytes: serde_json::to_vec(keys).unwrap_or_default(),
            },
        )?;
    }
    // After the parts, before the record pieces (bench-pieces reads them by position).
    sink(
        Part::Typeahead,
        OutFile {
            name: format!("pieces/{:016x}/first.pack", built.info.build_id),
            sections: Vec::new(),
            bytes: pack,
        },
    )?;
    let records_written = record_pieces(built, &whole, &records_of, level, &mut |f| {
        sink(Part::Typeahead, f)
    })?;
    let manifest = registry_contract::Pieces {
        version: registry_contract::PIECES_VERSION,
        path: format!("pieces/{:016x}/", built.info.build_id),
        split_first: parts.keys().map(|k| k.to_string()).collect(),
        head_records: budget.head_records,
        id_chars: pieces::ID_KEY_CHARS,
        record_chars: Some(shard::pieces::RECORD_KEY_CHARS),
        record_pieces: records_written,
        record_cards: true,
        first_pack,
        search: Some(search),
        hashes: None,
        tree: None,
        packed: None,
        pieces: specs.len(),
        piece_bytes,
    };
    Ok(About { manifest, specs })
}

/// A file of one section that records do not make (statistics, members).
fn single_section(kind: SectionKind, raw: &[u8], level: i32) -> Result<Vec<u8>, String> {
    let mut file = shard::build_kinds(&[], PIECE_RELEASE.0, PIECE_RELEASE.1, &Zstd(level), &[])?;
    file.push_section(kind, raw, &Zstd(level));
    Ok(file.file(&[kind]))
}

/// The files of E2 over pieces ([`registry_core::pieces::search`]): split
/// terms' pieces, common terms' rank chunks and member files, and the
/// statistics; and what the manifest says of them.
#[allow(clippy::too_many_arguments)]
fn search_files(
    built: &BuiltShard,
    engine: &Engine,
    whole: &Registry,
    specs: &[pieces::PieceSpec],
    records_of: &RecordsOf,
    level: i32,
    budget: &PieceBudget,
    sink: &mut dyn FnMut(OutFile) -> Result<(), String>,
) -> Result<registry_contract::SearchFiles, String> {
    // The external ids are in the records section, which the typeahead's
    // engine does not load.
    let sp = search_pieces(engine, specs, budget).with_external_ids(whole);
    let dir = format!("pieces/{:016x}/", built.info.build_id);
    let (mut files, mut bytes) = (0usize, 0usize);
    let mut out = |f: OutFile| {
        files += 1;
        bytes += f.bytes.len();
        sink(f)
    };
    // Each piece-like file: a subset of the records, named by what asks for it.
    let piece_files: Vec<_> = sp.piece_files().collect();
    crate::parallel::each(
        &piece_files,
        |(need, spec)| {
            Ok::<_, String>(OutFile {
                name: format!("{dir}{}", need.file_name()),
                sections: spec.sections(),
                bytes: pieces::piece_file(
                    spec,
                    &records_of(&spec.records)?,
                    PIECE_RELEASE.0,
                    PIECE_RELEASE.1,
                    &Zstd(level),
                )?,
            })
        },
        &mut |_, f| out(f),
    )?;
    let externals: Vec<_> = sp.externals.iter().collect();
    crate::parallel::each(
        &externals,
        |(bucket, records)| {
            Ok::<_, String>(OutFile {
                name: format!("{dir}{}", Need::External(*bucket).file_name()),
                sections: vec![
                    SectionKind::Summary,
                    SectionKind::Names,
                    SectionKind::Records,
                ],
                bytes: shard::pieces::record_piece_file(
                    &records_of(records)?,
                    PIECE_RELEASE.0,
                    PIECE_RELEASE.1,
                    &Zstd(level),
                )?,
            })
        },
        &mut |_, f| out(f),
    )?;
    for m in &sp.members {
        out(OutFile {
            name: format!("{dir}{}", Need::Members(m.term.clone()).file_name()),
            sections: vec![SectionKind::TermMembers],
            bytes: single_section(SectionKind::TermMembers, &m.encode(), level)?,
        })?;
    }
    for (need, g) in sp.group_files() {
        out(OutFile {
            name: format!("{dir}{}", need.file_name()),
            sections: vec![SectionKind::TermGroups],
            bytes: single_section(SectionKind::TermGroups, &g.encode(), level)?,
        })?;
    }
    for (need, raw) in sp.stats_parts() {
        out(OutFile {
            name: format!("{dir}{}", need.file_name()),
            sections: vec![SectionKind::SearchTerms],
            bytes: single_section(SectionKind::SearchTerms, &raw, level)?,
        })?;
    }
    let stats = single_section(SectionKind::SearchStats, &sp.stats.encode(), level)?;
    let stats_bytes = stats.len();
    out(OutFile {
        name: format!("{dir}{}", Need::Stats.file_name()),
        sections: vec![SectionKind::SearchStats],
        bytes: stats,
    })?;
    Ok(registry_contract::SearchFiles {
        stats: Need::Stats.file_name(),
        stats_bytes,
        common_terms: sp.stats.common.len(),
        files,
        bytes,
    })
}

/// The record pieces (`r-<key>.shard`, [`shard::pieces::record_piece_file`]):
/// every record grouped by the first characters of its id, each with its
/// record card (`r-<key>.json`), appended to `files`; returns how many
/// pieces were written. A record page fetches one of each.
fn record_pieces(
    built: &BuiltShard,
    whole: &Registry,
    records_of: &RecordsOf,
    level: i32,
    sink: &mut dyn FnMut(OutFile) -> Result<(), String>,
) -> Result<usize, String> {
    // Ordinals, not records: they are decoded a piece at a time.
    let mut groups: std::collections::BTreeMap<String, Vec<u32>> = Default::default();
    for i in 0..whole.len() {
        groups
            .entry(shard::pieces::record_key(whole.id(i)))
            .or_default()
            .push(i as u32);
    }
    let groups: Vec<(&String, &Vec<u32>)> = groups.iter().collect();
    let piece_and_card = |(key, group): &(&String, &Vec<u32>)| {
        let group = records_of(group)?;
        let bytes = shard::pieces::record_piece_file(
            &group,
            PIECE_RELEASE.0,
            PIECE_RELEASE.1,
            &Zstd(level),
        )?;
        let piece = Registry::from_bytes(&bytes).map_err(|e| format!("record piece {key}: {e}"))?;
        let card = serde_json::to_vec(
            &(0..piece.len())
                .map(|i| piece.summary(i))
                .collect::<Vec<_>>(),
        )
        .map_err(|e| e.to_string())?;
        Ok::<_, String>((bytes, card))
    };
    crate::parallel::each(&groups, piece_and_card, &mut |(key, _), (bytes, card)| {
        sink(OutFile {
            name: record_piece_name(built.info.build_id, key),
            sections: vec![
                SectionKind::Summary,
                SectionKind::Names,
                SectionKind::Records,
            ],
            bytes,
        })?;
        sink(OutFile {
            name: record_card_name(built.info.build_id, key),
            sections: Vec::new(),
            bytes: card,
        })
    })?;
    Ok(groups.len())
}

pub fn cmd_bench_pieces(a: BenchPiecesArgs) -> Result<(), String> {
    let budget = PieceBudget {
        raw_bytes: a.budget * 1024,
        head_records: a.head,
        ..PieceBudget::default()
    };
    let (level, targets) = (a.level, a.targets);
    let bytes = load::read(&a.dump)?;
    let imported = crate::import::import_with_progress(&bytes, Default::default(), true)?;
    let records = imported.records;
    let built = shard::build(&records, "bench", 0, &Zstd(level))?;
    let typeahead: usize = built.file(&KINDS).len();
    let t = Instant::now();
    let w = build_pieces_in_memory(&built, level, &budget)?;
    let secs = t.elapsed().as_secs_f64();
    println!(
        "{} records; budget {} KiB raw, {} head records; built in {secs:.1} s",
        records.len(),
        budget.raw_bytes / 1024,
        budget.head_records
    );
    print_piece_sizes(&w, typeahead)?;
    let (buckets, slot_bytes) =
        crate::packs::slot_layout(w.files.iter().chain(&w.search).map(|f| {
            f.name
                .strip_prefix(w.manifest.path.as_str())
                .unwrap_or(&f.name)
        }));
    println!(
        "slots (a file is found and checked with its bucket's slot, read by range from the slot tables): {buckets} slots of {slot_bytes} bytes"
    );
    let registry = Registry::from_bytes(&built.file(&KINDS)).map_err(|e| e.to_string())?;
    let engine = Engine::new(registry);
    // The hash tables that check the files (as served).
    let table_bytes = vec![slot_bytes; buckets as usize];
    ColdTypeahead::new(&w, built.info.build_id, typeahead, &table_bytes).bench(&engine, targets)?;
    // What a request the pieces cannot answer downloads instead: the whole
    // registry's data files (summary, names, records).
    let whole_bytes = built.file(&SectionKind::ALL).len();
    let replay = a.queries.as_deref().map(read_queries).transpose()?;
    bench_search_pieces(
        &w,
        &engine,
        targets,
        replay,
        a.requests.as_deref(),
        whole_bytes,
        &table_bytes,
    )
}

/// The typeahead's files as built: the pieces (leaves, heads, by id), the
/// directory parts, the first-keystroke pack, and a record page's record
/// pieces and cards — counts and sizes (`typeahead`: the bytes of the whole
/// typeahead data, which the pieces stand for).
fn print_piece_sizes(w: &Written, typeahead: usize) -> Result<(), String> {
    let (piece_files, rest) = w.files.split_at(w.specs.len());
    let parts_end = rest
        .iter()
        .position(|f| f.name.ends_with("/first.pack"))
        .ok_or("no first-keystroke pack")?;
    let (part_files, rest) = rest.split_at(parts_end);
    let (pack_file, record_files) = rest.split_first().ok_or("no first-keystroke pack")?;
    let mut sizes: Vec<f64> = piece_files.iter().map(|f| f.bytes.len() as f64).collect();
    let manifest_part = serde_json::to_vec(&w.manifest).map_or(0, |v| v.len());
    let mut part_sizes: Vec<f64> = part_files.iter().map(|f| f.bytes.len() as f64).collect();
    let count = |k: PieceKind| w.specs.iter().filter(|s| s.kind == k).count();
    let (heads, ids) = (count(PieceKind::Head), count(PieceKind::Id));
    println!(
        "pieces: {} ({} leaves, {} heads, {} by id), {:.1} MB in all; directory: {} parts by first character (manifest member {manifest_part} bytes; part bytes p50 {:.0}, max {:.0}); whole typeahead data (summary + names) {} bytes",
        piece_files.len(),
        piece_files.len() - heads - ids,
        heads,
        ids,
        sizes.iter().sum::<f64>() / 1e6,
        part_files.len(),
        percentile(&mut part_sizes, 0.5),
        part_sizes.last().copied().unwrap_or(0.0),
        typeahead
    );
    println!(
        "first-keystroke pack (fetched when the page is idle): {} bytes, {} first characters",
        pack_file.bytes.len(),
        w.manifest.first_pack.first.len()
    );
    println!(
        "piece bytes: p50 {:.0}  p95 {:.0}  max {:.0}",
        percentile(&mut sizes, 0.5),
        percentile(&mut sizes, 0.95),
        sizes.last().copied().unwrap_or(0.0)
    );
    for (what, ext) in [("record pieces", ".shard"), ("record cards", ".json")] {
        let mut sizes: Vec<f64> = record_files
            .iter()
            .filter(|f| f.name.contains("/r-") && f.name.ends_with(ext))
            .map(|f| f.bytes.len() as f64)
            .collect();
        println!(
            "{what} (a record page's data): {} files, {:.1} MB in all; bytes p50 {:.0}  p95 {:.0}  max {:.0}",
            sizes.len(),
            sizes.iter().sum::<f64>() / 1e6,
            percentile(&mut sizes, 0.5),
            percentile(&mut sizes, 0.95),
            sizes.last().copied().unwrap_or(0.0)
        );
    }
    Ok(())
}

/// A cold typeahead client over the built pieces: the directory part and
/// the one piece a query needs (or the whole typeahead data).
struct ColdTypeahead<'a> {
    w: &'a Written,
    /// The typeahead's files by name.
    files: HashMap<&'a str, &'a [u8]>,
    build_id: u64,
    /// Bytes of the whole typeahead data (summary + names).
    typeahead: usize,
    /// Each slot's hash table as served.
    table_bytes: &'a [usize],
}

/// What a cold client received before its first suggestion.
struct ColdAnswer {
    /// Data bytes (directory parts and pieces, or the whole typeahead data).
    bytes: usize,
    /// The same with the hash tables that check those files.
    checked: usize,
    /// Only the whole typeahead data answered.
    whole: bool,
}

impl<'a> ColdTypeahead<'a> {
    fn new(w: &'a Written, build_id: u64, typeahead: usize, table_bytes: &'a [usize]) -> Self {
        let files = w
            .files
            .iter()
            .map(|f| (f.name.as_str(), f.bytes.as_slice()))
            .collect();
        ColdTypeahead {
            w,
            files,
            build_id,
            typeahead,
            table_bytes,
        }
    }

    /// The first 1–3 keystrokes of the relevance benchmark's texts (every
    /// `targets`th display name, and its rarest word first), each from a
    /// cold client: the data bytes before the first suggestion, printed.
    fn bench(&self, engine: &Engine, targets: usize) -> Result<(), String> {
        let reg = engine.registry();
        let step = (reg.len() / targets.max(1)).max(1);
        let (mut cold, mut cold_checked) = (Vec::new(), Vec::new());
        let (mut whole, mut total) = (0usize, 0usize);
        for i in (0..reg.len()).step_by(step) {
            let name = reg.display_name(i);
            let mut words: Vec<&str> = name.split_whitespace().collect();
            words.sort_by_key(|w| std::cmp::Reverse(w.len()));
            for text in [name, words.first().copied().unwrap_or(name)] {
                let chars: Vec<(usize, char)> = text.char_indices().collect();
                for n in 1..=chars.len().min(3) {
                    let end = chars.get(n).map_or(text.len(), |c| c.0);
                    total += 1;
                    let a = self.first_suggestion(&text[..end])?;
                    whole += usize::from(a.whole);
                    cold.push(a.bytes as f64);
                    cold_checked.push(a.checked as f64);
                }
            }
        }
        println!(
            "cold client, first 1–3 keystrokes ({total} queries): data bytes before the first suggestion (directory part + piece; the manifest is read anyway) p50 {:.0}  p95 {:.0}  max {:.0}; {whole} queries ({:.1} %) need the whole typeahead data",
            percentile(&mut cold, 0.5),
            percentile(&mut cold, 0.95),
            cold.last().copied().unwrap_or(0.0),
            whole as f64 * 100.0 / total.max(1) as f64
        );
        println!(
            "  the same with the hash tables that check those files (as served): p50 {:.0}  p95 {:.0}",
            percentile(&mut cold_checked, 0.5),
            percentile(&mut cold_checked, 0.95),
        );
        Ok(())
    }

    /// Answers `q` from a new client, handing it each file it asks for,
    /// until the first suggestions are in (a partial answer is shown too).
    fn first_suggestion(&self, q: &str) -> Result<ColdAnswer, String> {
        let w = self.w;
        let buckets = self.table_bytes.len() as u32;
        let file = |name: &str| self.files.get(name).copied();
        let mut c = PieceClient::new(Directory::sharded(w.manifest.split_first.clone()));
        let mut got = 0usize;
        let mut tables = std::collections::BTreeSet::new();
        let mut checked = |name: &str| {
            let name = name.strip_prefix(&w.manifest.path).unwrap_or(name);
            tables.insert(registry_contract::slot(name, buckets));
        };
        let mut whole = false;
        loop {
            match c
                .answer(q, "", 10, &SuggestContext::default())
                .map_err(|e| e.join("; "))?
            {
                Answer::Hits(_) | Answer::Partial(..) => break,
                Answer::Whole => {
                    whole = true;
                    got += self.typeahead;
                    break;
                }
                Answer::NeedDirectory(first) => {
                    let name = part_name(self.build_id, &first);
                    let part = file(&name).ok_or("a listed directory part is missing")?;
                    got += part.len();
                    checked(&name);
                    let keys: Vec<String> =
                        serde_json::from_slice(part).map_err(|e| e.to_string())?;
                    c.add_directory(&first, keys);
                }
                Answer::Need(key, kind) => {
                    let name = piece_name(self.build_id, &key, kind);
                    checked(&name);
                    match file(&name) {
                        Some(b) => {
                            got += b.len();
                            c.add(&key, b).map_err(|e| e.to_string())?;
                        }
                        None => c.add_missing(&key),
                    }
                }
            }
        }
        let table_sum: usize = tables.iter().map(|&i| self.table_bytes[i as usize]).sum();
        Ok(ColdAnswer {
            bytes: got,
            checked: got + table_sum,
            whole,
        })
    }
}

/// The E2 requests of a `--requests` file (its API readings, in file
/// order; the search page's reading is replayed for each too): the query
/// set of another run, replayed so that two registry sizes are measured
/// over the same queries.
fn read_queries(path: &Path) -> Result<Vec<registry_core::pieces::search::ListQuery>, String> {
    use registry_core::pieces::search::ListQuery;
    use registry_core::search::Version;
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    for (n, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let at = |what: &str| format!("{}:{}: {what}", path.display(), n + 1);
        let v: serde_json::Value = serde_json::from_str(line).map_err(|e| at(&e.to_string()))?;
        if v["typed"] == serde_json::Value::Bool(true) {
            continue;
        }
        let query = v["query"]
            .as_str()
            .ok_or_else(|| at("no \"query\" string"))?
            .to_string();
        let filter = match &v["filter"] {
            serde_json::Value::Null => None,
            serde_json::Value::String(f) => Some(f.clone()),
            _ => return Err(at("\"filter\" is neither a string nor null")),
        };
        let page = v["page"]
            .as_u64()
            .and_then(|p| u32::try_from(p).ok())
            .filter(|&p| p >= 1)
            .ok_or_else(|| at("\"page\" is not a page number"))?;
        out.push(ListQuery {
            query,
            filter,
            all_status: false,
            page: page as usize,
            version: Version::V2,
            typed: false,
        });
    }
    if out.is_empty() {
        return Err(format!("{}: no requests", path.display()));
    }
    Ok(out)
}

/// E2 over pieces: for a query set from the data (display names, their
/// rarest word, the rarest word after common words, a quoted pair of
/// words; without filter, by type, by the record's country; pages 1–3), the
/// data bytes a cold client fetches before the first page of results, and
/// how many requests the whole registry must answer instead.
/// `table_bytes`: each slot's bytes ([`crate::packs::slot_layout`]).
fn bench_search_pieces(
    w: &Written,
    engine: &Engine,
    targets: usize,
    replay: Option<Vec<ListQuery>>,
    requests_out: Option<&Path>,
    whole_bytes: usize,
    table_bytes: &[usize],
) -> Result<(), String> {
    let queries = replay.unwrap_or_else(|| sampled_queries(engine, targets));
    print_search_files(w, table_bytes);
    let bench = E2Bench {
        files: w
            .files
            .iter()
            .chain(&w.search)
            .filter_map(|f| {
                let (_, name) = f.name.rsplit_once('/')?;
                Some((name.to_string(), f.bytes.as_slice()))
            })
            .collect(),
        firsts: &w.manifest.split_first,
        whole_bytes,
        table_bytes,
    };
    // Each answered request as a JSON line (`--requests`): what a change
    // to the pieces moves, request by request.
    let mut lines = requests_out.map(|_| String::new());
    // The API's reading, then the search page's (the app's `?q=` links).
    for typed in [false, true] {
        bench.reading(&queries, typed, lines.as_mut())?;
    }
    if let (Some(path), Some(lines)) = (requests_out, lines) {
        std::fs::write(path, lines).map_err(|e| format!("{}: {e}", path.display()))?;
        println!("answered requests written to {}", path.display());
    }
    Ok(())
}

/// The E2 requests sampled from the data: every `targets`th record's
/// display name, its rarest word, "university of" it, and its first two
/// words quoted, each without a filter, by type or by country, on pages 1–3
/// in turn.
fn sampled_queries(engine: &Engine, targets: usize) -> Vec<ListQuery> {
    let reg = engine.registry();
    let step = (reg.len() / targets.max(1)).max(1);
    let mut queries = Vec::new();
    for (n, i) in (0..reg.len()).step_by(step).enumerate() {
        let name = reg.display_name(i);
        let mut words: Vec<&str> = name.split_whitespace().collect();
        words.sort_by_key(|w| std::cmp::Reverse(w.len()));
        let rare = words.first().copied().unwrap_or(name);
        let summary = reg.summary(i);
        let texts = [
            name.to_string(),
            rare.to_string(),
            format!("university of {rare}"),
            format!(
                "\"{}\"",
                name.split_whitespace()
                    .take(2)
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
        ];
        for (k, text) in texts.into_iter().enumerate() {
            let filter = match (n + k) % 3 {
                1 => Some("types:education".to_string()),
                2 => summary
                    .country_code
                    .as_ref()
                    .map(|c| format!("country.country_code:{c}")),
                _ => None,
            };
            queries.push(ListQuery {
                query: text,
                filter,
                all_status: false,
                page: 1 + (n + k) % 3,
                version: Version::V2,
                typed: false,
            });
        }
    }
    queries
}

/// The E2 files as built, by kind (pairs' rank chunks by number, triples',
/// the version-6 kinds), the whole pieces folder, and the hash tables a
/// browser reads to check what it fetches.
fn print_search_files(w: &Written, table_bytes: &[usize]) {
    let search_bytes: usize = w.search.iter().map(|f| f.bytes.len()).sum();
    println!(
        "E2 over pieces: {} files, {:.1} MB (term pieces, rank chunks, member files, statistics {} bytes)",
        w.search.len(),
        search_bytes as f64 / 1e6,
        w.search.last().map_or(0, |f| f.bytes.len())
    );
    let file_name =
        |f: &'_ OutFile| -> String { f.name.rsplit('/').next().unwrap_or(&f.name).to_string() };
    // Pairs' rank chunks (`k-<hex>-<hex>-<n>.shard`), by chunk number.
    let mut pair_chunks: std::collections::BTreeMap<String, (usize, usize)> = Default::default();
    for f in &w.search {
        let name = file_name(f);
        if let Some(rest) = name
            .strip_prefix("k-")
            .and_then(|n| n.strip_suffix(".shard"))
            && rest.split('-').count() == 3
        {
            let slot = pair_chunks
                .entry(rest.rsplit('-').next().unwrap_or("").to_string())
                .or_default();
            slot.0 += 1;
            slot.1 += f.bytes.len();
        }
    }
    let line: Vec<String> = pair_chunks
        .iter()
        .map(|(n, (k, b))| format!("#{n}: {k} files, {:.1} MB", *b as f64 / 1e6))
        .collect();
    println!("  of which pairs' rank chunks: {}", line.join("; "));
    // Triples' rank chunks (`k-<hex>-<hex>-<hex>-<n>.shard`) and group
    // files (`g-<hex>-<hex>-<hex>.shard`).
    let (mut triple_files, mut triple_bytes) = (0usize, 0usize);
    for f in &w.search {
        let name = file_name(f);
        let parts = |p: &str| {
            name.strip_prefix(p)
                .and_then(|n| n.strip_suffix(".shard"))
                .map_or(0, |n| n.split('-').count())
        };
        if parts("k-") == 4 || parts("g-") == 3 {
            triple_files += 1;
            triple_bytes += f.bytes.len();
        }
    }
    println!(
        "  of which triples' rank chunks and group files: {triple_files} files, {:.1} MB",
        triple_bytes as f64 / 1e6
    );
    // The version-6 files, by kind (their names' prefix).
    for (prefix, what) in [
        ("kc-", "common terms' rank chunks by country"),
        ("kt-", "common terms' rank chunks by type"),
        ("pk-", "phrases' rank chunks"),
        ("pg-", "phrases' group files"),
        ("p-", "phrase pieces"),
        ("e-", "external id pieces"),
    ] {
        let of_kind = w.search.iter().filter(|f| file_name(f).starts_with(prefix));
        let (n, bytes) = of_kind.fold((0usize, 0usize), |(n, b), f| (n + 1, b + f.bytes.len()));
        println!("  of which {what}: {n} files, {:.1} MB", bytes as f64 / 1e6);
    }
    let all_bytes: usize = w.files.iter().map(|f| f.bytes.len()).sum::<usize>() + search_bytes;
    println!(
        "pieces folder (hosting: typeahead pieces, directory parts, pack, record pieces and cards, hash tables, E2 files): {} files, {:.1} MB",
        w.files.len() + w.search.len(),
        all_bytes as f64 / 1e6
    );
    // Compressed as served: zstd 19 here, near brotli's size for tables of hex hashes.
    println!(
        "hash tables as served: {} tables, p50 {} bytes (a request reads the table of each asked file)",
        table_bytes.len(),
        {
            let mut t: Vec<usize> = table_bytes.to_vec();
            t.sort_unstable();
            t.get(t.len() / 2).copied().unwrap_or(0)
        }
    );
}

/// E2 over the built pieces, from a cold client per request.
struct E2Bench<'a> {
    /// The pieces folder's files by name.
    files: HashMap<String, &'a [u8]>,
    firsts: &'a [String],
    /// Bytes of the whole registry's data files, what a request the pieces
    /// cannot answer downloads instead.
    whole_bytes: usize,
    /// Each slot's hash table as served.
    table_bytes: &'a [usize],
}

/// One request's run: what it fetched, in how many rounds, and whether the
/// pieces answered it (else why the whole registry must).
struct E2Run {
    /// Data bytes fetched.
    bytes: usize,
    /// Files asked for.
    asked: usize,
    /// Answers that asked for files (a round trip each when a round's files
    /// are fetched side by side).
    rounds: usize,
    /// Bytes per kind of file ([`NEED_KINDS`]).
    kinds: [usize; NEED_KINDS.len()],
    /// The files, with their sizes.
    files: Vec<(Need, usize)>,
    /// Why the whole registry answers it, when the pieces cannot.
    whole: Option<&'static str>,
}

impl E2Bench<'_> {
    /// Every request in one reading (`typed`: the search page's, else the
    /// API's): the share answered, the data bytes, files and rounds, by
    /// kind of file, every request's bytes with a fallback counted at the
    /// whole registry, and what the heaviest fetch. Each request's line is
    /// added to `lines` when asked.
    fn reading(
        &self,
        queries: &[ListQuery],
        typed: bool,
        mut lines: Option<&mut String>,
    ) -> Result<(), String> {
        let (mut bytes, mut requests, mut rounds) = (Vec::new(), Vec::new(), Vec::new());
        let mut why: std::collections::BTreeMap<&str, usize> = Default::default();
        // Per kind of file: the bytes of each answered query (what grows).
        let mut by_kind: Vec<Vec<f64>> = vec![Vec::new(); NEED_KINDS.len()];
        // Each answered request's files, to say what the heaviest fetch.
        let mut fetched: Vec<Fetched> = Vec::new();
        // Every request, a fallback at what it fetched plus the whole
        // registry: the bytes a user of the link waits for.
        let mut all_bytes: Vec<f64> = Vec::new();
        // The same, with the hash tables the browser reads to check them.
        let mut all_checked: Vec<f64> = Vec::new();
        let typed_queries: Vec<ListQuery> = queries
            .iter()
            .map(|q| ListQuery { typed, ..q.clone() })
            .collect();
        for q in &typed_queries {
            let run = self.run(q)?;
            let tables = self.tables_of(&run.files);
            let got = run.bytes;
            if let Some(lines) = lines.as_deref_mut() {
                lines.push_str(&request_line(q, &run, tables).to_string());
                lines.push('\n');
            }
            if let Some(reason) = run.whole {
                *why.entry(reason).or_default() += 1;
                all_bytes.push((got + self.whole_bytes) as f64);
                all_checked.push((got + tables + self.whole_bytes) as f64);
                continue;
            }
            all_checked.push((got + tables) as f64);
            bytes.push(got as f64);
            all_bytes.push(got as f64);
            requests.push(run.asked as f64);
            rounds.push(run.rounds as f64);
            for (v, &k) in by_kind.iter_mut().zip(&run.kinds) {
                v.push(k as f64);
            }
            fetched.push((got, q, run.files));
        }
        println!(
            "{} first page, cold client ({} requests; the manifest aside): {} answered from pieces ({:.1} %); data bytes p50 {:.0}  p95 {:.0}  max {:.0}; files fetched p50 {:.0}  p95 {:.0}; rounds mean {:.2}  p50 {:.0}  p95 {:.0}; to the whole registry: {why:?}",
            if typed {
                "mode=typed (the search page)"
            } else {
                "E2"
            },
            queries.len(),
            bytes.len(),
            bytes.len() as f64 * 100.0 / queries.len().max(1) as f64,
            percentile(&mut bytes, 0.5),
            percentile(&mut bytes, 0.95),
            bytes.last().copied().unwrap_or(0.0),
            percentile(&mut requests, 0.5),
            percentile(&mut requests, 0.95),
            rounds.iter().sum::<f64>() / rounds.len().max(1) as f64,
            percentile(&mut rounds, 0.5),
            percentile(&mut rounds, 0.95),
        );
        let line: Vec<String> = NEED_KINDS
            .iter()
            .zip(&mut by_kind)
            .map(|(name, v)| {
                let mean = v.iter().sum::<f64>() / v.len().max(1) as f64;
                format!(
                    "{name} mean {mean:.0} p50 {:.0} p95 {:.0}",
                    percentile(v, 0.5),
                    percentile(v, 0.95)
                )
            })
            .collect();
        println!("  bytes by kind of file: {}", line.join("; "));
        println!(
            "  every request, one the pieces cannot answer at what it fetched plus the whole registry ({} bytes): data bytes p50 {:.0}  p90 {:.0}  p95 {:.0}",
            self.whole_bytes,
            percentile(&mut all_bytes, 0.5),
            percentile(&mut all_bytes, 0.9),
            percentile(&mut all_bytes, 0.95),
        );
        println!(
            "  every request with the hash tables that check its files (what a browser downloads): data bytes p50 {:.0}  p90 {:.0}  p95 {:.0}",
            percentile(&mut all_checked, 0.5),
            percentile(&mut all_checked, 0.9),
            percentile(&mut all_checked, 0.95),
        );
        print_heaviest(&mut fetched);
        Ok(())
    }

    /// Answers `q` from a new client, handing it each file it asks for
    /// (a round at a time), until it has a page (or an invalid query's
    /// message) or says that only the whole registry can answer.
    fn run(&self, q: &ListQuery) -> Result<E2Run, String> {
        let mut c = SearchClient::new(Directory::sharded(self.firsts.to_vec())).with_id_pieces();
        let mut run = E2Run {
            bytes: 0,
            asked: 0,
            rounds: 0,
            kinds: [0; NEED_KINDS.len()],
            files: Vec::new(),
            whole: None,
        };
        loop {
            match c.answer(q) {
                SearchAnswer::Need(needs) => {
                    run.rounds += 1;
                    for need in needs {
                        run.asked += 1;
                        let body = self.files.get(&need.file_name()).copied();
                        let len = body.map_or(0, <[u8]>::len);
                        run.bytes += len;
                        run.kinds[need_kind(&need)] += len;
                        run.files.push((need.clone(), len));
                        if let Need::Directory(first) = &need {
                            let keys: Vec<String> = match body {
                                Some(b) => serde_json::from_slice(b).map_err(|e| e.to_string())?,
                                None => Vec::new(),
                            };
                            c.add_directory(first, keys);
                        } else {
                            c.add(&need, body)
                                .map_err(|e| format!("{}: {e}", need.file_name()))?;
                        }
                    }
                }
                SearchAnswer::Whole(reason) => {
                    run.whole = Some(reason);
                    return Ok(run);
                }
                SearchAnswer::Page(_) | SearchAnswer::Invalid(_) => return Ok(run),
            }
        }
    }

    /// The bytes of the hash tables that check `files`: the table of each
    /// file's bucket, once a request (not in a request's data bytes, which
    /// are the files the client asks).
    fn tables_of(&self, files: &[(Need, usize)]) -> usize {
        let buckets = self.table_bytes.len() as u32;
        let seen: std::collections::BTreeSet<u32> = files
            .iter()
            .map(|(n, _)| registry_contract::slot(&n.file_name(), buckets))
            .collect();
        seen.iter().map(|&i| self.table_bytes[i as usize]).sum()
    }
}

/// A request's JSON line (`--requests`): the request, its bytes and
/// rounds, and its files (answered) or why the whole registry answers it.
fn request_line(q: &ListQuery, run: &E2Run, tables: usize) -> serde_json::Value {
    match run.whole {
        Some(reason) => serde_json::json!({
            "typed": q.typed, "query": q.query, "filter": q.filter,
            "page": q.page, "bytes": run.bytes, "rounds": run.rounds, "whole": reason,
        }),
        None => {
            let files: Vec<(String, usize)> =
                run.files.iter().map(|(n, b)| (describe(n), *b)).collect();
            serde_json::json!({
                "typed": q.typed, "query": q.query, "filter": q.filter,
                "page": q.page, "bytes": run.bytes, "rounds": run.rounds, "files": files,
                "hash_tables": tables,
                "names": run.files.iter().map(|(n, _)| n.file_name()).collect::<Vec<_>>(),
            })
        }
    }
}

/// An answered request: its data bytes, the request, and the files it
/// fetched with their sizes.
type Fetched<'q> = (
    usize,
    &'q registry_core::pieces::search::ListQuery,
    Vec<(Need, usize)>,
);

/// What the heaviest 5 % of answered requests (`fetched`: bytes, request,
/// files with their sizes) fetch: their bytes by kind of file, the files
/// most of their bytes are in, and the heaviest requests.
fn print_heaviest(fetched: &mut [Fetched]) {
    fetched.sort_by_key(|f| std::cmp::Reverse(f.0));
    // Those around the p95 (p92–p98): what moves the p95.
    let n = fetched.len();
    print_band(
        "around the p95 (p92–p98)",
        &fetched[n * 2 / 100..n * 8 / 100],
    );
    print_band("the heaviest 5 %", &fetched[..n.div_ceil(20)]);
}

/// What the requests of `top` (heaviest first) fetch: their bytes by kind
/// of file, the files most of their bytes are in, and the heaviest.
fn print_band(label: &str, top: &[Fetched]) {
    let mut kinds = [0usize; NEED_KINDS.len()];
    let mut files: HashMap<&Need, (usize, usize)> = HashMap::new();
    for (_, _, fs) in top {
        for (need, n) in fs {
            kinds[need_kind(need)] += n;
            let slot = files.entry(need).or_default();
            slot.0 = *n;
            slot.1 += 1;
        }
    }
    let all: usize = kinds.iter().sum();
    let line: Vec<String> = NEED_KINDS
        .iter()
        .zip(kinds)
        .filter(|(_, n)| *n > 0)
        .map(|(name, n)| {
            format!(
                "{name} {:.0} ({:.0} %)",
                n as f64 / top.len() as f64,
                n as f64 * 100.0 / all.max(1) as f64
            )
        })
        .collect();
    println!(
        "  {label} ({} requests, ≥ {} bytes), mean bytes by kind: {}",
        top.len(),
        top.last().map_or(0, |f| f.0),
        line.join("; ")
    );
    let mut by_share: Vec<(&&Need, &(usize, usize))> = files.iter().collect();
    by_share.sort_by_key(|(need, (n, k))| (std::cmp::Reverse(n * k), need.file_name()));
    let line: Vec<String> = by_share
        .iter()
        .take(12)
        .map(|(need, (n, k))| format!("{} {n} B ×{k}", describe(need)))
        .collect();
    println!(
        "  their files with the most bytes (size × requests): {}",
        line.join(", ")
    );
    let line: Vec<String> = top
        .iter()
        .take(6)
        .map(|(n, q, _)| {
            format!(
                "{:?}{} p{} {n} B",
                q.query,
                q.filter
                    .as_ref()
                    .map_or(String::new(), |f| format!(" [{f}]")),
                q.page
            )
        })
        .collect();
    println!("  the heaviest requests: {}", line.join(", "));
}

/// `need` as a reader names it: its kind and its term, prefix or key.
fn describe(need: &Need) -> String {
    match need {
        Need::Stats => "stats".into(),
        Need::StatsPart(f) => format!("stats part {f:?}"),
        Need::Directory(f) => format!("directory part {f:?}"),
        Need::Leaf(p) => format!("leaf {p:?}"),
        Need::Head(p) => format!("head {p:?}"),
        Need::Term(t) => format!("term piece {t:?}"),
        Need::Members(t) => format!("member file {t:?}"),
        Need::Groups(t) => format!("group file {t:?}"),
        Need::Rank(t, n) => format!("rank chunk {t:?} #{n}"),
        Need::PairRank(a, b, n) => format!("rank chunk {a:?}+{b:?} #{n}"),
        Need::SetRank(t, n) => format!("rank chunk {} #{n}", t.join("+")),
        Need::CountryRank(t, c, n) => format!("rank chunk {t:?} in {c} #{n}"),
        Need::TypeRank(t, k, n) => format!("rank chunk {t:?} of {k} #{n}"),
        Need::PhraseRank(a, b, n) => format!("rank chunk \"{a} {b}\" #{n}"),
        Need::PhraseGroups(a, b) => format!("group file \"{a} {b}\""),
        Need::Phrase(a, b) => format!("phrase piece \"{a} {b}\""),
        Need::External(b) => format!("external id piece {b}"),
        Need::Id(k) => format!("id piece {k:?}"),
        Need::Extension(p) => format!("extension piece {p:?}"),
    }
}

/// The kinds of file E2 over pieces fetches, as `bench-pieces` prints them.
const NEED_KINDS: [&str; 9] = [
    "stats",
    "directory parts",
    "leaves",
    "term and phrase pieces",
    "member files",
    "rank chunks",
    "id and external id pieces",
    "extension pieces",
    "group files",
];

/// The position of `need`'s kind in [`NEED_KINDS`].
fn need_kind(need: &Need) -> usize {
    match need {
        Need::Stats | Need::StatsPart(_) => 0,
        Need::Directory(_) => 1,
        Need::Leaf(_) | Need::Head(_) => 2,
        Need::Term(_) | Need::Phrase(..) => 3,
        Need::Members(_) => 4,
        Need::Rank(..)
        | Need::PairRank(..)
        | Need::SetRank(..)
        | Need::CountryRank(..)
        | Need::TypeRank(..)
        | Need::PhraseRank(..) => 5,
        Need::Id(_) | Need::External(_) => 6,
        Need::Extension(_) => 7,
        Need::Groups(_) | Need::PhraseGroups(..) => 8,
    }
}
