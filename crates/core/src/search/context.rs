//! Context from the form around a typeahead: what the page knows about the
//! person typing ([`SuggestContext`], the contract's shape, as the form
//! hands it over), turned into ranking boosts (`Resolved`).
//!
//! * `prefer_countries` / `prefer_types`: a boost, not a filter (filters
//!   stay in [`super::Filters`]): records in one of the countries, or of one
//!   of the types, score [`PREFER_BONUS`] more for each kind that matches.
//! * `email_domain`: the domain of the person's e-mail address (or the
//!   address itself). Records whose `domains` hold it or one of its parent
//!   domains (`med.uni-heidelberg.de` → `uni-heidelberg.de`; never a bare
//!   top-level domain) are offered before anything is typed
//!   ([`super::Engine::suggest_in`] with empty text) and score
//!   [`DOMAIN_BONUS`] more while typing.
//! * `remembered`: records this browser picked before (the host keeps the
//!   list; nothing leaves the browser), by id; an id that does not parse or
//!   is not in the data is skipped. When they match the text they come
//!   first, before even exact matches of other records; with empty text
//!   they are offered after the e-mail domain's records.
//! * `lang`: each suggestion carries the record's label in that language
//!   ([`super::Suggestion::localized`]) for the host to show as the main
//!   line, the display name second.
//!
//! Every boost depends only on the record and the context, not on the
//! text, so prefix stability holds within one context.

use std::collections::HashMap;

use crate::id::RecordId;
use crate::search::{Engine, Filters, Version};

/// Score bonus (prior units, 1/8 nat) per preference kind that a record
/// matches (country, type): 2 nats, a 7× likelihood.
pub const PREFER_BONUS: u16 = 16;
/// Score bonus of a record of the e-mail's domain: 8 nats, enough to lift
/// it above any prior while it matches the text.
pub const DOMAIN_BONUS: u16 = 64;

/// What the page knows about the person typing: the contract's
/// [`registry_contract::SuggestContext`].
pub use registry_contract::SuggestContext;

/// The domain of an e-mail address or a domain, lower case, without
/// surrounding dots or spaces; `None` when there is none (no dot).
pub fn domain_of(text: &str) -> Option<String> {
    let d = text.rsplit('@').next().unwrap_or("").trim();
    let d = d.trim_matches('.').to_ascii_lowercase();
    (d.contains('.') && !d.contains(char::is_whitespace)).then_some(d)
}

/// `d` and its parent domains with at least two labels, most specific
/// first: `a.b.c.de` → `a.b.c.de`, `b.c.de`, `c.de`; shared second-level
/// suffixes (`ac.uk`, `edu.au`, `co.jp`, …) are not organisations' domains
/// and are skipped.
fn parents(d: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(d);
    std::iter::from_fn(move || {
        let cur = rest?;
        rest = cur
            .split_once('.')
            .map(|(_, r)| r)
            .filter(|r| r.contains('.'));
        Some(cur)
    })
    .filter(|d| !is_shared_suffix(d))
}

/// `ac.uk`, `edu.au`, `co.jp`, `gov.br`…: a generic second-level label under
/// a two-letter country domain.
fn is_shared_suffix(d: &str) -> bool {
    const GENERIC: [&str; 16] = [
        "ac", "co", "com", "edu", "gov", "govt", "org", "net", "go", "or", "ne", "mil", "nhs",
        "res", "gob", "gouv",
    ];
    match d.split_once('.') {
        Some((a, b)) => !b.contains('.') && b.len() == 2 && GENERIC.contains(&a),
        None => true,
    }
}

/// Record indexes by (lower-case) domain, built on first use.
pub(crate) struct DomainIndex(HashMap<String, Vec<u32>>);

impl DomainIndex {
    pub(crate) fn build(engine: &Engine) -> DomainIndex {
        let reg = engine.registry();
        let mut map: HashMap<String, Vec<u32>> = HashMap::new();
        for r in 0..reg.len() {
            for d in &reg.domains(r) {
                map.entry(d.trim_matches('.').to_ascii_lowercase())
                    .or_default()
                    .push(r as u32);
            }
        }
        DomainIndex(map)
    }
}

/// A context resolved against one engine: boosts by record index.
pub(crate) struct Resolved {
    countries: Option<Filters>,
    types: Option<Filters>,
    /// Records of the e-mail's domain, most specific domain first, then
    /// most likely first; each once.
    pub(crate) domain: Vec<u32>,
    domain_sorted: Vec<u32>,
    /// Remembered records, most recent first.
    pub(crate) remembered: Vec<u32>,
    remembered_sorted: Vec<u32>,
    /// Whether any boost applies.
    pub(crate) active: bool,
}

impl Resolved {
    pub(crate) fn new(engine: &Engine, ctx: &SuggestContext) -> Resolved {
        // Unknown codes or types prefer nothing; they are not errors (a
        // page may name a country the data does not have).
        let filter = |key: &str, values: &[String]| {
            let vals: Vec<String> = values
                .iter()
                .map(|v| v.trim())
                .filter(|v| !v.is_empty() && !v.contains(','))
                .map(|v| format!("{key}:{v}"))
                .collect();
            if vals.is_empty() {
                return None;
            }
            engine.parse_filters(&vals.join(","), Version::V2).ok()
        };
        let countries = filter(
            "locations.geo_details.country_code",
            &ctx.prefer_countries
                .iter()
                .map(|c| c.to_ascii_uppercase())
                .collect::<Vec<_>>(),
        );
        let types = filter(
            "types",
            &ctx.prefer_types
                .iter()
                .map(|t| t.to_ascii_lowercase())
                .collect::<Vec<_>>(),
        );
        // Most specific domain first; within one domain, most likely first.
        let mut domain: Vec<u32> = Vec::new();
        if let Some(d) = ctx.email_domain.as_deref().and_then(domain_of) {
            let index = engine.domains();
            let priors = engine.registry().priors();
            for p in parents(&d) {
                let start = domain.len();
                for &r in index.0.get(p).map(Vec::as_slice).unwrap_or(&[]) {
                    if !domain.contains(&r) {
                        domain.push(r);
                    }
                }
                domain[start..].sort_by_key(|&r| std::cmp::Reverse(priors[r as usize]));
            }
        }
        let mut remembered = Vec::new();
        // Ids that do not parse (a stale or edited list) are skipped:
        // remembering is a convenience, never an error for the form.
        let ids = ctx
            .remembered
            .iter()
            .filter_map(|id| RecordId::parse(id).ok());
        for id in ids {
            if let Some(r) = engine.registry().index_of(id)
                && !remembered.contains(&(r as u32))
            {
                remembered.push(r as u32);
            }
        }
        let sorted = |v: &[u32]| {
            let mut s = v.to_vec();
            s.sort_unstable();
            s
        };
        Resolved {
            active: countries.is_some()
                || types.is_some()
                || !domain.is_empty()
                || !remembered.is_empty(),
            domain_sorted: sorted(&domain),
            remembered_sorted: sorted(&remembered),
            countries,
            types,
            domain,
            remembered,
        }
    }

    /// Whether record `r` was picked before, and its score bonus.
    #[inline]
    pub(crate) fn boost(&self, engine: &Engine, r: u32) -> (bool, u16) {
        if !self.active {
            return (false, 0);
        }
        let ix = engine.index();
        let mut bonus = 0;
        if self
            .countries
            .as_ref()
            .is_some_and(|f| f.matches_fields(ix, r))
        {
            bonus += PREFER_BONUS;
        }
        if self.types.as_ref().is_some_and(|f| f.matches_fields(ix, r)) {
            bonus += PREFER_BONUS;
        }
        if self.domain_sorted.binary_search(&r).is_ok() {
            bonus += DOMAIN_BONUS;
        }
        (self.remembered_sorted.binary_search(&r).is_ok(), bonus)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn domains_of_addresses_and_their_parents() {
        assert_eq!(
            domain_of(" Jane.Doe@Med.Uni-Heidelberg.DE ").as_deref(),
            Some("med.uni-heidelberg.de")
        );
        assert_eq!(domain_of("ox.ac.uk.").as_deref(), Some("ox.ac.uk"));
        assert_eq!(domain_of("jane@localhost"), None);
        assert_eq!(domain_of(""), None);
        assert_eq!(domain_of("a b.de"), None);
        let p: Vec<&str> = parents("med.uni-heidelberg.de").collect();
        assert_eq!(p, ["med.uni-heidelberg.de", "uni-heidelberg.de"]);
        let p: Vec<&str> = parents("x.de").collect();
        assert_eq!(p, ["x.de"]);
        let p: Vec<&str> = parents("chem.ox.ac.uk").collect();
        assert_eq!(p, ["chem.ox.ac.uk", "ox.ac.uk"]);
    }
}
