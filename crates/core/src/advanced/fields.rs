//! The searchable fields of a v2 record: names, kinds, and value access.

use crate::model::Record;

/// How a field's values are compared with query values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FieldKind {
    /// Words: split on whitespace and punctuation, case- and
    /// accent-insensitive ([`super::text_tokens`]). A phrase must match
    /// consecutive words of one value.
    Text,
    /// Runs of letters, lower-cased (upstream's `simple` analyser,
    /// [`super::letter_tokens`]): digits and punctuation are dropped.
    Letters,
    /// Exact, case-sensitive whole values.
    Keyword,
    /// Whole numbers (`established` is a year).
    Integer,
    /// Decimal numbers (coordinates).
    Float,
    /// `YYYY-MM-DD` dates.
    Date,
}

impl FieldKind {
    /// A short name for documentation: `text`, `letters`, `keyword`,
    /// `integer`, `float`, `date`.
    pub fn name(self) -> &'static str {
        match self {
            FieldKind::Text => "text",
            FieldKind::Letters => "letters",
            FieldKind::Keyword => "keyword",
            FieldKind::Integer => "integer",
            FieldKind::Float => "float",
            FieldKind::Date => "date",
        }
    }

    /// Numbers and dates: compared by value, support ranges, no wildcards.
    pub fn is_ordered(self) -> bool {
        matches!(
            self,
            FieldKind::Integer | FieldKind::Float | FieldKind::Date
        )
    }
}

macro_rules! fields {
    ($($(#[doc = $doc:literal])* $variant:ident = $name:literal, $kind:ident;)*) => {
        /// A searchable field of the v2 record, named by its full dotted path.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Field {
            $($(#[doc = $doc])* $variant,)*
        }

        impl Field {
            /// Every field, in documentation order.
            pub const ALL: &'static [Field] = &[$(Field::$variant),*];

            /// The full dotted path, in the spec's spelling.
            pub fn name(self) -> &'static str {
                match self {
                    $(Field::$variant => $name,)*
                }
            }

            /// How values are compared.
            pub fn kind(self) -> FieldKind {
                match self {
                    $(Field::$variant => FieldKind::$kind,)*
                }
            }
        }
    };
}

fields! {
    /// Every name (display name, labels, aliases, acronyms).
    NamesValue = "names.value", Text;
    /// Name types: `registry_display`, `label`, `alias`, `acronym`.
    NamesTypes = "names.types", Keyword;
    /// Language code of a name.
    NamesLang = "names.lang", Keyword;
    /// Place (city) name.
    GeoName = "locations.geo_details.name", Keyword;
    /// ISO 3166 alpha-2 country code.
    GeoCountryCode = "locations.geo_details.country_code", Keyword;
    /// Country name.
    GeoCountryName = "locations.geo_details.country_name", Keyword;
    /// Continent code (`AF` … `SA`).
    GeoContinentCode = "locations.geo_details.continent_code", Keyword;
    /// Continent name.
    GeoContinentName = "locations.geo_details.continent_name", Keyword;
    /// Subdivision code (without the country prefix).
    GeoSubdivisionCode = "locations.geo_details.country_subdivision_code", Keyword;
    /// Subdivision name.
    GeoSubdivisionName = "locations.geo_details.country_subdivision_name", Keyword;
    /// Latitude.
    GeoLat = "locations.geo_details.lat", Float;
    /// Longitude.
    GeoLng = "locations.geo_details.lng", Float;
    /// Gazetteer id of the place.
    GeoId = "locations.geo_id", Integer;
    /// Link URL.
    LinksValue = "links.value", Letters;
    /// Link type: `website`, `encyclopedia`.
    LinksType = "links.type", Keyword;
    /// Internet domains.
    Domains = "domains", Letters;
    /// Every external identifier.
    ExternalIdsAll = "external_ids.all", Keyword;
    /// External identifier type: `funder_registry`, `grid`, `isni`, `open_kb`.
    ExternalIdsType = "external_ids.type", Keyword;
    /// Preferred external identifier.
    ExternalIdsPreferred = "external_ids.preferred", Keyword;
    /// Identifier URL of a related record.
    RelationshipsId = "relationships.id", Keyword;
    /// Relationship type: `parent`, `child`, `related`, `successor`, `predecessor`.
    RelationshipsType = "relationships.type", Keyword;
    /// Display name of a related record.
    RelationshipsLabel = "relationships.label", Text;
    /// `active`, `inactive`, `withdrawn`.
    Status = "status", Keyword;
    /// Organization types.
    Types = "types", Keyword;
    /// Year of establishment.
    Established = "established", Integer;
    /// The record's identifier URL.
    Id = "id", Keyword;
    /// Creation date.
    CreatedDate = "admin.created.date", Date;
    /// Schema version at creation.
    CreatedSchemaVersion = "admin.created.schema_version", Keyword;
    /// Last modification date.
    LastModifiedDate = "admin.last_modified.date", Date;
    /// Schema version at last modification.
    LastModifiedSchemaVersion = "admin.last_modified.schema_version", Keyword;
}

/// Upstream path spellings accepted as aliases (prefix → replacement).
const PATH_ALIASES: [(&str, &str); 2] = [
    ("locations.geonames_details", "locations.geo_details"),
    ("locations.geonames_id", "locations.geo_id"),
];

/// Upstream spelling → spec spelling of enumerated values, for the fields
/// holding them.
const VALUE_ALIASES: [(Field, &str, &str); 4] = [
    (Field::NamesTypes, "ror_display", "registry_display"),
    (Field::ExternalIdsType, "fundref", "funder_registry"),
    (Field::ExternalIdsType, "wikidata", "open_kb"),
    (Field::LinksType, "wikipedia", "encyclopedia"),
];

/// Rewrites upstream path spellings (`geonames_details`, `geonames_id`).
pub(crate) fn canonical_path(name: &str) -> std::borrow::Cow<'_, str> {
    for (from, to) in PATH_ALIASES {
        if let Some(rest) = name.strip_prefix(from)
            && (rest.is_empty() || rest.starts_with('.'))
        {
            return format!("{to}{rest}").into();
        }
    }
    name.into()
}

impl Field {
    /// Looks a field up by its full dotted path; upstream spellings
    /// (`locations.geonames_details.*`, `locations.geonames_id`) are accepted.
    pub fn from_name(name: &str) -> Option<Field> {
        let name = canonical_path(name);
        Field::ALL.iter().copied().find(|f| f.name() == name)
    }

    /// The path in upstream's spelling (what upstream's API accepts).
    pub fn upstream_name(self) -> String {
        let name = self.name();
        for (from, to) in PATH_ALIASES {
            if let Some(rest) = name.strip_prefix(to) {
                return format!("{from}{rest}");
            }
        }
        name.to_string()
    }

    /// Whether matching distinguishes upper and lower case: true for
    /// keyword fields, false for text and letter fields (and meaningless for
    /// numbers and dates, which report false).
    pub fn case_sensitive(self) -> bool {
        self.kind() == FieldKind::Keyword
    }

    /// The fields for which `value` is an upstream spelling, with the spec
    /// spelling (`ror_display`, `fundref`, `wikidata`, `wikipedia`).
    pub(crate) fn value_aliases(value: &str) -> Vec<(Field, &'static str)> {
        VALUE_ALIASES
            .iter()
            .filter(|(_, from, _)| *from == value)
            .map(|(f, _, to)| (*f, *to))
            .collect()
    }

    /// Fields whose path starts with `prefix` followed by a dot (`locations`
    /// → every `locations.*` field).
    pub fn under(prefix: &str) -> Vec<Field> {
        let prefix = canonical_path(prefix);
        Field::ALL
            .iter()
            .copied()
            .filter(|f| {
                f.name()
                    .strip_prefix(&*prefix)
                    .is_some_and(|r| r.starts_with('.'))
            })
            .collect()
    }
}

/// A best guess at the field meant by an unknown name.
pub(crate) fn suggest(name: &str) -> Option<&'static str> {
    let canon = canonical_path(name);
    let name = canon.as_ref();
    // Names from upstream's v1 schema and other obvious guesses.
    const GUESSES: [(&str, &str); 9] = [
        ("name", "names.value"),
        ("acronyms", "names.value"),
        ("aliases", "names.value"),
        ("labels.label", "names.value"),
        ("city", "locations.geo_details.name"),
        ("country", "locations.geo_details.country_name"),
        ("wikipedia_url", "links.value"),
        ("type", "types"),
        ("established.year", "established"),
    ];
    if let Some((_, to)) = GUESSES.iter().find(|(from, _)| *from == name) {
        return Some(to);
    }
    // A parent object: its first (most useful) child.
    if let Some(f) = Field::under(name).first() {
        return Some(f.name());
    }
    // A known field followed by more (`names.value.keyword`).
    if let Some(f) = Field::ALL
        .iter()
        .filter(|f| name.starts_with(f.name()))
        .max_by_key(|f| f.name().len())
    {
        return Some(f.name());
    }
    // The last segment alone (`country_code`, `country.country_code`).
    let last = name.rsplit('.').next().unwrap_or(name);
    if !last.is_empty()
        && let Some(f) = Field::ALL
            .iter()
            .find(|f| f.name().rsplit('.').next() == Some(last))
    {
        return Some(f.name());
    }
    // A typo.
    let lower = crate::text::lower(name);
    let (best, dist) = Field::ALL
        .iter()
        .map(|f| {
            let whole = edit_distance(&lower, f.name());
            let tail = edit_distance(&lower, f.name().rsplit('.').next().unwrap_or(""));
            (f.name(), whole.min(tail))
        })
        .min_by_key(|&(_, d)| d)?;
    (dist <= (name.chars().count() / 3).max(2)).then_some(best)
}

/// Levenshtein distance (both strings are short: field names, and the query
/// is capped in length).
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().take(64).collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// Whether `k` returns true for some string value of `field` in `r`.
/// Number fields have no string values.
pub(crate) fn any_str<'a>(
    r: &'a Record,
    field: Field,
    k: &mut impl FnMut(&'a str) -> bool,
) -> bool {
    use Field::*;
    fn opt(v: &Option<Option<String>>) -> Option<&str> {
        v.as_ref()?.as_deref()
    }
    fn derived(l: &crate::model::Location) -> Option<(&'static str, &'static str)> {
        let g = &l.geo_details;
        if opt(&g.continent_code).is_some() || opt(&g.continent_name).is_some() {
            return None;
        }
        crate::continent::of_country(&g.country_code).map(|i| crate::continent::CONTINENTS[i])
    }
    match field {
        NamesValue => r.names.iter().any(|n| k(&n.value)),
        NamesTypes => r.names.iter().flat_map(|n| &n.types).any(|t| k(t)),
        NamesLang => r.names.iter().filter_map(|n| n.lang.as_deref()).any(k),
        GeoName => r.locations.iter().any(|l| k(&l.geo_details.name)),
        GeoCountryCode => r.locations.iter().any(|l| k(&l.geo_details.country_code)),
        GeoCountryName => r.locations.iter().any(|l| k(&l.geo_details.country_name)),
        // A place without a continent (schema 2.0) has its country's, as in
        // the facets and filters ([`crate::continent`]).
        GeoContinentCode => r
            .locations
            .iter()
            .filter_map(|l| opt(&l.geo_details.continent_code).or_else(|| derived(l).map(|c| c.0)))
            .any(k),
        GeoContinentName => r
            .locations
            .iter()
            .filter_map(|l| opt(&l.geo_details.continent_name).or_else(|| derived(l).map(|c| c.1)))
            .any(k),
        GeoSubdivisionCode => r
            .locations
            .iter()
            .filter_map(|l| opt(&l.geo_details.country_subdivision_code))
            .any(k),
        GeoSubdivisionName => r
            .locations
            .iter()
            .filter_map(|l| opt(&l.geo_details.country_subdivision_name))
            .any(k),
        LinksValue => r.links.iter().any(|l| k(&l.value)),
        LinksType => r.links.iter().any(|l| k(&l.kind)),
        Domains => r.domains.iter().any(|d| k(d)),
        ExternalIdsAll => r.external_ids.iter().flat_map(|e| &e.all).any(|v| k(v)),
        ExternalIdsType => r.external_ids.iter().any(|e| k(&e.kind)),
        ExternalIdsPreferred => r
            .external_ids
            .iter()
            .filter_map(|e| e.preferred.as_deref())
            .any(k),
        RelationshipsId => r.relationships.iter().any(|x| k(&x.id)),
        RelationshipsType => r.relationships.iter().any(|x| k(&x.kind)),
        RelationshipsLabel => r.relationships.iter().any(|x| k(&x.label)),
        Status => k(&r.status),
        Types => r.types.iter().any(|t| k(t)),
        Id => k(&r.id),
        CreatedDate => k(&r.admin.created.date),
        CreatedSchemaVersion => k(&r.admin.created.schema_version),
        LastModifiedDate => k(&r.admin.last_modified.date),
        LastModifiedSchemaVersion => k(&r.admin.last_modified.schema_version),
        GeoLat | GeoLng | GeoId | Established => false,
    }
}

/// Whether `k` returns true for some numeric value of `field` in `r`.
/// Non-number fields have no numeric values.
pub(crate) fn any_num(r: &Record, field: Field, k: &mut impl FnMut(f64) -> bool) -> bool {
    match field {
        Field::GeoLat => r
            .locations
            .iter()
            .filter_map(|l| l.geo_details.lat.as_ref()?.as_f64())
            .any(k),
        Field::GeoLng => r
            .locations
            .iter()
            .filter_map(|l| l.geo_details.lng.as_ref()?.as_f64())
            .any(k),
        Field::GeoId => r
            .locations
            .iter()
            .filter_map(|l| l.geo_id)
            .any(|v| k(v as f64)),
        Field::Established => r.established.is_some_and(|v| k(v as f64)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_aliases() {
        assert_eq!(Field::ALL.len(), 30);
        for f in Field::ALL {
            assert_eq!(Field::from_name(f.name()), Some(*f));
            assert_eq!(Field::from_name(&f.upstream_name()), Some(*f));
        }
        assert_eq!(
            Field::from_name("locations.geonames_details.name"),
            Some(Field::GeoName)
        );
        assert_eq!(Field::from_name("locations"), None);
        assert_eq!(Field::from_name("locations.geonames_idx"), None);
        assert_eq!(Field::under("locations").len(), 10);
        assert_eq!(Field::under("locations.geonames_details").len(), 9);
    }

    #[test]
    fn suggestions() {
        assert_eq!(suggest("locations"), Some("locations.geo_details.name"));
        assert_eq!(suggest("names.value.keyword"), Some("names.value"));
        assert_eq!(
            suggest("country.country_code"),
            Some("locations.geo_details.country_code")
        );
        assert_eq!(suggest("stauts"), Some("status"));
        assert_eq!(suggest("name"), Some("names.value"));
        assert_eq!(suggest("zzzzzzzzzzzz"), None);
    }
}
