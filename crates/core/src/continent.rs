//! Continents, and the continent of a country code.
//!
//! Schema-2.1 locations carry `continent_code`/`continent_name`; schema 2.0
//! (and 1.0) records do not. Without a fallback a query's continent facet
//! counts fewer records than its country facet (`cambridge` on the real
//! data: "Europe 16" beside "United Kingdom 19"), and a continent filter
//! drops every 2.0 record. So where a location lacks a continent, facets,
//! filters and `query.advanced` use the continent of its country code
//! ([`of_country`]). The record itself is never changed: E1 and the result
//! items show what the dump holds.
//!
//! The table follows GeoNames' country information (`countryInfo.txt`),
//! which assigns exactly one continent to each country code, the same
//! source and the same seven codes the registry's 2.1 locations use (so
//! the countries between continents go where GeoNames puts them: TR, GE,
//! AM, AZ in Asia; RU and CY in Europe; TL in Oceania; EG in Africa; PA in
//! North America). It is written out here
//! from that fact, and checked against every (country, continent) pair the
//! real data's 2.1 locations hold (`tests/continent.rs`): they agree on all
//! 203 codes present. Legacy codes GeoNames still lists (AN, CS) and XK
//! (Kosovo, GeoNames' user-assigned code, used by the registry) are in.

/// The seven continents: code and name, as the spec lists them.
pub const CONTINENTS: [(&str, &str); 7] = [
    ("AF", "Africa"),
    ("AN", "Antarctica"),
    ("AS", "Asia"),
    ("EU", "Europe"),
    ("NA", "North America"),
    ("OC", "Oceania"),
    ("SA", "South America"),
];

/// Country code then continent code, four letters an entry, sorted by
/// country code (one string rather than a table of `&str` pairs: a quarter
/// of the bytes in the wasm).
const TABLE: &str = "\
ADEUAEASAFASAGNAAINAALEUAMASANNAAOAFAQANARSAASOCATEUAUOCAWNAAXEUAZAS\
BAEUBBNABDASBEEUBFAFBGEUBHASBIAFBJAFBLNABMNABNASBOSABQNABRSABSNABTAS\
BVANBWAFBYEUBZNA\
CANACCASCDAFCFAFCGAFCHEUCIAFCKOCCLSACMAFCNASCOSACRNACSEUCUNACVAFCWNA\
CXOCCYEUCZEU\
DEEUDJAFDKEUDMNADONADZAF\
ECSAEEEUEGAFEHAFERAFESEUETAF\
FIEUFJOCFKSAFMOCFOEUFREU\
GAAFGBEUGDNAGEASGFSAGGEUGHAFGIEUGLNAGMAFGNAFGPNAGQAFGREUGSANGTNAGUOC\
GWAFGYSA\
HKASHMANHNNAHREUHTNAHUEU\
IDASIEEUILASIMEUINASIOASIQASIRASISEUITEU\
JEEUJMNAJOASJPAS\
KEAFKGASKHASKIOCKMAFKNNAKPASKRASKWASKYNAKZAS\
LAASLBASLCNALIEULKASLRAFLSAFLTEULUEULVEULYAF\
MAAFMCEUMDEUMEEUMFNAMGAFMHOCMKEUMLAFMMASMNASMOASMPOCMQNAMRAFMSNAMTEU\
MUAFMVASMWAFMXNAMYASMZAF\
NAAFNCOCNEAFNFOCNGAFNINANLEUNOEUNPASNROCNUOCNZOC\
OMAS\
PANAPESAPFOCPGOCPHASPKASPLEUPMNAPNOCPRNAPSASPTEUPWOCPYSA\
QAAS\
REAFROEURSEURUEURWAF\
SAASSBOCSCAFSDAFSEEUSGASSHAFSIEUSJEUSKEUSLAFSMEUSNAFSOAFSRSASSAFSTAF\
SVNASXNASYASSZAF\
TCNATDAFTFANTGAFTHASTJASTKOCTLOCTMASTNAFTOOCTRASTTNATVOCTWASTZAF\
UAEUUGAFUMOCUSNAUYSAUZAS\
VAEUVCNAVESAVGNAVINAVNASVUOC\
WFOCWSOC\
XKEU\
YEASYTAF\
ZAAFZMAFZWAF";

/// The continent of an ISO 3166 alpha-2 country code (either case), as an
/// index into [`CONTINENTS`]; `None` for a code GeoNames does not list.
pub fn of_country(code: &str) -> Option<usize> {
    let code = code.as_bytes();
    if code.len() != 2 {
        return None;
    }
    let key = [code[0].to_ascii_uppercase(), code[1].to_ascii_uppercase()];
    let t = TABLE.as_bytes();
    let (mut lo, mut hi) = (0, t.len() / 4);
    while lo < hi {
        let mid = (lo + hi) / 2;
        let e = &t[mid * 4..mid * 4 + 4];
        match [e[0], e[1]].cmp(&key) {
            std::cmp::Ordering::Less => lo = mid + 1,
            std::cmp::Ordering::Greater => hi = mid,
            std::cmp::Ordering::Equal => {
                return CONTINENTS
                    .iter()
                    .position(|(c, _)| c.as_bytes() == &e[2..4]);
            }
        }
    }
    None
}

/// The continent index of a location: its own `continent_code` when it has
/// a known one, else its country's.
pub fn of_place(continent_code: Option<&str>, country_code: &str) -> Option<usize> {
    continent_code
        .and_then(|c| CONTINENTS.iter().position(|(k, _)| *k == c))
        .or_else(|| of_country(country_code))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sorted_and_well_formed() {
        let t = TABLE.as_bytes();
        assert_eq!(t.len() % 4, 0);
        let entries: Vec<&[u8]> = t.chunks(4).collect();
        for w in entries.windows(2) {
            assert!(w[0][..2] < w[1][..2], "out of order: {:?}", w);
        }
        for e in &entries {
            assert!(
                CONTINENTS.iter().any(|(c, _)| c.as_bytes() == &e[2..4]),
                "unknown continent in {:?}",
                std::str::from_utf8(e)
            );
        }
        // Every ISO 3166-1 code in use (249) plus XK, AN, CS.
        assert_eq!(entries.len(), 252);
    }

    #[test]
    fn looks_up_codes() {
        let name = |c| of_country(c).map(|i| CONTINENTS[i].1);
        assert_eq!(name("GB"), Some("Europe"));
        assert_eq!(name("gb"), Some("Europe"));
        assert_eq!(name("AD"), Some("Europe"));
        assert_eq!(name("ZW"), Some("Africa"));
        assert_eq!(name("TR"), Some("Asia"));
        assert_eq!(name("AQ"), Some("Antarctica"));
        assert_eq!(name("BR"), Some("South America"));
        assert_eq!(name("NZ"), Some("Oceania"));
        assert_eq!(name("US"), Some("North America"));
        assert_eq!(name("XK"), Some("Europe"));
        assert_eq!(name("ZZ"), None);
        assert_eq!(name("G"), None);
        assert_eq!(name("GBR"), None);
        assert_eq!(name(""), None);
    }

    #[test]
    fn a_place_keeps_its_own_continent() {
        // A record's own continent wins over the table.
        assert_eq!(of_place(Some("AS"), "CY"), Some(2));
        assert_eq!(of_place(None, "CY"), Some(3));
        assert_eq!(of_place(Some("??"), "CY"), Some(3));
        assert_eq!(of_place(None, "ZZ"), None);
    }
}
