//! The `filter` parameter: `key:value[,key:value…]`, OR within a key, AND
//! across keys, plus the status visibility rules (`all_status`, `status`).
//!
//! Keys (spec table): `status`, `types`, `country.country_code`,
//! `country.country_name` in both versions; in v2 also
//! `locations.geo_details.{country_code,country_name,continent_code,continent_name}`
//! (`country.*` and `locations.geo_details.*` are the same key, so their
//! values are OR-ed; upstream's `locations.geonames_details.*` spelling is
//! accepted as well).
//!
//! Values are matched more leniently than upstream and validated, which
//! upstream does not do:
//!
//! * whitespace is trimmed and collapsed; all values are case-insensitive
//!   (upstream: continent filters are case-sensitive, country names must be
//!   exactly title-cased);
//! * country names also ignore accents and punctuation, and **may contain
//!   commas** (`country.country_name:Bonaire, Sint Eustatius, and Saba`):
//!   a comma piece without a known `key:` continues the previous country-name
//!   value (upstream splits it off and reports "not in the key:value form");
//! * continent names accept `+` for a space;
//! * an unknown type, status, continent, or a country name that no record
//!   has, or a country code that is not two letters, is a 400 error naming
//!   the piece (upstream silently returns 0 results).
//!
//! In v1 a record's country is its first location's (the v1 `country`
//! object); in v2 any location matches.

use crate::index::{CONTINENTS, Index};
use crate::model::{STATUSES, TYPES};

/// API version of a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Version {
    /// `/v1/…`: v1 record shape and keys.
    V1,
    /// `/v2/…` and unversioned paths.
    V2,
}

/// Parsed filters plus status visibility.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Filters {
    /// Allowed statuses (bit i = `STATUSES[i]`) from a `status` filter.
    pub statuses: Option<u8>,
    /// `all_status` given (without value or `true`): every status visible.
    pub all_status: bool,
    /// Allowed types (bit i = `TYPES[i]`).
    pub types: Option<u16>,
    /// Allowed country ids from country-code filters.
    pub country_codes: Option<Vec<u16>>,
    /// Allowed country ids from country-name filters.
    pub country_names: Option<Vec<u16>>,
    /// Allowed continents (bit i = `CONTINENTS[i]`) from continent-code filters.
    pub continent_codes: Option<u8>,
    /// Allowed continents from continent-name filters.
    pub continent_names: Option<u8>,
    /// Match countries on the first location only (v1).
    pub first_location_only: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Key {
    Status,
    Types,
    CountryCode,
    CountryName,
    ContinentCode,
    ContinentName,
}

fn key_of(key: &str, version: Version) -> Option<Key> {
    let k =
        match key {
            "status" => Key::Status,
            "types" => Key::Types,
            "country.country_code" => Key::CountryCode,
            "country.country_name" => Key::CountryName,
            _ if version == Version::V1 => return None,
            "locations.geo_details.country_code" | "locations.geonames_details.country_code" => {
                Key::CountryCode
            }
            "locations.geo_details.country_name" | "locations.geonames_details.country_name" => {
                Key::CountryName
            }
            "locations.geo_details.continent_code"
            | "locations.geonames_details.continent_code" => Key::ContinentCode,
            "locations.geo_details.continent_name"
            | "locations.geonames_details.continent_name" => Key::ContinentName,
            _ => return None,
        };
    Some(k)
}

fn collapse(v: &str) -> String {
    v.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn add_u8(slot: &mut Option<u8>, bit: u8) {
    *slot = Some(slot.unwrap_or(0) | bit);
}

fn add_ids(slot: &mut Option<Vec<u16>>, ids: &[u16]) {
    let v = slot.get_or_insert_with(Vec::new);
    for id in ids {
        if !v.contains(id) {
            v.push(*id);
        }
    }
}

impl Filters {
    /// Parses a `filter` value (already URL-decoded). Errors name the
    /// offending piece, in upstream's wording where upstream has one.
    pub fn parse(raw: &str, version: Version, index: &Index) -> Result<Filters, Vec<String>> {
        Filters::parse_inner(raw, version, index, false)
    }

    /// [`Filters::parse`] against a part of the registry (a typeahead
    /// piece, [`crate::pieces`]): a country name that no record of
    /// the part has matches nothing instead of being an error, since the
    /// whole registry may well have it.
    pub fn parse_in_part(
        raw: &str,
        version: Version,
        index: &Index,
    ) -> Result<Filters, Vec<String>> {
        Filters::parse_inner(raw, version, index, true)
    }

    fn parse_inner(
        raw: &str,
        version: Version,
        index: &Index,
        part: bool,
    ) -> Result<Filters, Vec<String>> {
        let mut f = Filters {
            first_location_only: version == Version::V1,
            ..Filters::default()
        };
        f.add_inner(raw, version, index, part)?;
        Ok(f)
    }

    /// Adds the filters of a `filter` value to these.
    pub fn add(&mut self, raw: &str, version: Version, index: &Index) -> Result<(), Vec<String>> {
        self.add_inner(raw, version, index, false)
    }

    fn add_inner(
        &mut self,
        raw: &str,
        version: Version,
        index: &Index,
        part: bool,
    ) -> Result<(), Vec<String>> {
        let mut errors = Vec::new();
        // Split at commas, re-joining pieces that continue a country name.
        let mut pieces: Vec<(String, Option<(String, String)>)> = Vec::new();
        for piece in raw.split(',') {
            if piece.trim().is_empty() {
                continue;
            }
            let kv = piece
                .split_once(':')
                .map(|(k, v)| (k.trim().to_string(), v.to_string()));
            let known_key = kv
                .as_ref()
                .is_some_and(|(k, _)| key_of(k, version).is_some());
            if !known_key
                && let Some((p, Some((k, v)))) = pieces.last_mut()
                && key_of(k, version) == Some(Key::CountryName)
            {
                p.push(',');
                p.push_str(piece);
                v.push(',');
                v.push_str(piece);
                continue;
            }
            pieces.push((piece.to_string(), kv));
        }
        let mut illegal = Vec::new();
        for (piece, kv) in &pieces {
            let Some((key, value)) = kv else {
                errors.push(format!("filter '{piece}' is not in the key:value form"));
                continue;
            };
            let Some(k) = key_of(key, version) else {
                illegal.push(format!("filter key '{key}' is illegal"));
                continue;
            };
            let value = collapse(value);
            if value.is_empty() {
                errors.push(format!("filter '{piece}' has an empty value"));
                continue;
            }
            let bad = |allowed: &str| {
                format!(
                    "filter value '{value}' of key '{key}' is not allowed; allowed values: {allowed}"
                )
            };
            match k {
                Key::Status => match STATUSES.iter().position(|s| s.eq_ignore_ascii_case(&value)) {
                    Some(p) => add_u8(&mut self.statuses, 1 << p),
                    None => errors.push(bad(&STATUSES.join(", "))),
                },
                Key::Types => match TYPES.iter().position(|s| s.eq_ignore_ascii_case(&value)) {
                    Some(p) => *self.types.get_or_insert(0) |= 1 << p,
                    None => errors.push(bad(&TYPES.join(", "))),
                },
                Key::CountryCode => {
                    if value.len() != 2 || !value.bytes().all(|b| b.is_ascii_alphabetic()) {
                        errors.push(format!(
                            "filter value '{value}' of key '{key}' is not a two-letter ISO 3166 country code"
                        ));
                    } else {
                        let ids: Vec<u16> = index.country_by_code(&value).into_iter().collect();
                        add_ids(&mut self.country_codes, &ids);
                    }
                }
                Key::CountryName => {
                    let ids = index.countries_by_name(&value);
                    if ids.is_empty() && part {
                        add_ids(&mut self.country_names, &[]);
                    } else if ids.is_empty() {
                        errors.push(format!(
                            "filter value '{value}' of key '{key}' is not the name of a country in the data"
                        ));
                    } else {
                        add_ids(&mut self.country_names, ids);
                    }
                }
                Key::ContinentCode => {
                    match CONTINENTS
                        .iter()
                        .position(|(c, _)| c.eq_ignore_ascii_case(&value))
                    {
                        Some(p) => add_u8(&mut self.continent_codes, 1 << p),
                        None => errors.push(bad("AF, AN, AS, EU, NA, OC, SA")),
                    }
                }
                Key::ContinentName => {
                    let v = collapse(&value.replace('+', " "));
                    match CONTINENTS.iter().position(|(_, n)| n.eq_ignore_ascii_case(&v)) {
                        Some(p) => add_u8(&mut self.continent_names, 1 << p),
                        None => errors.push(bad(
                            "Africa, Antarctica, Asia, Europe, North America, Oceania, South America",
                        )),
                    }
                }
            }
        }
        // Upstream reports form errors before key errors.
        let form_errors: Vec<String> = errors
            .iter()
            .filter(|e| e.ends_with("key:value form"))
            .cloned()
            .collect();
        let value_errors: Vec<String> = errors
            .into_iter()
            .filter(|e| !e.ends_with("key:value form"))
            .collect();
        let all: Vec<String> = form_errors
            .into_iter()
            .chain(illegal)
            .chain(value_errors)
            .collect();
        if all.is_empty() { Ok(()) } else { Err(all) }
    }

    /// Status bits visible under these filters. `id_query`: the query is a
    /// record id, which (like upstream) lifts the default active-only rule.
    pub fn visible_statuses(&self, id_query: bool) -> u8 {
        match self.statuses {
            Some(s) => s,
            None if self.all_status || id_query => 0b111,
            None => 0b001,
        }
    }

    /// True when record `r` passes every filter except status.
    pub fn matches_fields(&self, index: &Index, r: u32) -> bool {
        self.matches_columns(
            index.type_bits(r),
            index.continent_bits(r),
            index.record_countries(r),
        )
    }

    /// [`Filters::matches_fields`] on a record's columns: type bits,
    /// continent bits, country ids (location order) of the index these
    /// filters were parsed against.
    pub fn matches_columns(&self, types: u16, continents: u8, countries: &[u16]) -> bool {
        if let Some(t) = self.types
            && types & t == 0
        {
            return false;
        }
        let countries = if self.first_location_only {
            &countries[..countries.len().min(1)]
        } else {
            countries
        };
        for set in [&self.country_codes, &self.country_names]
            .into_iter()
            .flatten()
        {
            if !countries.iter().any(|c| set.contains(c)) {
                return false;
            }
        }
        for set in [self.continent_codes, self.continent_names]
            .into_iter()
            .flatten()
        {
            if continents & set == 0 {
                return false;
            }
        }
        true
    }

    /// These filters for another index: country ids parsed against `from`
    /// become the ids of the same codes in `to` (a code `to` lacks matches
    /// none of its records, as it should).
    pub fn relocate(&self, from: &Index, to: &Index) -> Filters {
        let map = |set: &Option<Vec<u16>>| {
            set.as_ref().map(|ids| {
                ids.iter()
                    .filter_map(|&i| {
                        let code = &from.countries().get(i as usize)?.code;
                        to.countries()
                            .iter()
                            .position(|c| c.code == *code)
                            .map(|p| p as u16)
                    })
                    .collect()
            })
        };
        Filters {
            country_codes: map(&self.country_codes),
            country_names: map(&self.country_names),
            ..self.clone()
        }
    }

    /// True when record `r` is visible and passes every filter.
    pub fn matches(&self, index: &Index, r: u32, id_query: bool) -> bool {
        self.visible_statuses(id_query) & (1 << index.status(r)) != 0
            && self.matches_fields(index, r)
    }
}
