//! A loaded registry: the decoded summary and names sections, and optionally
//! the records section (full records on demand).
//!
//! Records are addressed by *index*: their position in identifier order.

use crate::id::RecordId;
use crate::model::{ExternalId, Record, STATUSES};
use crate::shard::sections::{self, Names, RecordsSection, Summary, flags};
use crate::shard::{SectionKind, ShardError, ShardInfo, read_file};

/// The registry data in memory.
#[derive(Debug)]
pub struct Registry {
    info: ShardInfo,
    summary: Summary,
    names: Names,
    records: Option<RecordsSection>,
    domains: Option<sections::Domains>,
}

/// A borrowed view of one name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NameRef<'a> {
    /// The name.
    pub value: &'a str,
    /// Its language code.
    pub lang: Option<&'a str>,
    flags: u8,
}

impl NameRef<'_> {
    /// Typed `registry_display`.
    pub fn is_display(&self) -> bool {
        self.flags & flags::DISPLAY != 0
    }
    /// Typed `label`.
    pub fn is_label(&self) -> bool {
        self.flags & flags::LABEL != 0
    }
    /// Typed `alias`.
    pub fn is_alias(&self) -> bool {
        self.flags & flags::ALIAS != 0
    }
    /// Typed `acronym`.
    pub fn is_acronym(&self) -> bool {
        self.flags & flags::ACRONYM != 0
    }
    /// All four type bits at once (`crate::index::name_flags` values).
    pub fn type_bits(&self) -> u8 {
        self.flags
    }
}

/// A borrowed view of one location's place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlaceRef<'a> {
    /// Place (city) name.
    pub city: &'a str,
    /// ISO country code.
    pub country_code: &'a str,
    /// Country name.
    pub country_name: &'a str,
    /// Continent code (schema 2.1 records).
    pub continent_code: Option<&'a str>,
    /// Continent name (schema 2.1 records).
    pub continent_name: Option<&'a str>,
}

/// What a typeahead row or a results row shows, without the full record:
/// the contract's [`registry_contract::Summary`], which the wasm hands to
/// JS as it is.
pub use registry_contract::Summary as RecordSummary;

fn flatten(v: &Option<Option<String>>) -> Option<&str> {
    v.as_ref().and_then(|x| x.as_deref())
}

impl Registry {
    /// A registry without records (summary and names only).
    ///
    /// Made directly rather than by building a shard: the encoder stays out
    /// of the wasm.
    pub fn empty() -> Registry {
        Registry {
            info: ShardInfo {
                format_version: crate::shard::FORMAT_VERSION,
                release: String::new(),
                build_time: 0,
                record_count: 0,
                build_id: 0,
            },
            summary: Summary {
                type_start: vec![0],
                place_start: vec![0],
                succ_start: vec![0],
                ..Summary::default()
            },
            names: Names {
                start: vec![0],
                ..Names::default()
            },
            records: None,
            domains: None,
        }
    }

    /// Loads a shard from one file holding at least the summary and names
    /// sections (the full shard holds all three).
    pub fn from_bytes(bytes: &[u8]) -> Result<Registry, ShardError> {
        Registry::from_files(&[bytes])
    }

    /// From one file already read and verified ([`crate::shard::read_file`]),
    /// for a caller that also wants a section the registry does not keep (a
    /// head piece's [`SectionKind::ExactWords`], which it ignores).
    pub fn from_read_file(file: crate::shard::ShardFile) -> Result<Registry, ShardError> {
        let mut info = None;
        let mut raw = Vec::new();
        merge(file, &mut info, &mut raw)?;
        assemble(info, raw)
    }

    /// Loads a shard from several files of one build (e.g. the per-section
    /// files listed in a manifest). Summary and names are required.
    pub fn from_files(files: &[&[u8]]) -> Result<Registry, ShardError> {
        let mut info: Option<ShardInfo> = None;
        let mut raw: Vec<(SectionKind, Vec<u8>)> = Vec::new();
        for bytes in files {
            read_into(bytes, &mut info, &mut raw)?;
        }
        assemble(info, raw)
    }

    /// Adds the records section from a file of the same build (lazy mode).
    pub fn add_records_file(&mut self, bytes: &[u8]) -> Result<(), ShardError> {
        let file = read_file(bytes)?;
        check_same_build(&mut Some(self.info.clone()), &file.info)?;
        for (kind, data) in file.sections {
            if kind == SectionKind::Domains && self.domains.is_none() {
                self.domains = Some(sections::decode_domains(&data, self.info.record_count)?);
            }
            if kind != SectionKind::Records {
                continue;
            }
            if self.records.is_some() {
                return Err(ShardError::DuplicateSection { section: kind });
            }
            self.records = Some(sections::decode_records(data, &self.summary)?);
        }
        if self.records.is_none() {
            return Err(ShardError::MissingSection {
                section: SectionKind::Records,
            });
        }
        Ok(())
    }

    /// Adds the domains section from a file of the same build (a typeahead
    /// that starts offering the organisation of an e-mail address).
    pub fn add_domains_file(&mut self, bytes: &[u8]) -> Result<(), ShardError> {
        let file = read_file(bytes)?;
        check_same_build(&mut Some(self.info.clone()), &file.info)?;
        let data = file
            .sections
            .into_iter()
            .find(|(k, _)| *k == SectionKind::Domains)
            .ok_or(ShardError::MissingSection {
                section: SectionKind::Domains,
            })?
            .1;
        self.domains = Some(sections::decode_domains(&data, self.info.record_count)?);
        Ok(())
    }

    /// Header facts.
    pub fn info(&self) -> &ShardInfo {
        &self.info
    }

    /// Number of records.
    pub fn len(&self) -> usize {
        self.summary.ids.len()
    }

    /// True when there are no records.
    pub fn is_empty(&self) -> bool {
        self.summary.ids.is_empty()
    }

    /// True when full records are available.
    pub fn has_records(&self) -> bool {
        self.records.is_some()
    }

    /// Index of a record, if present.
    pub fn index_of(&self, id: RecordId) -> Option<usize> {
        self.summary.ids.binary_search(&id.number()).ok()
    }

    /// Identifier of record `i`.
    pub fn id(&self, i: usize) -> RecordId {
        RecordId::from_number(self.summary.ids[i])
            .unwrap_or(RecordId::from_number(0).expect("0 is valid"))
    }

    /// Status of record `i` (`active`, `inactive`, `withdrawn`).
    pub fn status(&self, i: usize) -> &'static str {
        STATUSES[self.summary.status[i] as usize]
    }

    /// Types of record `i`.
    pub fn types(&self, i: usize) -> impl Iterator<Item = &str> + '_ {
        let s = &self.summary;
        s.types[s.type_start[i] as usize..s.type_start[i + 1] as usize]
            .iter()
            .map(|&t| s.type_table[t as usize].as_str())
    }

    /// Names of record `i`, in source order.
    pub fn names(&self, i: usize) -> impl Iterator<Item = NameRef<'_>> + '_ {
        let n = &self.names;
        n.entries[n.start[i] as usize..n.start[i + 1] as usize]
            .iter()
            .map(move |e| NameRef {
                value: &n.text[e.start as usize..(e.start + e.len) as usize],
                lang: (e.lang > 0).then(|| n.langs[e.lang as usize - 1].as_str()),
                flags: e.flags,
            })
    }

    /// Total number of names of all records.
    pub fn name_count(&self) -> usize {
        self.names.entries.len()
    }

    /// Total bytes of all name values.
    pub fn name_bytes(&self) -> usize {
        self.names.text.len()
    }

    /// Display name of record `i`.
    pub fn display_name(&self, i: usize) -> &str {
        self.names(i)
            .find(NameRef::is_display)
            .map(|n| n.value)
            .unwrap_or_default()
    }

    /// Places of record `i`, first location first.
    pub fn places(&self, i: usize) -> impl Iterator<Item = PlaceRef<'_>> + '_ {
        let s = &self.summary;
        s.places[s.place_start[i] as usize..s.place_start[i + 1] as usize]
            .iter()
            .map(move |p| {
                let (code, name) = &s.countries[p.country as usize];
                let (k_code, k_name) = &s.continents[p.continent as usize];
                PlaceRef {
                    city: &s.cities[p.city as usize],
                    country_code: code,
                    country_name: name,
                    continent_code: flatten(k_code),
                    continent_name: flatten(k_name),
                }
            })
    }

    /// Successor identifiers of record `i`.
    pub fn successors(&self, i: usize) -> impl Iterator<Item = RecordId> + '_ {
        let s = &self.summary;
        s.successors[s.succ_start[i] as usize..s.succ_start[i + 1] as usize]
            .iter()
            .filter_map(|&n| RecordId::from_number(n))
    }

    /// The stored record prior of record `i` (higher is more likely to be
    /// picked; [`crate::prior::NEUTRAL`] for format-1 shards).
    pub fn prior(&self, i: usize) -> u8 {
        self.summary.prior[i]
    }

    /// The same registry with every record at the neutral prior, as a
    /// format-1 shard loads: for measuring what the prior changes.
    pub fn without_prior(self) -> Registry {
        let n = self.len();
        self.with_priors(vec![crate::prior::NEUTRAL; n])
    }

    /// The same registry with the given priors (one per record, by index;
    /// missing ones neutral): for measuring other priors.
    pub fn with_priors(mut self, mut priors: Vec<u8>) -> Registry {
        priors.resize(self.len(), crate::prior::NEUTRAL);
        self.summary.prior = priors;
        self
    }

    /// Every record's stored prior, by record index.
    pub fn priors(&self) -> &[u8] {
        &self.summary.prior
    }

    /// The internet domains of record `i`: from the domains section when it
    /// is loaded, else from the records section, else none.
    pub fn domains(&self, i: usize) -> Vec<String> {
        if let Some(d) = &self.domains {
            return d.values[d.start[i] as usize..d.start[i + 1] as usize].to_vec();
        }
        self.records
            .as_ref()
            .and_then(|rec| sections::record_domains(i, rec).ok())
            .unwrap_or_default()
    }

    /// Whether domains are known (the domains or the records section is
    /// loaded).
    pub fn has_domains(&self) -> bool {
        self.domains.is_some() || self.records.is_some()
    }

    /// The typeahead summary of record `i`.
    pub fn summary(&self, i: usize) -> RecordSummary {
        let first = self.places(i).next();
        RecordSummary {
            id: self.id(i).url(),
            name: self.display_name(i).to_string(),
            acronyms: self
                .names(i)
                .filter(NameRef::is_acronym)
                .map(|n| n.value.to_string())
                .collect(),
            city: first.map(|p| p.city.to_string()),
            country_code: first.map(|p| p.country_code.to_string()),
            country_name: first.map(|p| p.country_name.to_string()),
            types: self.types(i).map(str::to_string).collect(),
            status: self.status(i).to_string(),
            successors: self.successors(i).map(RecordId::url).collect(),
        }
    }

    /// The full v2 record `i` (needs the records section).
    pub fn record(&self, i: usize) -> Result<Record, ShardError> {
        let rec = self.records.as_ref().ok_or(ShardError::MissingSection {
            section: SectionKind::Records,
        })?;
        sections::assemble(i, &self.summary, &self.names, rec)
    }
}

impl Registry {
    fn records_section(&self) -> Result<&RecordsSection, ShardError> {
        self.records.as_ref().ok_or(ShardError::MissingSection {
            section: SectionKind::Records,
        })
    }

    /// The external ids of record `i` (needs the records section). Decodes
    /// only that part of the record: much cheaper than [`Registry::record`].
    pub fn external_ids(&self, i: usize) -> Result<Vec<ExternalId>, ShardError> {
        sections::external_ids(i, self.records_section()?)
    }

    /// The established year of record `i` (needs the records section).
    /// Decodes only that part of the record, so a count over every match
    /// stays cheap.
    pub fn established(&self, i: usize) -> Result<Option<i64>, ShardError> {
        sections::record_established(i, self.records_section()?)
    }

    /// The coordinates (lat, lng) of record `i`'s locations, first location
    /// first (`None` where one has none; needs the records section).
    pub fn coordinates(&self, i: usize) -> Result<Vec<Option<(f64, f64)>>, ShardError> {
        let n = self.places(i).count();
        sections::record_coordinates(i, self.records_section()?, n)
    }

    /// Calls `f` with every external-id value of record `i`, borrowed (each
    /// of `all`, then `preferred` when it is not one of them); needs the
    /// records section. Allocates nothing.
    pub fn for_each_external_id(&self, i: usize, f: impl FnMut(&str)) -> Result<(), ShardError> {
        sections::for_each_external_id(i, self.records_section()?, f)
    }
}

/// Checks and decompresses one file of a build into `raw`, refusing a
/// file of another build or a section given twice.
fn read_into(
    bytes: &[u8],
    info: &mut Option<ShardInfo>,
    raw: &mut Vec<(SectionKind, Vec<u8>)>,
) -> Result<(), ShardError> {
    merge(read_file(bytes)?, info, raw)
}

/// Adds a read file's sections to `raw` (see [`read_into`]).
fn merge(
    file: crate::shard::ShardFile,
    info: &mut Option<ShardInfo>,
    raw: &mut Vec<(SectionKind, Vec<u8>)>,
) -> Result<(), ShardError> {
    check_same_build(info, &file.info)?;
    for (kind, data) in file.sections {
        if raw.iter().any(|(k, _)| *k == kind) {
            return Err(ShardError::DuplicateSection { section: kind });
        }
        raw.push((kind, data));
    }
    Ok(())
}

/// Decodes the sections read from the files of one build.
fn assemble(
    info: Option<ShardInfo>,
    mut raw: Vec<(SectionKind, Vec<u8>)>,
) -> Result<Registry, ShardError> {
    let info = info.ok_or(ShardError::MissingSection {
        section: SectionKind::Summary,
    })?;
    let mut take = |kind| {
        raw.iter()
            .position(|(k, _)| *k == kind)
            .map(|p| raw.swap_remove(p).1)
    };
    let summary_bytes = take(SectionKind::Summary).ok_or(ShardError::MissingSection {
        section: SectionKind::Summary,
    })?;
    let names_bytes = take(SectionKind::Names).ok_or(ShardError::MissingSection {
        section: SectionKind::Names,
    })?;
    let records_bytes = take(SectionKind::Records);
    let domains = take(SectionKind::Domains)
        .map(|d| sections::decode_domains(&d, info.record_count))
        .transpose()?;
    let summary = sections::decode_summary(&summary_bytes, info.record_count, info.format_version)?;
    let names = sections::decode_names(names_bytes, info.record_count)?;
    let mut registry = Registry {
        info,
        summary,
        names,
        records: None,
        domains,
    };
    if let Some(bytes) = records_bytes {
        registry.records = Some(sections::decode_records(bytes, &registry.summary)?);
    }
    Ok(registry)
}

/// [`Registry::from_files`] a piece at a time, for hosts that spread the
/// work out (a page's main thread): each [`RegistryLoader::step`]
/// decompresses about a given number of bytes
/// ([`crate::shard::FileReader`]), [`RegistryLoader::finish`] decodes the
/// sections.
pub struct RegistryLoader {
    files: Vec<Vec<u8>>,
    next: usize,
    current: Option<crate::shard::FileReader>,
    info: Option<ShardInfo>,
    raw: Vec<(SectionKind, Vec<u8>)>,
}

impl RegistryLoader {
    /// Takes the files of one build (at least summary and names). Only
    /// their headers are read here, so a file that is no shard at all is
    /// refused at once.
    pub fn new(files: Vec<Vec<u8>>) -> Result<RegistryLoader, ShardError> {
        for f in &files {
            crate::shard::read_header(f)?;
        }
        Ok(RegistryLoader {
            files,
            next: 0,
            current: None,
            info: None,
            raw: Vec::new(),
        })
    }

    /// Reads on, about `budget` decompressed bytes; true when every file is
    /// read.
    pub fn step(&mut self, budget: usize) -> Result<bool, ShardError> {
        let mut reader = match self.current.take() {
            Some(r) => r,
            None => match self.files.get_mut(self.next) {
                Some(bytes) => {
                    self.next += 1;
                    crate::shard::FileReader::new(std::mem::take(bytes))?
                }
                None => return Ok(true),
            },
        };
        if reader.step(budget)? {
            merge(reader.finish()?, &mut self.info, &mut self.raw)?;
        } else {
            self.current = Some(reader);
        }
        Ok(self.current.is_none() && self.next == self.files.len())
    }

    /// Reads what is left and decodes the sections.
    pub fn finish(mut self) -> Result<Registry, ShardError> {
        while !self.step(usize::MAX)? {}
        assemble(self.info, self.raw)
    }
}

fn check_same_build(first: &mut Option<ShardInfo>, other: &ShardInfo) -> Result<(), ShardError> {
    match first {
        None => {
            *first = Some(other.clone());
            Ok(())
        }
        Some(f) if f.build_id == other.build_id && f.release == other.release => Ok(()),
        Some(f) => Err(ShardError::MixedBuilds {
            first: format!("{} build {:016x}", f.release, f.build_id),
            other: format!("{} build {:016x}", other.release, other.build_id),
        }),
    }
}
