//! Encoding and decoding of the three sections.
//!
//! Records are stored in identifier order; a record's position in that order
//! is its *index* everywhere in the core. Low-cardinality strings (types,
//! languages, places, countries, dates, schema versions, link and id kinds)
//! are stored once in string tables and referred to by index; columns of the
//! same kind are kept together so the compressor sees similar bytes side by
//! side.

use super::bytes::{Reader, StringTable, TableBuilder, Writer, order_after};
use super::{SectionKind, ShardError};
use crate::id::RecordId;
use crate::model::{
    ACRONYM, ALIAS, Admin, AdminEvent, DISPLAY, ExternalId, GeoDetails, LABEL, Link, Location,
    Name, Record, Relationship, STATUSES,
};

/// Name-type flag bits.
pub mod flags {
    /// `registry_display`.
    pub const DISPLAY: u8 = 1;
    /// `label`.
    pub const LABEL: u8 = 2;
    /// `alias`.
    pub const ALIAS: u8 = 4;
    /// `acronym`.
    pub const ACRONYM: u8 = 8;
}

fn name_flags(types: &[String]) -> u8 {
    types.iter().fold(0, |f, t| {
        f | match t.as_str() {
            DISPLAY => flags::DISPLAY,
            LABEL => flags::LABEL,
            ALIAS => flags::ALIAS,
            ACRONYM => flags::ACRONYM,
            _ => 0,
        }
    })
}

/// One location's place fields, as indexes into the summary tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    /// Index into `cities`.
    pub city: u32,
    /// Index into `countries`.
    pub country: u32,
    /// Index into `continents`.
    pub continent: u32,
}

/// A continent as stored: code and name, each absent, null or a value.
pub type ContinentPair = (Option<Option<String>>, Option<Option<String>>);

/// The decoded summary section.
#[derive(Debug, Default)]
pub struct Summary {
    /// Identifier numbers, ascending.
    pub ids: Vec<u32>,
    /// Index into [`STATUSES`].
    pub status: Vec<u8>,
    /// Distinct type strings.
    pub type_table: Vec<String>,
    /// `types[type_start[i]..type_start[i+1]]` are record i's types.
    pub type_start: Vec<u32>,
    /// Type indexes.
    pub types: Vec<u16>,
    /// Distinct place names.
    pub cities: Vec<String>,
    /// Distinct (code, name) country pairs.
    pub countries: Vec<(String, String)>,
    /// Distinct continent pairs.
    pub continents: Vec<ContinentPair>,
    /// `places[place_start[i]..place_start[i+1]]` are record i's locations.
    pub place_start: Vec<u32>,
    /// Places.
    pub places: Vec<Place>,
    /// `successors[succ_start[i]..succ_start[i+1]]`: ids of record i's successors.
    pub succ_start: Vec<u32>,
    /// Successor id numbers.
    pub successors: Vec<u32>,
    /// The record prior of each record ([`crate::prior`]); format
    /// 1 shards have none and every record gets the neutral value.
    pub prior: Vec<u8>,
}

/// The decoded domains section.
#[derive(Debug, Default)]
pub struct Domains {
    /// `values[start[i]..start[i+1]]` are record i's domains.
    pub start: Vec<u32>,
    /// Domains.
    pub values: Vec<String>,
}

/// One name, as stored.
#[derive(Clone, Copy, Debug)]
pub struct NameEntry {
    /// Byte range in `text`.
    pub start: u32,
    /// Byte length.
    pub len: u32,
    /// 0 = null, else index + 1 into `langs`.
    pub lang: u16,
    /// [`flags`] bits.
    pub flags: u8,
    /// Range in `type_vals`.
    pub types_start: u32,
    /// Number of types.
    pub types_len: u8,
}

/// The decoded names section.
#[derive(Debug, Default)]
pub struct Names {
    /// Distinct language codes.
    pub langs: Vec<String>,
    /// Distinct name-type strings.
    pub type_table: Vec<String>,
    /// `entries[start[i]..start[i+1]]` are record i's names, in source order.
    pub start: Vec<u32>,
    /// Names.
    pub entries: Vec<NameEntry>,
    /// Name-type indexes.
    pub type_vals: Vec<u16>,
    /// Every name value, concatenated.
    pub text: String,
}

/// Tables of the records section.
#[derive(Debug, Default)]
pub struct RecordTables {
    dates: StringTable,
    schemas: StringTable,
    ext_kinds: StringTable,
    link_kinds: StringTable,
    rel_kinds: StringTable,
    subdivision_codes: StringTable,
    subdivision_names: StringTable,
}

/// The records section: raw bytes, per-record offsets and tables.
#[derive(Debug, Default)]
pub struct RecordsSection {
    pub(crate) bytes: Vec<u8>,
    pub(crate) offsets: Vec<u32>,
    pub(crate) tables: RecordTables,
}

/// Encodes records into the raw sections of the given kinds.
pub fn encode_kinds(
    records: &[Record],
    kinds: &[SectionKind],
    orders: &TableOrders,
) -> Result<Vec<(SectionKind, Vec<u8>)>, String> {
    let mut order: Vec<(RecordId, &Record)> = records
        .iter()
        .map(|r| {
            RecordId::parse(&r.id)
                .map(|id| (id, r))
                .map_err(|e| e.to_string())
        })
        .collect::<Result<_, _>>()?;
    order.sort_by_key(|(id, _)| *id);
    if let Some(w) = order.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(format!("duplicate id {}", w[0].0));
    }
    let recs: Vec<&Record> = order.iter().map(|(_, r)| *r).collect();
    let mut out = Vec::new();
    for &kind in kinds {
        out.push((
            kind,
            match kind {
                SectionKind::Summary => encode_summary(&order, orders)?,
                SectionKind::Names => encode_names(&recs, orders),
                SectionKind::Records => encode_records(&recs, orders)?,
                SectionKind::Domains => encode_domains(&recs),
                SectionKind::ExactWords
                | SectionKind::SearchStats
                | SectionKind::TermMembers
                | SectionKind::TermGroups
                | SectionKind::SearchTerms => {
                    return Err(format!(
                        "{kind} is written by the piece builder, not from records"
                    ));
                }
            },
        ));
    }
    Ok(out)
}

fn status_code(s: &str) -> Result<u8, String> {
    STATUSES
        .iter()
        .position(|x| *x == s)
        .map(|p| p as u8)
        .ok_or_else(|| format!("unknown status '{s}'"))
}

fn continent_of(g: &GeoDetails) -> ContinentPair {
    (g.continent_code.clone(), g.continent_name.clone())
}

fn encode_summary(order: &[(RecordId, &Record)], orders: &TableOrders) -> Result<Vec<u8>, String> {
    let mut types = TableBuilder::default();
    let mut cities = TableBuilder::default();
    let mut countries: Vec<(String, String)> = Vec::new();
    let mut continents: Vec<ContinentPair> = Vec::new();
    for (_, r) in order {
        r.types.iter().for_each(|t| types.add(t));
        for l in &r.locations {
            let g = &l.geo_details;
            cities.add(&g.name);
            let pair = (g.country_code.clone(), g.country_name.clone());
            if !countries.contains(&pair) {
                countries.push(pair);
            }
            let c = continent_of(g);
            if !continents.contains(&c) {
                continents.push(c);
            }
        }
    }
    let (types, cities) = (
        types.finish_after(&orders.types),
        cities.finish_after(&orders.cities),
    );
    let mut w = Writer::default();
    w.usize(order.len());
    let mut prev = 0u32;
    for (i, (id, _)) in order.iter().enumerate() {
        w.varint((id.number() - if i == 0 { 0 } else { prev + 1 }) as u64);
        prev = id.number();
    }
    for (_, r) in order {
        w.u8(status_code(&r.status)?);
    }
    types.write(&mut w);
    for (_, r) in order {
        w.usize(r.types.len());
        r.types.iter().for_each(|t| w.usize(types.idx(t)));
    }
    cities.write(&mut w);
    w.usize(countries.len());
    for (code, name) in &countries {
        w.str(code);
        w.str(name);
    }
    w.usize(continents.len());
    let tri = |w: &mut Writer, v: &Option<Option<String>>| match v {
        None => w.u8(0),
        Some(None) => w.u8(1),
        Some(Some(s)) => {
            w.u8(2);
            w.str(s)
        }
    };
    for (code, name) in &continents {
        tri(&mut w, code);
        tri(&mut w, name);
    }
    for (_, r) in order {
        w.usize(r.locations.len());
        for l in &r.locations {
            let g = &l.geo_details;
            w.usize(cities.idx(&g.name));
            let pair = (g.country_code.clone(), g.country_name.clone());
            w.usize(
                countries
                    .iter()
                    .position(|c| *c == pair)
                    .unwrap_or_default(),
            );
            let c = continent_of(g);
            w.usize(continents.iter().position(|x| *x == c).unwrap_or_default());
        }
    }
    for (_, r) in order {
        let succ: Vec<u32> = r
            .relationships
            .iter()
            .filter(|x| x.kind == "successor")
            .filter_map(|x| RecordId::parse(&x.id).ok())
            .map(RecordId::number)
            .collect();
        w.usize(succ.len());
        succ.iter().for_each(|&s| w.varint(s as u64));
    }
    // Format 2: the record prior.
    for (_, r) in order {
        w.u8(crate::prior::stored(r));
    }
    Ok(w.buf)
}

fn encode_domains(recs: &[&Record]) -> Vec<u8> {
    let mut w = Writer::default();
    w.usize(recs.len());
    for r in recs {
        w.usize(r.domains.len());
        r.domains.iter().for_each(|d| w.str(d));
    }
    w.buf
}

/// Decodes the domains section.
pub fn decode_domains(data: &[u8], record_count: u32) -> Result<Domains, ShardError> {
    let mut r = Reader::new(data, SectionKind::Domains);
    let n = r.count("record count")?;
    if n != record_count as usize {
        return Err(r.malformed(format!("{n} records, the header says {record_count}")));
    }
    let mut d = Domains::default();
    let mut counts = Vec::with_capacity(n);
    for _ in 0..n {
        let c = r.count("domain count")?;
        counts.push(c);
        for _ in 0..c {
            d.values.push(r.str()?.to_string());
        }
    }
    d.start = starts(counts.into_iter());
    if !r.at_end() {
        return Err(r.malformed("unexpected bytes at the end"));
    }
    Ok(d)
}

/// A name's language and types together: few distinct combinations, so one
/// small index per name instead of several.
type NameKind = (Option<String>, Vec<String>);

/// The order of a release's string tables, for the next release to keep.
///
/// Records refer to a table's values by index, and a table is ordered by
/// how often each value is used, so a release that adds records reorders
/// it and every reference to a moved value changes: most of the summary's
/// and the records' bytes for a 3 % change. A build given the last
/// release's orders keeps them (values no longer used go, new ones come
/// last), so what changes between the releases' files is the changed
/// records, which a delta ([`super::delta`]) then carries.
#[derive(Clone, Debug, Default)]
pub struct TableOrders {
    types: Vec<String>,
    cities: Vec<String>,
    name_kinds: Vec<NameKind>,
    records: [Vec<String>; 7],
}

impl TableOrders {
    /// The orders of the tables in a file's sections (those it has).
    pub fn read(
        sections: &[(SectionKind, Vec<u8>)],
        record_count: u32,
        format_version: u16,
    ) -> Result<TableOrders, ShardError> {
        let mut orders = TableOrders::default();
        for (kind, data) in sections {
            match kind {
                SectionKind::Summary => {
                    let s = decode_summary(data, record_count, format_version)?;
                    (orders.types, orders.cities) = (s.type_table, s.cities);
                }
                SectionKind::Names => orders.name_kinds = read_name_kinds(data)?,
                SectionKind::Records => {
                    let mut r = Reader::new(data, SectionKind::Records);
                    for table in &mut orders.records {
                        *table = StringTable::read(&mut r)?.strings;
                    }
                }
                _ => {}
            }
        }
        Ok(orders)
    }
}

/// The (language, types) table at the start of the names section.
fn read_name_kinds(data: &[u8]) -> Result<Vec<NameKind>, ShardError> {
    let mut r = Reader::new(data, SectionKind::Names);
    let n = r.count("name kind count")?;
    (0..n)
        .map(|_| {
            let lang = match r.varint()? {
                0 => None,
                1 => Some(r.str()?.to_string()),
                t => return Err(r.malformed(format!("bad optional tag {t}"))),
            };
            let nt = r.usize_max(u8::MAX as usize, "name type count")?;
            let types = (0..nt)
                .map(|_| r.str().map(str::to_string))
                .collect::<Result<_, _>>()?;
            Ok((lang, types))
        })
        .collect()
}

fn encode_names(recs: &[&Record], orders: &TableOrders) -> Vec<u8> {
    let mut kind_count: std::collections::HashMap<NameKind, usize> = Default::default();
    for r in recs {
        for n in &r.names {
            *kind_count
                .entry((n.lang.clone(), n.types.clone()))
                .or_default() += 1;
        }
    }
    let kinds = order_after(kind_count, &orders.name_kinds);
    let kind_index: std::collections::HashMap<&NameKind, usize> =
        kinds.iter().enumerate().map(|(i, k)| (k, i)).collect();
    let mut w = Writer::default();
    w.usize(kinds.len());
    for (lang, types) in &kinds {
        match lang {
            None => w.varint(0),
            Some(l) => {
                w.varint(1);
                w.str(l)
            }
        }
        w.usize(types.len());
        types.iter().for_each(|t| w.str(t));
    }
    for r in recs {
        w.usize(r.names.len());
    }
    for r in recs {
        for n in &r.names {
            w.usize(kind_index[&(n.lang.clone(), n.types.clone())]);
        }
    }
    // The text last, NUL-terminated (cheaper than lengths once compressed;
    // the importer rejects names containing NUL).
    for r in recs {
        for n in &r.names {
            w.buf.extend_from_slice(n.value.as_bytes());
            w.u8(0);
        }
    }
    w.buf
}

fn encode_records(recs: &[&Record], orders: &TableOrders) -> Result<Vec<u8>, String> {
    let mut b: [TableBuilder; 7] = Default::default();
    for r in recs {
        for ev in [&r.admin.created, &r.admin.last_modified] {
            b[0].add(&ev.date);
            b[1].add(&ev.schema_version);
        }
        r.external_ids.iter().for_each(|e| b[2].add(&e.kind));
        r.links.iter().for_each(|l| b[3].add(&l.kind));
        r.relationships.iter().for_each(|x| b[4].add(&x.kind));
        for l in &r.locations {
            if let Some(Some(c)) = &l.geo_details.country_subdivision_code {
                b[5].add(c);
            }
            if let Some(Some(c)) = &l.geo_details.country_subdivision_name {
                b[6].add(c);
            }
        }
    }
    let [
        dates,
        schemas,
        ext_kinds,
        link_kinds,
        rel_kinds,
        sub_codes,
        sub_names,
    ] = {
        let mut previous = orders.records.iter();
        b.map(|t| t.finish_after(previous.next().map_or(&[][..], Vec::as_slice)))
    };
    let mut w = Writer::default();
    for t in [
        &dates,
        &schemas,
        &ext_kinds,
        &link_kinds,
        &rel_kinds,
        &sub_codes,
        &sub_names,
    ] {
        t.write(&mut w);
    }
    for r in recs {
        for ev in [&r.admin.created, &r.admin.last_modified] {
            w.usize(dates.idx(&ev.date));
            w.usize(schemas.idx(&ev.schema_version));
        }
        w.usize(r.domains.len());
        r.domains.iter().for_each(|d| w.str(d));
        match r.established {
            None => w.varint(0),
            Some(y) => {
                w.varint(1);
                w.zigzag(y)
            }
        }
        w.usize(r.external_ids.len());
        for e in &r.external_ids {
            w.usize(ext_kinds.idx(&e.kind));
            w.usize(e.all.len());
            e.all.iter().for_each(|a| w.str(a));
            // The preferred id is nearly always one of `all`: store its position.
            match &e.preferred {
                None => w.varint(0),
                Some(p) => match e.all.iter().position(|a| a == p) {
                    Some(i) => w.usize(i + 2),
                    None => {
                        w.varint(1);
                        w.str(p)
                    }
                },
            }
        }
        w.usize(r.links.len());
        for l in &r.links {
            w.usize(link_kinds.idx(&l.kind));
            w.str(&l.value);
        }
        for l in &r.locations {
            let g = &l.geo_details;
            match l.geo_id {
                None => w.varint(0),
                Some(id) => {
                    w.varint(1);
                    w.zigzag(id)
                }
            }
            w.number(g.lat.as_ref());
            w.number(g.lng.as_ref());
            sub_codes.write_tri(&mut w, &g.country_subdivision_code);
            sub_names.write_tri(&mut w, &g.country_subdivision_name);
        }
        w.usize(r.relationships.len());
        for x in &r.relationships {
            w.usize(rel_kinds.idx(&x.kind));
            // Related ids are nearly always well-formed: store the number.
            match RecordId::parse(&x.id) {
                Ok(id) if id.url() == x.id => w.varint(id.number() as u64 + 1),
                _ => {
                    w.varint(0);
                    w.str(&x.id)
                }
            }
            w.str(&x.label);
        }
        w.usize(r.types.len());
    }
    Ok(w.buf)
}

/// Builds `start` offsets from per-item counts.
fn starts(counts: impl Iterator<Item = usize>) -> Vec<u32> {
    let mut out = vec![0u32];
    let mut total = 0u32;
    for c in counts {
        total = total.saturating_add(c as u32);
        out.push(total);
    }
    out
}

/// Decodes the summary section.
pub fn decode_summary(
    data: &[u8],
    record_count: u32,
    format_version: u16,
) -> Result<Summary, ShardError> {
    let mut r = Reader::new(data, SectionKind::Summary);
    let n = r.count("record count")?;
    if n != record_count as usize {
        return Err(r.malformed(format!("{n} records, the header says {record_count}")));
    }
    let mut s = Summary {
        ids: Vec::with_capacity(n),
        ..Summary::default()
    };
    let mut next = 0u64;
    for _ in 0..n {
        // Checked: a delta near 2^64 would wrap to a smaller id.
        let id = next
            .checked_add(r.varint()?)
            .filter(|&id| id <= RecordId::MAX as u64)
            .ok_or_else(|| r.malformed("identifier out of range"))?;
        s.ids.push(id as u32);
        next = id + 1;
    }
    for _ in 0..n {
        let st = r.u8()?;
        if st as usize >= STATUSES.len() {
            return Err(r.malformed(format!("unknown status code {st}")));
        }
        s.status.push(st);
    }
    s.type_table = StringTable::read(&mut r)?.strings;
    let mut counts = Vec::with_capacity(n);
    for _ in 0..n {
        let c = r.count("type count")?;
        counts.push(c);
        for _ in 0..c {
            let last = s.type_table.len().saturating_sub(1).min(u16::MAX as usize);
            s.types.push(r.usize_max(last, "type index")? as u16);
        }
    }
    s.type_start = starts(counts.into_iter());
    s.cities = StringTable::read(&mut r)?.strings;
    let nc = r.count("country count")?;
    for _ in 0..nc {
        s.countries
            .push((r.str()?.to_string(), r.str()?.to_string()));
    }
    let nk = r.count("continent count")?;
    for _ in 0..nk {
        let mut tri = || -> Result<Option<Option<String>>, ShardError> {
            Ok(match r.u8()? {
                0 => None,
                1 => Some(None),
                2 => Some(Some(r.str()?.to_string())),
                t => return Err(r.malformed(format!("bad optional tag {t}"))),
            })
        };
        let code = tri()?;
        let name = tri()?;
        s.continents.push((code, name));
    }
    let mut counts = Vec::with_capacity(n);
    for _ in 0..n {
        let c = r.count("location count")?;
        counts.push(c);
        for _ in 0..c {
            let city = r.usize_max(s.cities.len().saturating_sub(1), "city index")? as u32;
            let country = r.usize_max(s.countries.len().saturating_sub(1), "country index")? as u32;
            let continent =
                r.usize_max(s.continents.len().saturating_sub(1), "continent index")? as u32;
            if s.cities.is_empty() || s.countries.is_empty() || s.continents.is_empty() {
                return Err(r.malformed("location refers to an empty table"));
            }
            s.places.push(Place {
                city,
                country,
                continent,
            });
        }
    }
    s.place_start = starts(counts.into_iter());
    let mut counts = Vec::with_capacity(n);
    for _ in 0..n {
        let c = r.count("successor count")?;
        counts.push(c);
        for _ in 0..c {
            s.successors
                .push(r.usize_max(RecordId::MAX as usize, "successor id")? as u32);
        }
    }
    s.succ_start = starts(counts.into_iter());
    if format_version >= 2 {
        s.prior = r.bytes(n)?.to_vec();
    } else {
        s.prior = vec![crate::prior::NEUTRAL; n];
    }
    if !r.at_end() {
        return Err(r.malformed("unexpected bytes at the end"));
    }
    Ok(s)
}

/// Decodes the names section.
pub fn decode_names(data: Vec<u8>, record_count: u32) -> Result<Names, ShardError> {
    let mut r = Reader::new(&data, SectionKind::Names);
    let mut s = Names::default();
    // Kinds: (lang index + 1 or 0, flags, range of type indexes).
    let nk = r.count("name kind count")?;
    let mut kinds = Vec::with_capacity(nk);
    for _ in 0..nk {
        let lang = match r.varint()? {
            0 => 0,
            1 => {
                let l = r.str()?;
                let at = s.langs.iter().position(|x| x == l).unwrap_or_else(|| {
                    s.langs.push(l.to_string());
                    s.langs.len() - 1
                });
                u16::try_from(at + 1).map_err(|_| r.malformed("too many languages"))?
            }
            t => return Err(r.malformed(format!("bad optional tag {t}"))),
        };
        let nt = r.usize_max(u8::MAX as usize, "name type count")?;
        let types_start = s.type_vals.len() as u32;
        let mut f = 0u8;
        for _ in 0..nt {
            let t = r.str()?;
            f |= name_flags(&[t.to_string()]);
            let at = s.type_table.iter().position(|x| x == t).unwrap_or_else(|| {
                s.type_table.push(t.to_string());
                s.type_table.len() - 1
            });
            s.type_vals
                .push(u16::try_from(at).map_err(|_| r.malformed("too many name types"))?);
        }
        kinds.push((lang, f, types_start, nt as u8));
    }
    // Every record's name count takes a byte: check before reserving.
    let n = record_count as usize;
    if n > r.remaining() {
        return Err(r.malformed(format!("{n} records cannot fit in the section")));
    }
    let mut counts = Vec::with_capacity(n);
    for _ in 0..n {
        counts.push(r.count("name count")?);
    }
    s.start = starts(counts.iter().copied());
    let total = *s.start.last().unwrap_or(&0) as usize;
    // Each name takes at least two bytes; more names than that is corruption.
    if total > r.remaining() / 2 {
        return Err(r.malformed(format!("{total} names cannot fit in the section")));
    }
    s.entries.reserve(total);
    for _ in 0..total {
        let k = r.usize_max(kinds.len().saturating_sub(1), "name kind")?;
        let &(lang, flags, types_start, types_len) =
            kinds.get(k).ok_or_else(|| r.malformed("no name kinds"))?;
        s.entries.push(NameEntry {
            start: 0,
            len: 0,
            lang,
            flags,
            types_start,
            types_len,
        });
    }
    // The text: NUL-terminated names. The section buffer itself becomes
    // the `String` (no copy of the text).
    let text_at = r.pos();
    let malformed = |what: &str| ShardError::Malformed {
        section: SectionKind::Names,
        offset: text_at,
        what: what.into(),
    };
    let mut data = data;
    data.drain(..text_at);
    let text = String::from_utf8(data).map_err(|_| malformed("names are not UTF-8"))?;
    let mut ends = text.match_indices('\0').map(|(i, _)| i);
    let mut start = 0usize;
    for e in &mut s.entries {
        let end = ends
            .next()
            .ok_or_else(|| malformed("fewer names than the counts say"))?;
        e.start = start as u32;
        e.len = (end - start) as u32;
        start = end + 1;
    }
    if start != text.len() {
        return Err(malformed("more names than the counts say"));
    }
    s.text = text;
    Ok(s)
}

/// The parts of a record the records section holds.
pub struct RecordRest {
    admin: Admin,
    domains: Vec<String>,
    established: Option<i64>,
    external_ids: Vec<ExternalId>,
    links: Vec<Link>,
    /// geo_id, lat, lng, subdivision code, subdivision name per location.
    locations: Vec<LocationRest>,
    relationships: Vec<Relationship>,
}

type LocationRest = (
    Option<i64>,
    Option<serde_json::Number>,
    Option<serde_json::Number>,
    Option<Option<String>>,
    Option<Option<String>>,
);

/// Decodes the records section's tables and per-record offsets, checking
/// every record once so that later lookups cannot meet malformed bytes.
pub fn decode_records(data: Vec<u8>, summary: &Summary) -> Result<RecordsSection, ShardError> {
    let (tables, offsets) = {
        let mut r = Reader::new(&data, SectionKind::Records);
        let mut t = [(); 7].map(|_| StringTable::default());
        for table in &mut t {
            *table = StringTable::read(&mut r)?;
        }
        let [
            dates,
            schemas,
            ext_kinds,
            link_kinds,
            rel_kinds,
            subdivision_codes,
            subdivision_names,
        ] = t;
        let tables = RecordTables {
            dates,
            schemas,
            ext_kinds,
            link_kinds,
            rel_kinds,
            subdivision_codes,
            subdivision_names,
        };
        let mut offsets = Vec::with_capacity(summary.ids.len());
        for i in 0..summary.ids.len() {
            offsets.push(r.pos() as u32);
            let locations = (summary.place_start[i + 1] - summary.place_start[i]) as usize;
            let types = (summary.type_start[i + 1] - summary.type_start[i]) as usize;
            read_rest(&mut r, &tables, locations, types)?;
        }
        if !r.at_end() {
            return Err(r.malformed("unexpected bytes at the end"));
        }
        (tables, offsets)
    };
    Ok(RecordsSection {
        bytes: data,
        offsets,
        tables,
    })
}

fn read_rest(
    r: &mut Reader<'_>,
    t: &RecordTables,
    locations: usize,
    types: usize,
) -> Result<RecordRest, ShardError> {
    let event = |r: &mut Reader<'_>| -> Result<AdminEvent, ShardError> {
        Ok(AdminEvent {
            date: t.dates.get(r)?.to_string(),
            schema_version: t.schemas.get(r)?.to_string(),
        })
    };
    let admin = Admin {
        created: event(r)?,
        last_modified: event(r)?,
    };
    let nd = r.count("domain count")?;
    let domains = (0..nd)
        .map(|_| r.str().map(str::to_string))
        .collect::<Result<_, _>>()?;
    let established = read_established(r)?;
    let external_ids = read_external_ids(r, t)?;
    let nl = r.count("link count")?;
    let mut links = Vec::with_capacity(nl);
    for _ in 0..nl {
        links.push(Link {
            kind: t.link_kinds.get(r)?.to_string(),
            value: r.str()?.to_string(),
        });
    }
    let mut locs = Vec::with_capacity(locations);
    for _ in 0..locations {
        let geo_id = match r.varint()? {
            0 => None,
            1 => Some(r.zigzag()?),
            t => return Err(r.malformed(format!("bad optional tag {t}"))),
        };
        let lat = r.number()?;
        let lng = r.number()?;
        let code = t.subdivision_codes.read_tri(r)?;
        let name = t.subdivision_names.read_tri(r)?;
        locs.push((geo_id, lat, lng, code, name));
    }
    let nr = r.count("relationship count")?;
    let mut relationships = Vec::with_capacity(nr);
    for _ in 0..nr {
        let kind = t.rel_kinds.get(r)?.to_string();
        let id = match r.usize_max(RecordId::MAX as usize + 1, "related id")? {
            0 => r.str()?.to_string(),
            n => RecordId::from_number(n as u32 - 1)
                .map(RecordId::url)
                .unwrap_or_default(),
        };
        relationships.push(Relationship {
            label: r.str()?.to_string(),
            kind,
            id,
        });
    }
    let check = r.usize_max(u16::MAX as usize, "type count")?;
    if check != types {
        return Err(r.malformed("records and summary sections disagree (different builds?)"));
    }
    Ok(RecordRest {
        admin,
        domains,
        established,
        external_ids,
        links,
        locations: locs,
        relationships,
    })
}

fn read_established(r: &mut Reader<'_>) -> Result<Option<i64>, ShardError> {
    Ok(match r.varint()? {
        0 => None,
        1 => Some(r.zigzag()?),
        t => return Err(r.malformed(format!("bad optional tag {t}"))),
    })
}

fn read_external_ids(r: &mut Reader<'_>, t: &RecordTables) -> Result<Vec<ExternalId>, ShardError> {
    let ne = r.count("external id count")?;
    let mut external_ids = Vec::with_capacity(ne);
    for _ in 0..ne {
        let kind = t.ext_kinds.get(r)?.to_string();
        let na = r.count("id count")?;
        let all: Vec<String> = (0..na)
            .map(|_| r.str().map(str::to_string))
            .collect::<Result<_, _>>()?;
        let preferred = match r.usize_max(all.len() + 1, "preferred id")? {
            0 => None,
            1 => Some(r.str()?.to_string()),
            i => Some(all[i - 2].clone()),
        };
        external_ids.push(ExternalId {
            all,
            preferred,
            kind,
        });
    }
    Ok(external_ids)
}

/// A reader positioned at record `i`'s domains: skips the admin events
/// that precede them in the layout [`read_rest`] decodes (the section was
/// checked whole at load time).
fn at_domains<'a>(i: usize, rec: &'a RecordsSection) -> Result<Reader<'a>, ShardError> {
    let mut r = Reader::new(&rec.bytes, SectionKind::Records);
    let at = *rec
        .offsets
        .get(i)
        .ok_or_else(|| r.malformed(format!("no record {i}")))?;
    r.bytes(at as usize)?;
    for _ in 0..4 {
        r.varint()?; // created / last_modified: date and schema indexes
    }
    Ok(r)
}

/// A reader positioned at record `i`'s established year: past the domains.
fn at_established<'a>(i: usize, rec: &'a RecordsSection) -> Result<Reader<'a>, ShardError> {
    let mut r = at_domains(i, rec)?;
    let nd = r.count("domain count")?;
    for _ in 0..nd {
        let len = r.count("string length")?;
        r.bytes(len)?;
    }
    Ok(r)
}

/// A reader positioned at record `i`'s external ids: past the domains and
/// the established year.
fn at_external_ids<'a>(i: usize, rec: &'a RecordsSection) -> Result<Reader<'a>, ShardError> {
    let mut r = at_established(i, rec)?;
    read_established(&mut r)?;
    Ok(r)
}

/// Record `i`'s established year alone, without decoding the rest of the record.
pub fn record_established(i: usize, rec: &RecordsSection) -> Result<Option<i64>, ShardError> {
    read_established(&mut at_established(i, rec)?)
}

/// Record `i`'s domains alone, from the records section.
pub fn record_domains(i: usize, rec: &RecordsSection) -> Result<Vec<String>, ShardError> {
    let mut r = at_domains(i, rec)?;
    let nd = r.count("domain count")?;
    (0..nd).map(|_| Ok(r.str()?.to_string())).collect()
}

/// Record `i`'s external ids alone, without decoding the rest of the record.
pub fn external_ids(i: usize, rec: &RecordsSection) -> Result<Vec<ExternalId>, ShardError> {
    read_external_ids(&mut at_external_ids(i, rec)?, &rec.tables)
}

/// The coordinates (lat, lng) of record `i`'s `locations` locations, in
/// order (`None` where one has none), without decoding the rest of the
/// record: its external ids and links are stepped over.
pub fn record_coordinates(
    i: usize,
    rec: &RecordsSection,
    locations: usize,
) -> Result<Vec<Option<(f64, f64)>>, ShardError> {
    let mut r = at_external_ids(i, rec)?;
    walk_external_ids(&mut r, |_| {})?;
    let nl = r.count("link count")?;
    for _ in 0..nl {
        r.varint()?; // kind
        r.str()?;
    }
    let mut out = Vec::with_capacity(locations);
    for _ in 0..locations {
        if r.varint()? == 1 {
            r.zigzag()?; // geo id
        }
        let lat = r.number()?.and_then(|n| n.as_f64());
        let lng = r.number()?.and_then(|n| n.as_f64());
        r.varint()?; // subdivision code
        r.varint()?; // subdivision name
        out.push(lat.zip(lng));
    }
    Ok(out)
}

/// Calls `f` with every external-id value of record `i` (each of `all`, and
/// `preferred` when it is not one of them), borrowed, in stored order.
pub fn for_each_external_id(
    i: usize,
    rec: &RecordsSection,
    f: impl FnMut(&str),
) -> Result<(), ShardError> {
    walk_external_ids(&mut at_external_ids(i, rec)?, f)
}

/// Reads the external ids at `r`, calling `f` with each value (as
/// [`for_each_external_id`]), and leaves `r` past them.
fn walk_external_ids(r: &mut Reader<'_>, mut f: impl FnMut(&str)) -> Result<(), ShardError> {
    let ne = r.count("external id count")?;
    for _ in 0..ne {
        r.varint()?; // kind
        let na = r.count("id count")?;
        for _ in 0..na {
            f(r.str()?);
        }
        if r.usize_max(na + 1, "preferred id")? == 1 {
            f(r.str()?);
        }
    }
    Ok(())
}

/// Reassembles record `i` from the three sections.
pub fn assemble(
    i: usize,
    s: &Summary,
    n: &Names,
    rec: &RecordsSection,
) -> Result<Record, ShardError> {
    let mut r = Reader::new(&rec.bytes, SectionKind::Records);
    r.bytes(rec.offsets[i] as usize)?;
    let places = &s.places[s.place_start[i] as usize..s.place_start[i + 1] as usize];
    let types = (s.type_start[i + 1] - s.type_start[i]) as usize;
    let rest = read_rest(&mut r, &rec.tables, places.len(), types)?;
    let locations = places
        .iter()
        .zip(rest.locations)
        .map(|(p, (geo_id, lat, lng, sub_code, sub_name))| {
            let (country_code, country_name) = s.countries[p.country as usize].clone();
            let (continent_code, continent_name) = s.continents[p.continent as usize].clone();
            Location {
                geo_details: GeoDetails {
                    continent_code,
                    continent_name,
                    country_code,
                    country_name,
                    country_subdivision_code: sub_code,
                    country_subdivision_name: sub_name,
                    lat,
                    lng,
                    name: s.cities[p.city as usize].clone(),
                },
                geo_id,
            }
        })
        .collect();
    let names = (n.start[i]..n.start[i + 1])
        .map(|k| {
            let e = &n.entries[k as usize];
            Name {
                lang: (e.lang > 0).then(|| n.langs[e.lang as usize - 1].clone()),
                types: n.type_vals
                    [e.types_start as usize..e.types_start as usize + e.types_len as usize]
                    .iter()
                    .map(|&t| n.type_table[t as usize].clone())
                    .collect(),
                value: n.text[e.start as usize..(e.start + e.len) as usize].to_string(),
            }
        })
        .collect();
    Ok(Record {
        admin: rest.admin,
        domains: rest.domains,
        established: rest.established,
        external_ids: rest.external_ids,
        id: RecordId::from_number(s.ids[i])
            .map(RecordId::url)
            .unwrap_or_default(),
        links: rest.links,
        locations,
        names,
        relationships: rest.relationships,
        status: STATUSES[s.status[i] as usize].to_string(),
        types: s.types[s.type_start[i] as usize..s.type_start[i + 1] as usize]
            .iter()
            .map(|&t| s.type_table[t as usize].clone())
            .collect(),
    })
}
