//! Features of the leading candidates, read by the `chosen` model
//! ([`super::model`]).
//!
//! A fixed threshold on the score cannot tell "the right record, tied by a
//! generic department name" from "two organizations named equally well".
//! The features describe each leading candidate on its own (how its name
//! matched, where in the string, whether the address agrees, what kind of
//! organization it is) and against the others (lead over the nearest
//! unrelated competitor, whether that competitor is its own parent, child or
//! successor, how many candidates are close). Every value is bounded
//! (mostly 0–1) so one weight vector fits strings of every shape.

use super::split::Parsed;

/// Candidates the model looks at, best score first.
pub const TOP: usize = 6;

/// Number of features.
pub const COUNT: usize = 49;

/// Feature names, in vector order (reports and the generated weights file).
pub const NAMES: [&str; COUNT] = [
    "score",
    "name_similarity",
    "name_coverage",
    "substring_coverage",
    "exact",
    "phrase",
    "fuzzy",
    "acronym",
    "specificity",
    "generic_name",
    "alias_name",
    "acronym_name",
    "run_of_parts",
    "parts_before",
    "org_parts_after",
    "country_agrees",
    "country_disagrees",
    "city_mentioned",
    "acronym_elsewhere",
    "place_only",
    "rank",
    "gap_to_top",
    "margin",
    "competitor_related",
    "parent_of_candidate",
    "child_of_candidate",
    "string_coverage",
    "close_candidates",
    "competitor_score",
    "unit_part",
    "education",
    "healthcare",
    "facility",
    "government_or_funder",
    "company_or_other",
    "inactive",
    "starts_part",
    "unmatched_tail",
    "exact_part",
    "score_x_margin",
    "org_parts",
    "best_of_its_substring",
    "best_education",
    "competitor_exact",
    "string_has_country",
    "rival_elsewhere",
    "prior_lead",
    "leads_ties",
    "competitor_apart",
];

/// Index of the `rival_elsewhere` feature: another organization, unrelated,
/// named well and placed by the text in another country (the string holds
/// two affiliations). The model never chooses then.
pub const RIVAL_ELSEWHERE: usize = 45;

/// Index of the `prior_lead` feature: the candidate's record prior minus
/// that of its nearest unrelated competitor among the leading candidates,
/// 32 prior units (4 nats) per unit; 1.9 without such a competitor.
pub const PRIOR_LEAD: usize = 46;

/// Index of the `leads_ties` feature: the candidate is named after a
/// department chain and before every unrelated candidate named about as
/// well (within [`NEAR_TIE`]; "Department of X, A University, …; B
/// Institute, …"). A signal for the trees only: it does not make a
/// candidate tied with another, or placed apart from it, eligible (see
/// [`super::model::ineligible`]).
pub const LEADS_TIES: usize = 47;

/// Index of the `exact` feature.
pub const EXACT: usize = 4;
/// Index of the `phrase` feature.
pub const PHRASE: usize = 5;
/// Index of the `competitor_apart` feature: the nearest unrelated
/// competitor, an organization of the same type, has its name whole in the
/// string, on other tokens than the candidate's (two organizations of one
/// kind named side by side: "University of Michigan and Brown University").
pub const COMPETITOR_APART: usize = 48;

/// Two candidates whose scores differ by less than this are named about
/// as well; when both names stand whole in the string, neither is preferred
/// by the name alone ("University of Michigan and Brown University").
pub const NEAR_TIE: f32 = 0.05;

/// Words that open the name of a unit inside an organization: a part that
/// starts with one is a department, rarely the affiliation itself.
const UNIT_WORDS: &[&str] = &[
    "center",
    "centre",
    "chair",
    "clinic",
    "department",
    "division",
    "faculty",
    "graduate",
    "group",
    "institute",
    "laboratory",
    "program",
    "programme",
    "school",
    "section",
    "service",
    "unit",
];

/// What the matcher knows about one candidate.
#[derive(Clone, Debug, Default)]
pub struct View {
    /// Evidence-adjusted score.
    pub score: f32,
    /// Name similarity before evidence.
    pub sim: f32,
    /// Matched share of the name's weight.
    pub c_n: f32,
    /// Matched share of the substring's weight.
    pub c_s: f32,
    /// The substring is the name.
    pub exact: bool,
    /// The name stands whole in the substring.
    pub phrase: bool,
    /// Near-miss spellings were paired.
    pub fuzzy: bool,
    /// An acronym was used.
    pub acronym: bool,
    /// Specificity of the name (see [`super::score::Sim`]).
    pub specificity: f32,
    /// Name type bits of the matched name (`index::name_flags`).
    pub name_flags: u8,
    /// The substring's parts.
    pub parts: std::ops::Range<usize>,
    /// The substring's tokens.
    pub toks: std::ops::Range<usize>,
    /// Matched tokens (global indices).
    pub matched: Vec<usize>,
    /// +1: a country of the record is mentioned; −1: countries are
    /// mentioned, none of them the record's; 0: no country outside the name.
    pub country: i8,
    /// The record's city is mentioned outside the name.
    pub city: bool,
    /// One of the record's acronyms stands elsewhere.
    pub acronym_elsewhere: bool,
    /// The name matched only address words.
    pub place_only: bool,
    /// Type bits (`model::TYPES` order).
    pub types: u16,
    /// Not active.
    pub inactive: bool,
    /// Country indices of the record (the same index for the countries of
    /// one region, see [`super::countries::region`]).
    pub countries: Vec<u16>,
    /// The record prior (`Registry::prior`: higher is more often the
    /// affiliation; a property of the record's content).
    pub prior: u8,
}

/// Relations between two candidates, by record.
pub trait Relations {
    /// `a` and `b` are one organization over time or a parent and its child.
    fn related(&self, a: usize, b: usize) -> bool;
    /// `a` is the parent of `b`.
    fn parent_of(&self, a: usize, b: usize) -> bool;
    /// The match of `a` is explained by `b`'s (its tokens are a strict
    /// subset: "York University" inside "New York University").
    fn explained_by(&self, a: usize, b: usize) -> bool;
}

fn flag(b: bool) -> f32 {
    if b { 1.0 } else { 0.0 }
}

/// Whether a part holds an organization word rather than only address
/// words (places, digits, optional words).
fn org_part(p: &Parsed, part: usize, place_tok: &[bool]) -> bool {
    p.toks[p.parts[part].clone()]
        .iter()
        .enumerate()
        .any(|(k, t)| !t.digits && !t.optional && !place_tok[p.parts[part].start + k])
}

/// Whether token `k` opens the name of a unit ("Department", "Lab.", …).
fn unit_word(p: &Parsed, k: usize) -> bool {
    p.toks.get(k).is_some_and(|t| {
        UNIT_WORDS.binary_search(&t.text.as_str()).is_ok()
            || t.text.starts_with("dep")
            || t.text.starts_with("lab")
    })
}

/// Whether a unit part (a department chain) comes before part `part`.
fn unit_chain(p: &Parsed, part: usize) -> bool {
    p.parts[..part.min(p.parts.len())]
        .iter()
        .any(|r| !r.is_empty() && unit_word(p, r.start))
}

/// Features of the leading candidates `views` (best score first, at most
/// [`TOP`]); `others` the scores and priors of the candidates after the
/// leading ones;
/// `has_country`: the text mentions a country or state. Nothing depends on
/// the size of the data (a model fitted on the full registry must read a
/// small one the same way).
pub fn extract(
    p: &Parsed,
    place_tok: &[bool],
    has_country: bool,
    views: &[View],
    others: &[(f32, u8)],
    rel: &dyn Relations,
) -> Vec<[f32; COUNT]> {
    let cx = Extract {
        p,
        place_tok,
        has_country,
        views,
        others,
        rel,
        top: views.first().map_or(0.0, |v| v.score),
        content: (0..p.toks.len())
            .filter(|&i| !p.toks[i].digits && !p.toks[i].optional && !place_tok[i])
            .count()
            .max(1) as f32,
        org_parts: (0..p.parts.len())
            .map(|k| org_part(p, k, place_tok))
            .collect(),
    };
    views
        .iter()
        .enumerate()
        .map(|(i, v)| cx.features(i, v))
        .collect()
}

/// What the features of every leading candidate read (see [`extract`]).
struct Extract<'a> {
    p: &'a Parsed,
    place_tok: &'a [bool],
    has_country: bool,
    views: &'a [View],
    others: &'a [(f32, u8)],
    rel: &'a dyn Relations,
    /// The best score.
    top: f32,
    /// Content tokens of the text (not digits, optional words or places), at least 1.
    content: f32,
    /// Which parts name an organization.
    org_parts: Vec<bool>,
}

/// Candidate `i` among the others: its nearest competitor and what the
/// others tell of it.
struct Rivals {
    competitor: f32,
    competitor_exact: bool,
    competitor_apart: bool,
    competitor_prior: Option<u8>,
    rival_elsewhere: bool,
    leads_ties: bool,
    nearest_related: bool,
    parent: bool,
    child: bool,
}

impl Extract<'_> {
    /// The nearest competitor of candidate `i` (`v`): the best other
    /// candidate that is neither related nor explained by this one's match;
    /// and its relatives, ties and rivals placed elsewhere.
    fn rivals(&self, i: usize, v: &View) -> Rivals {
        let Extract {
            p,
            views,
            others,
            rel,
            ..
        } = *self;
        // The nearest competitor: the best other candidate that is
        // neither related nor explained by this one's match.
        let mut competitor = others.first().map_or(0.0, |o| o.0);
        let mut competitor_exact = false;
        let mut competitor_apart = false;
        // The best prior among the competitors named as well as the
        // nearest one (candidates after the leading ones included).
        let mut competitor_prior: Option<u8> = None;
        for &(sc, pr) in others {
            if sc >= competitor - 1e-6 {
                competitor_prior = competitor_prior.max(Some(pr));
            }
        }
        // The text places a record by its country, or by its city when
        // it names no other country ("Sydney, Australia" does not place
        // a Sydney in Canada).
        let placed = |o: &View| o.country > 0 || (o.city && o.country == 0);
        let mut rival_elsewhere = false;
        let chain = unit_chain(p, v.parts.start);
        let mut leads_ties = chain && others.iter().all(|o| o.0 < v.score - NEAR_TIE);
        let mut nearest_related = false;
        let mut nearest: Option<f32> = None;
        let mut parent = false;
        let mut child = false;
        for (j, o) in views.iter().enumerate() {
            if j == i {
                continue;
            }
            let related = rel.related(i, j);
            if nearest.is_none() {
                nearest = Some(o.score);
                nearest_related = related;
            }
            // Only a relative named about as well counts: a campus is
            // not a unit of the system it belongs to when the text names
            // the campus, not the system.
            let named = o.score >= v.score - 0.25;
            parent |= named && rel.parent_of(i, j);
            child |= named && rel.parent_of(j, i);
            // Named first, after a department chain, before this
            // competitor (the `leads_ties` signal).
            let leads = chain && v.parts.end <= o.parts.start;
            if !related && !rel.explained_by(j, i) && o.score >= v.score - NEAR_TIE {
                leads_ties &= leads;
            }
            rival_elsewhere |= !related
                && placed(v)
                && placed(o)
                && o.score >= 0.9
                && !o.countries.iter().any(|c| v.countries.contains(c));
            if !related && !rel.explained_by(j, i) && o.score >= competitor - 1e-6 {
                if o.score > competitor + 1e-6 {
                    competitor_prior = None;
                }
                if o.score > competitor {
                    competitor = o.score;
                    competitor_exact = o.exact || o.phrase;
                    competitor_apart = competitor_exact
                        && o.types & v.types != 0
                        && !o.matched.iter().any(|t| v.matched.contains(t));
                }
                competitor_prior = competitor_prior.max(Some(o.prior));
            }
        }
        Rivals {
            competitor,
            competitor_exact,
            competitor_apart,
            competitor_prior,
            rival_elsewhere,
            leads_ties,
            nearest_related,
            parent,
            child,
        }
    }

    /// The features of candidate `i` (`v`), in [`NAMES`] order.
    fn features(&self, i: usize, v: &View) -> [f32; COUNT] {
        let Extract {
            p,
            place_tok,
            has_country,
            views,
            others,
            top,
            content,
            ref org_parts,
            ..
        } = *self;
        let Rivals {
            competitor,
            competitor_exact,
            competitor_apart,
            competitor_prior,
            rival_elsewhere,
            leads_ties,
            nearest_related,
            parent,
            child,
        } = self.rivals(i, v);
        let close = views
            .iter()
            .enumerate()
            .filter(|&(j, o)| j != i && o.score >= v.score - 0.1)
            .count()
            + others.iter().filter(|o| o.0 >= v.score - 0.1).count();
        let after = org_parts[v.parts.end.min(org_parts.len())..]
            .iter()
            .filter(|&&x| x)
            .count();
        let before = v.parts.start;
        let first_matched = v.matched.iter().min().copied();
        let last_matched = v.matched.iter().max().copied();
        let tail = last_matched.map_or(0, |l| {
            (l + 1..v.toks.end)
                .filter(|&k| !p.toks[k].optional && !p.toks[k].digits && !place_tok[k])
                .count()
        });
        let unit = unit_word(p, v.toks.start);
        let margin = (v.score - competitor).clamp(-1.0, 1.0);
        // Best of the candidates matched on the same substring.
        let best_here = views[..i].iter().all(|o| o.parts != v.parts);
        let best_education = v.types & 1 != 0 && views[..i].iter().all(|o| o.types & 1 == 0);
        let single = v.parts.len() == 1;
        use crate::index::name_flags as nf;
        let t = v.types;
        let education = t & 1 != 0;
        let funder = t & 2 != 0;
        let healthcare = t & 4 != 0;
        let government = t & (1 << 6) != 0;
        let facility = t & (1 << 7) != 0;
        let company_other = t & ((1 << 3) | (1 << 4) | (1 << 5) | (1 << 8)) != 0;
        [
            v.score.min(1.3),
            v.sim,
            v.c_n,
            v.c_s,
            flag(v.exact),
            flag(v.phrase),
            flag(v.fuzzy),
            flag(v.acronym),
            v.specificity.min(1.0),
            flag(v.specificity < super::score::GENERIC_SHARE),
            flag(v.name_flags & (nf::DISPLAY | nf::LABEL) == 0 && v.name_flags & nf::ALIAS != 0),
            flag(v.name_flags & !nf::ACRONYM == 0),
            (v.parts.len() - 1) as f32 / 2.0,
            before.min(4) as f32 / 4.0,
            after.min(3) as f32 / 3.0,
            flag(v.country > 0),
            flag(v.country < 0),
            flag(v.city),
            flag(v.acronym_elsewhere),
            flag(v.place_only),
            i as f32 / TOP as f32,
            (top - v.score).min(1.0),
            margin,
            flag(nearest_related),
            flag(parent),
            flag(child),
            (v.matched.len() as f32 / content).min(1.0),
            close.min(5) as f32 / 5.0,
            competitor.min(1.3),
            flag(unit),
            flag(education),
            flag(healthcare),
            flag(facility),
            flag(government || funder),
            flag(company_other),
            flag(v.inactive),
            flag(first_matched == Some(v.toks.start)),
            tail.min(4) as f32 / 4.0,
            flag(v.exact && single),
            v.score.min(1.3) * margin,
            org_parts.iter().filter(|&&x| x).count().min(6) as f32 / 6.0,
            flag(best_here),
            flag(best_education),
            flag(competitor_exact),
            flag(has_country),
            flag(rival_elsewhere),
            competitor_prior.map_or(1.9, |c| {
                ((f32::from(v.prior) - f32::from(c)) / 32.0).clamp(-1.9, 1.9)
            }),
            flag(leads_ties),
            flag(competitor_apart),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_words_are_sorted() {
        assert!(UNIT_WORDS.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(NAMES.len(), COUNT);
        // The model's eligibility rule reads these two by index.
        assert_eq!(NAMES[0], "score");
        assert_eq!(NAMES[22], "margin");
        assert_eq!(NAMES[RIVAL_ELSEWHERE], "rival_elsewhere");
        assert_eq!(NAMES[PRIOR_LEAD], "prior_lead");
        assert_eq!(NAMES[LEADS_TIES], "leads_ties");
        assert_eq!(NAMES[EXACT], "exact");
        assert_eq!(NAMES[PHRASE], "phrase");
        assert_eq!(NAMES[COMPETITOR_APART], "competitor_apart");
    }
}
