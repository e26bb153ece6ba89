//! Writes the fuzz targets' seed corpora, from the demo data, into
//! `fuzz/corpus/<target>/` (replacing what is there):
//!
//!     cargo run -p registry-fuzz-targets --example seeds
//!
//! Small on purpose (a few dozen files a target, the largest a few KB):
//! they are checked in and replayed by every `cargo test`; the fuzzer
//! grows its own working corpus elsewhere (`scripts/fuzz.sh`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use registry_core::crc32::crc32;
use registry_core::pieces::{PieceKind, pack};
use registry_core::shard::{self, Codec, Compressor, SectionKind};
use registry_core::{Record, RecordId};
use registry_fuzz_targets::{PieceInput, SECTION_KINDS, demo};

struct Zstd;

impl Compressor for Zstd {
    fn codec(&self) -> Codec {
        Codec::Zstd
    }
    fn compress(&self, raw: &[u8]) -> Vec<u8> {
        zstd::bulk::compress(raw, 3).expect("zstd compresses a buffer")
    }
}

type Seeds = BTreeMap<String, Vec<u8>>;

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus");
    let all: [(&str, Seeds); 8] = [
        ("router", router()),
        ("advanced", advanced()),
        ("affiliation", affiliation()),
        ("shard", shard_files()),
        ("sections", sections()),
        ("import", import()),
        ("pieces", pieces()),
        ("search", search()),
    ];
    for (target, seeds) in all {
        write(&root.join(target), &seeds);
        let bytes: usize = seeds.values().map(Vec::len).sum();
        println!("{target}: {} seeds, {bytes} bytes", seeds.len());
    }
}

fn write(dir: &Path, seeds: &Seeds) {
    if dir.exists() {
        std::fs::remove_dir_all(dir).expect("remove the old seeds");
    }
    std::fs::create_dir_all(dir).expect("create the corpus folder");
    for (name, bytes) in seeds {
        std::fs::write(dir.join(name), bytes).expect("write a seed");
    }
}

fn text_seeds<'a>(prefix: &str, texts: impl IntoIterator<Item = &'a str>) -> Seeds {
    texts
        .into_iter()
        .enumerate()
        .map(|(i, t)| (format!("{prefix}-{i:02}"), t.as_bytes().to_vec()))
        .collect()
}

/// A few records of each kind the demo has: statuses, types, scripts.
fn sample() -> Vec<&'static Record> {
    let records = &demo().records;
    let mut out: Vec<&Record> = records.iter().step_by(9).collect();
    for status in ["inactive", "withdrawn"] {
        out.extend(records.iter().find(|r| r.status == status));
    }
    out
}

fn display(r: &Record) -> &str {
    r.names
        .iter()
        .find(|n| n.types.iter().any(|t| t == "registry_display"))
        .map_or("", |n| n.value.as_str())
}

fn bare(r: &Record) -> String {
    RecordId::parse(&r.id)
        .map(|id| {
            id.to_string()
                .rsplit('/')
                .next()
                .unwrap_or_default()
                .to_string()
        })
        .unwrap_or_default()
}

fn router() -> Seeds {
    let mut paths: Vec<String> = [
        "/heartbeat",
        "/v2/heartbeat",
        "/v2/organizations",
        "/v1/organizations?page=2",
        "/organizations?query=university",
        "/v2/organizations?query=northfield%20university&page=1",
        "/v2/organizations?query=%22Northfield%20University%22",
        "/v2/organizations?query=univ*+AND+types:education",
        "/v2/organizations?query=hospital~1",
        "/v2/organizations?filter=types:education,locations.geo_details.country_code:US",
        "/v1/organizations?filter=country.country_code:FR,types:Healthcare",
        "/v2/organizations?filter=status:inactive&all_status=true",
        "/v2/organizations?all_status&filter=locations.geo_details.continent_name:Europe",
        "/v2/organizations?query.advanced=names.value:north*%20AND%20established:[1900%20TO%202000]",
        "/v1/organizations?affiliation=Department%20of%20Physics,%20Northfield%20University,%20USA",
        "/v2/organizations?affiliation=Kilimani%20University%20of%20Agriculture",
        "/v2/organizations?query=%E6%9D%B1%E9%9B%B2",
        "/v2/organizations?page=0",
        "/v2/organizations?query=a&query=b",
        "/v3/organizations",
    ]
    .map(str::to_string)
    .to_vec();
    for r in sample() {
        paths.push(format!("/v2/organizations/{}", bare(r)));
        paths.push(format!("/v1/organizations/{}", r.id));
    }
    text_seeds("path", paths.iter().map(String::as_str))
}

fn advanced() -> Seeds {
    text_seeds(
        "expr",
        [
            "types:education",
            "types:education AND locations.geo_details.country_code:US",
            "status:withdrawn OR types:education",
            "names.value:\"Northfield University\"",
            "names.value:(university northfield)",
            "names.value:north*field",
            "names.value:qu?bec",
            "names.value:\u{6771}\u{96f2}",
            "established:[1900 TO 1950]",
            "established:{1900 TO *}",
            "admin.last_modified.date:[2024-01 TO *]",
            "_exists_:domains -types:company",
            "external_ids.type:funder_registry",
            "external_ids.all:Q19*",
            "_exists_:external_ids.preferred",
            "links.value:*uni*",
            "relationships.label:\"northfield\"",
            "relationships.type:successor",
            "locations.geo_details.name:Brno",
            "NOT (types:company OR types:government) AND status:active",
            "names.value:north\\*",
            "domains:example.org",
        ],
    )
}

fn affiliation() -> Seeds {
    let mut texts = vec![
        "Department of Physics, Northfield University, Northfield, MN, USA".to_string(),
        "Central Institute, Northfield University Hospital and Kilimani University of Agriculture"
            .to_string(),
        "UCL".to_string(),
        "Ministry of Health".to_string(),
        "Dept. of Chemistry; Universit\u{e9} de Montclair-sur-Rh\u{f4}ne, France".to_string(),
    ];
    for r in sample() {
        let place = r
            .locations
            .first()
            .map(|l| format!("{}, {}", l.geo_details.name, l.geo_details.country_name))
            .unwrap_or_default();
        texts.push(format!("Faculty of Medicine, {}, {place}", display(r)));
    }
    text_seeds("text", texts.iter().map(String::as_str))
}

fn shard_files() -> Seeds {
    let d = demo();
    let built = shard::build(&d.records, "demo", 1_700_000_000, &Zstd).expect("the demo builds");
    let mut seeds = Seeds::new();
    seeds.insert("full.shard".into(), built.full_file());
    seeds.insert(
        "typeahead.shard".into(),
        built.file(&[SectionKind::Summary, SectionKind::Names]),
    );
    for kind in SectionKind::ALL {
        seeds.insert(format!("{kind}.shard"), built.file(&[kind]));
    }
    let few: Vec<Record> = d.records.iter().step_by(20).cloned().collect();
    let small = shard::build(&few, "demo", 0, &Zstd).expect("a few records build");
    seeds.insert("few.shard".into(), small.full_file());
    let compat = Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/tests/compat/format-1.shard");
    seeds.insert(
        "format-1.shard".into(),
        std::fs::read(compat).expect("the format-1 fixture"),
    );
    seeds
}

fn sections() -> Seeds {
    let d = demo();
    let file = shard::read_file(&d.built.full_file()).expect("the demo reads");
    let mut seeds = Seeds::new();
    for (kind, raw) in &file.sections {
        let code = SECTION_KINDS.iter().position(|k| k == kind).unwrap_or(0) as u8;
        for (version, flag) in [(2, 0u8), (1, 8)] {
            let mut bytes = vec![code | flag];
            bytes.extend(raw);
            seeds.insert(format!("{kind}-v{version}"), bytes);
        }
    }
    let code = SECTION_KINDS
        .iter()
        .position(|k| *k == SectionKind::ExactWords)
        .unwrap_or(0) as u8;
    exact_words(code, &mut seeds);
    seeds
}

/// The first heads' exact words, each after the byte `selector`.
fn exact_words(selector: u8, seeds: &mut Seeds) {
    let heads = demo().specs.iter().filter_map(|s| s.exact_words.as_ref());
    for (i, words) in heads.enumerate().take(4) {
        let mut bytes = vec![selector];
        bytes.extend(words.encode());
        seeds.insert(format!("exact_words-{i:02}"), bytes);
    }
}

fn import() -> Seeds {
    let d = demo();
    let few: Vec<&Record> = sample().into_iter().take(3).collect();
    let json = serde_json::to_vec_pretty(&few).expect("records serialise");
    let mut seeds = Seeds::new();
    // The upstream spelling the importer also accepts.
    let upstream = String::from_utf8_lossy(&json)
        .replace("registry_display", "ror_display")
        .replace("geo_details", "geonames_details")
        .replace("\"geo_id\"", "\"geonames_id\"")
        .replace("funder_registry", "fundref")
        .replace("open_kb", "wikidata");
    seeds.insert("upstream.json".into(), upstream.into_bytes());
    seeds.insert(
        "one.json".into(),
        serde_json::to_vec(&[&d.records[0]]).unwrap_or_default(),
    );
    seeds.insert("records.json.gz".into(), gzip(&json));
    seeds.insert("release.zip".into(), zip("v1.0-registry-v2.json", &json));
    seeds.insert("records.json".into(), json);
    seeds
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
    out.extend(miniz_oxide::deflate::compress_to_vec(data, 6));
    out.extend(crc32(data).to_le_bytes());
    out.extend((data.len() as u32).to_le_bytes());
    out
}

/// A zip of one deflated file, as a release archive holds its dump.
fn zip(name: &str, data: &[u8]) -> Vec<u8> {
    let deflated = miniz_oxide::deflate::compress_to_vec(data, 6);
    let fields = |out: &mut Vec<u8>| {
        out.extend(20u16.to_le_bytes()); // version needed
        out.extend(0u16.to_le_bytes()); // flags
        out.extend(8u16.to_le_bytes()); // deflate
        out.extend(0u32.to_le_bytes()); // time, date
        out.extend(crc32(data).to_le_bytes());
        out.extend((deflated.len() as u32).to_le_bytes());
        out.extend((data.len() as u32).to_le_bytes());
        out.extend((name.len() as u16).to_le_bytes());
        out.extend(0u16.to_le_bytes()); // extra
    };
    let mut out = 0x0403_4b50u32.to_le_bytes().to_vec();
    fields(&mut out);
    out.extend(name.as_bytes());
    out.extend(&deflated);
    let directory = out.len() as u32;
    out.extend(0x0201_4b50u32.to_le_bytes());
    out.extend(20u16.to_le_bytes()); // version made by
    fields(&mut out);
    out.extend([0u8; 12]); // comment length, disk, attributes
    out.extend(0u32.to_le_bytes()); // local header offset
    out.extend(name.as_bytes());
    let size = out.len() as u32 - directory;
    out.extend(0x0605_4b50u32.to_le_bytes());
    out.extend([0u8; 4]); // disk numbers
    out.extend(1u16.to_le_bytes());
    out.extend(1u16.to_le_bytes());
    out.extend(size.to_le_bytes());
    out.extend(directory.to_le_bytes());
    out.extend(0u16.to_le_bytes());
    out
}

/// A prefix as file-name-safe text: the hex of its UTF-8 (as the site
/// names piece files).
fn hex(key: &str) -> String {
    key.bytes().map(|b| format!("{b:02x}")).collect()
}

fn pieces() -> Seeds {
    let d = demo();
    let mut seeds = Seeds::new();
    let piece = |kind: PieceKind, key: &str| -> Vec<u8> {
        let spec = d
            .specs
            .iter()
            .find(|s| s.kind == kind && s.key == key)
            .expect("a piece of the demo");
        let records: Vec<Record> = spec
            .records
            .iter()
            .map(|&i| d.records[i as usize].clone())
            .collect();
        registry_core::pieces::piece_file(spec, &records, "demo", 0, &Zstd)
            .expect("the piece builds")
    };
    let selected = |input: PieceInput, which: usize, body: &[u8]| {
        let mut bytes = vec![input.byte(), which as u8];
        bytes.extend(body);
        bytes
    };
    for (which, (kind, key)) in d.term_pieces().into_iter().enumerate().step_by(7).take(6) {
        let name = format!("{}-{}", kind.code(), hex(key));
        seeds.insert(name, selected(PieceInput::Piece, which, &piece(kind, key)));
    }
    for (which, key) in d.keys(PieceKind::Id).into_iter().enumerate().take(2) {
        let body = piece(PieceKind::Id, key);
        seeds.insert(
            format!("i-{key}"),
            selected(PieceInput::IdPiece, which, &body),
        );
    }
    let firsts = d.split_firsts();
    let part = |first: &str| -> Vec<u8> {
        let keys: Vec<&str> = d
            .split_keys()
            .filter(|k| registry_core::pieces::first_char(k) == first)
            .collect();
        serde_json::to_vec(&keys).unwrap_or_default()
    };
    let mut entries = Vec::new();
    for (which, first) in firsts.iter().enumerate().take(4) {
        seeds.insert(
            format!("d-{}", hex(first)),
            selected(PieceInput::Part, which, &part(first)),
        );
        if entries.len() < 4 {
            entries.push(pack::Entry {
                kind: b'h',
                key: first.clone(),
                body: piece(PieceKind::Head, first),
            });
            entries.push(pack::Entry {
                kind: b'd',
                key: first.clone(),
                body: part(first),
            });
        }
    }
    let mut bytes = vec![PieceInput::Pack.byte()];
    bytes.extend(pack::encode(&entries));
    seeds.insert("first.pack".into(), bytes);
    exact_words(PieceInput::ExactWords.byte(), &mut seeds);
    seeds
}

/// The demo's E2 search files under the fuzz budget: its statistics and a
/// few common terms' member lists (after the selector byte; for members,
/// the country count too).
fn search() -> Seeds {
    let d = demo();
    let sp = registry_core::pieces::search::search_pieces(
        &d.engine,
        &d.specs,
        &registry_fuzz_targets::BUDGET,
    );
    let mut seeds = Seeds::new();
    let mut stats = vec![0u8];
    stats.extend(sp.stats.encode());
    seeds.insert("stats".to_string(), stats);
    let countries = u8::try_from(sp.stats.countries.len()).unwrap_or(u8::MAX);
    for m in sp.members.iter().take(4) {
        let mut bytes = vec![1u8, countries];
        bytes.extend(m.encode());
        seeds.insert(format!("members-{}", hex(&m.term)), bytes);
    }
    seeds
}
