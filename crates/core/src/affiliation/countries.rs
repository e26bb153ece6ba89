//! Country evidence in an affiliation string.
//!
//! Country names come from the data itself ([`Index::countries_by_name`]:
//! every `country_name` the records use, folded), plus a small hand-written
//! list of common variants (`USA`, `U.K.`, `PR China`, `Deutschland`,
//! `Korea` …), US state names, and two-letter US state and Canadian
//! province codes. Codes are only taken in upper case and only when they
//! stand alone in their part (`…, CA, USA`, `…, NY 10027`), so words like
//! "in", "me" or "or" never count.
//!
//! Matching is longest-first over runs of up to four tokens within a part,
//! so "New Mexico" is a US state, not Mexico. Each *mention* keeps its token
//! range: a candidate only counts mentions outside the tokens its own name
//! matched ("University of Georgia" is no evidence for Georgia the country).
//!
//! Regions: GB/UK, CN/HK/MO and US/PR/VI/GU count as one country each
//! when comparing (upstream's `to_region`, extended).

use std::ops::Range;

use super::split::Parsed;
use crate::index::Index;

/// One mention of a country (or state / province) in the text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mention {
    /// Global token range.
    pub toks: Range<usize>,
    /// Region keys (see [`region`]) the mention stands for.
    pub regions: Vec<String>,
}

/// Variants absent from the data's country names, folded (tokens joined by
/// one space) → ISO code. Sorted by variant.
const VARIANTS: &[(&str, &str)] = &[
    ("belgie", "BE"),
    ("belgique", "BE"),
    ("brasil", "BR"),
    ("britain", "GB"),
    ("byelorussia", "BY"),
    ("cote d ivoire", "CI"),
    ("cote divoire", "CI"),
    ("czech republic", "CZ"),
    ("danmark", "DK"),
    ("deutschland", "DE"),
    ("england", "GB"),
    ("espana", "ES"),
    ("great britain", "GB"),
    ("holland", "NL"),
    ("iran islamic republic of", "IR"),
    ("islamic republic of iran", "IR"),
    ("italia", "IT"),
    ("ivory coast", "CI"),
    ("korea", "KR"),
    ("ksa", "SA"),
    ("macedonia", "MK"),
    ("mexique", "MX"),
    ("nederland", "NL"),
    ("norge", "NO"),
    ("northern ireland", "GB"),
    ("osterreich", "AT"),
    ("p r china", "CN"),
    ("p r of china", "CN"),
    ("peoples republic of china", "CN"),
    ("polska", "PL"),
    ("pr china", "CN"),
    ("prc", "CN"),
    ("republic of china", "TW"),
    ("republic of korea", "KR"),
    ("rsa", "ZA"),
    ("russian federation", "RU"),
    ("schweiz", "CH"),
    ("scotland", "GB"),
    ("slovak republic", "SK"),
    ("suisse", "CH"),
    ("sverige", "SE"),
    ("swaziland", "SZ"),
    ("the netherlands", "NL"),
    ("turkiye", "TR"),
    ("u a e", "AE"),
    ("u k", "GB"),
    ("u s", "US"),
    ("u s a", "US"),
    ("uae", "AE"),
    ("uk", "GB"),
    ("united states of america", "US"),
    ("usa", "US"),
    ("viet nam", "VN"),
    ("wales", "GB"),
];

/// US state (and DC) names, folded. Sorted.
const US_STATES: &[&str] = &[
    "alabama",
    "alaska",
    "arizona",
    "arkansas",
    "california",
    "colorado",
    "connecticut",
    "delaware",
    "district of columbia",
    "florida",
    "georgia",
    "hawaii",
    "idaho",
    "illinois",
    "indiana",
    "iowa",
    "kansas",
    "kentucky",
    "louisiana",
    "maine",
    "maryland",
    "massachusetts",
    "michigan",
    "minnesota",
    "mississippi",
    "missouri",
    "montana",
    "nebraska",
    "nevada",
    "new hampshire",
    "new jersey",
    "new mexico",
    "new york",
    "north carolina",
    "north dakota",
    "ohio",
    "oklahoma",
    "oregon",
    "pennsylvania",
    "rhode island",
    "south carolina",
    "south dakota",
    "tennessee",
    "texas",
    "utah",
    "vermont",
    "virginia",
    "washington",
    "west virginia",
    "wisconsin",
    "wyoming",
];

/// Two-letter US state codes (upper case, standing alone). Sorted.
const US_CODES: &[&str] = &[
    "AK", "AL", "AR", "AZ", "CA", "CO", "CT", "DC", "DE", "FL", "GA", "HI", "IA", "ID", "IL", "IN",
    "KS", "KY", "LA", "MA", "MD", "ME", "MI", "MN", "MO", "MS", "MT", "NC", "ND", "NE", "NH", "NJ",
    "NM", "NV", "NY", "OH", "OK", "OR", "PA", "RI", "SC", "SD", "TN", "TX", "UT", "VA", "VT", "WA",
    "WI", "WV", "WY",
];

/// Canadian province codes (upper case, standing alone). Sorted.
const CA_CODES: &[&str] = &[
    "AB", "BC", "MB", "NB", "NL", "NS", "NT", "NU", "ON", "PE", "QC", "SK", "YT",
];

/// The region key of an ISO country code.
pub fn region(code: &str) -> &str {
    match code {
        "GB" | "UK" => "GB",
        "CN" | "HK" | "MO" => "CN",
        "US" | "PR" | "VI" | "GU" | "AS" | "MP" | "UM" => "US",
        c => c,
    }
}

fn push_region(v: &mut Vec<String>, code: &str) {
    let r = region(&code.to_ascii_uppercase()).to_string();
    if !v.contains(&r) {
        v.push(r);
    }
}

/// Country mentions in the parsed text.
pub fn detect(ix: &Index, p: &Parsed) -> Vec<Mention> {
    let mut out = Vec::new();
    for part in &p.parts {
        let mut i = part.start;
        while i < part.end {
            let mut found = None;
            for n in (1..=4.min(part.end - i)).rev() {
                let toks = &p.toks[i..i + n];
                if toks.iter().any(|t| t.digits) {
                    continue;
                }
                let key = toks
                    .iter()
                    .map(|t| t.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" ");
                let mut regions = Vec::new();
                // "US" / "IN" / "ME" as words: only codes in upper case.
                let word_like = n == 1 && key.len() <= 2 && !toks[0].all_caps;
                if !word_like {
                    if let Ok(k) = VARIANTS.binary_search_by(|(v, _)| (*v).cmp(key.as_str())) {
                        push_region(&mut regions, VARIANTS[k].1);
                    }
                    if key.len() > 2 {
                        for &c in ix.countries_by_name(&key) {
                            push_region(&mut regions, &ix.countries()[c as usize].code);
                        }
                    }
                    if US_STATES.binary_search(&key.as_str()).is_ok() {
                        push_region(&mut regions, "US");
                    }
                }
                if regions.is_empty() && n == 1 && toks[0].all_caps && key.len() == 2 {
                    // A code standing alone in its part, or before a postcode.
                    let alone = part.end - part.start == 1
                        || p.toks[i + 1..part.end].iter().all(|t| t.digits);
                    if alone {
                        let up = key.to_ascii_uppercase();
                        if US_CODES.binary_search(&up.as_str()).is_ok() {
                            push_region(&mut regions, "US");
                        }
                        if CA_CODES.binary_search(&up.as_str()).is_ok() {
                            push_region(&mut regions, "CA");
                        }
                    }
                }
                if !regions.is_empty() {
                    found = Some((n, regions));
                    break;
                }
            }
            match found {
                Some((n, regions)) => {
                    out.push(Mention {
                        toks: i..i + n,
                        regions,
                    });
                    i += n;
                }
                None => i += 1,
            }
        }
    }
    // A bare ISO code as the last part ("Berlin, DE") when nothing else
    // names a country.
    if out.is_empty()
        && let Some(last) = p.parts.last()
        && last.len() == 1
    {
        let t = &p.toks[last.start];
        if t.all_caps
            && t.text.len() == 2
            && let Some(c) = ix.country_by_code(&t.text)
        {
            let mut regions = Vec::new();
            push_region(&mut regions, &ix.countries()[c as usize].code);
            out.push(Mention {
                toks: last.clone(),
                regions,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_sorted() {
        assert!(VARIANTS.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(US_STATES.windows(2).all(|w| w[0] < w[1]));
        assert!(US_CODES.windows(2).all(|w| w[0] < w[1]));
        assert!(CA_CODES.windows(2).all(|w| w[0] < w[1]));
    }
}
