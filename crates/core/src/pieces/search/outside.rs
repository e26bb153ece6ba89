//! Records matching through common terms alone that no loaded piece
//! holds: the files that count them, and their count and facets by
//! columns, from the group files by inclusion and exclusion and from the
//! member files, minus those the loaded pieces hold.

use std::collections::{HashMap, HashSet};
use std::ops::ControlFlow::{Break, Continue};

use crate::index::Index;
use crate::order::sort;
use crate::search::Engine;
use crate::search::facets::FacetCounts;
use crate::search::query::Occur;
use crate::shard::search::{Group, Member, SearchStats};
use crate::text;

use super::page::{add_group, add_record, group_passes};
use super::reading::{Clause, Reading, outside_sets, split_common, subsets};
use super::{Need, SearchAnswer, SearchClient, Step};

/// The records matching through common terms only that no loaded piece
/// holds, counted.
#[derive(Default)]
pub(super) struct Outside {
    /// How many pass the filters.
    pub count: i64,
    /// Their facet counts.
    pub facets: FacetCounts,
    /// The most query units one of them may cover (the search page's
    /// reading; 0 otherwise).
    pub cover: u16,
}

/// [`Outside`] as it is counted: the records of each set of the query's
/// common terms, added and taken out by columns.
struct Tally<'a> {
    r: &'a Reading<'a>,
    /// The common terms that score, are required and are excluded
    /// ([`outside_sets`]).
    sets: &'a [Vec<&'a str>; 3],
    /// The terms whose units a record may cover ([`Outside::cover`]).
    cover_terms: Vec<&'a str>,
    /// Records by the number of those units they cover.
    covers: Vec<i64>,
    count: i64,
    facets: FacetCounts,
}

impl<'a> Tally<'a> {
    fn new(r: &'a Reading<'a>, sets: &'a [Vec<&'a str>; 3]) -> Tally<'a> {
        // Query units a record no loaded piece holds may cover (typed
        // reading): each unit of a common word it has. Counted per
        // value like `outside`: members, minus those the pieces hold.
        let cover_terms: Vec<&str> = r
            .clauses
            .iter()
            .filter(|(o, p, _)| *o != Occur::MustNot && !p)
            .flat_map(|(_, _, toks)| toks.iter().map(|t| t.text.as_str()))
            .filter(|t| r.is_common(t) && !text::is_optional_word(t))
            .collect();
        Tally {
            r,
            sets,
            covers: vec![0i64; cover_terms.len() + 1],
            cover_terms,
            count: 0,
            facets: FacetCounts::default(),
        }
    }

    /// Whether a record holding the query's common terms `has` says
    /// matches.
    fn matches(&self, has: &dyn Fn(&str) -> bool) -> bool {
        let [scoring, required, excluded] = self.sets;
        scoring.iter().any(|t| has(t))
            && required.iter().all(|t| has(t))
            && !excluded.iter().any(|t| has(t))
    }

    /// Counts `n` records of columns `g` holding exactly the query's
    /// common terms `has` says, when they match.
    fn add(&mut self, has: &dyn Fn(&str) -> bool, g: &Group, n: i64) {
        if n == 0 || !self.matches(has) || !group_passes(&self.r.filters, g) {
            return;
        }
        self.covers[self.cover_terms.iter().filter(|t| has(t)).count()] += n;
        self.count += n;
        add_group(&mut self.facets, self.r.stats, g, self.r.q.version, n);
    }

    /// Takes out the records a loaded piece holds (counted above if they
    /// match).
    fn take_held(&mut self, engines: &[&Engine]) {
        let mut counted: HashSet<u32> = HashSet::new();
        for &e in engines {
            let ix = e.index();
            let local = self.r.filters.relocate(self.r.countries, ix);
            let reg = e.registry();
            for r in 0..reg.len() as u32 {
                if !counted.insert(reg.id(r as usize).number()) {
                    continue;
                }
                let has = |t: &str| record_has(ix, r, t);
                if self.matches(&has) && local.matches(ix, r, false) {
                    self.covers[self.cover_terms.iter().filter(|t| has(t)).count()] -= 1;
                    self.count -= 1;
                    add_record(&mut self.facets, ix, r, self.r.q.version, -1);
                }
            }
        }
    }

    fn outside(self) -> Outside {
        let cover = if self.r.q.typed {
            self.covers.iter().rposition(|&n| n > 0).unwrap_or(0) as u16
        } else {
            0
        };
        Outside {
            count: self.count,
            facets: self.facets,
            cover,
        }
    }
}

impl SearchClient {
    /// Records matching through common terms only (of `sets`), held by no
    /// loaded piece (of `engines`), counted.
    pub(super) fn count_outside<'a>(
        &self,
        r: &'a Reading<'a>,
        sets: &'a [Vec<&'a str>; 3],
        engines: &[&Engine],
    ) -> Step<Outside> {
        let mut tally = Tally::new(r, sets);
        let (grouped, listed) = split_common(r.stats, sets);
        // Records holding exactly each set of the grouped terms (and
        // whatever listed ones), by columns; a record of a listed term
        // is counted from its member files instead, with every query
        // term it holds, and taken out of its grouped set's count.
        let Some(groups) = self.exact_groups(&grouped) else {
            return Break(SearchAnswer::Whole("the group files are not loaded"));
        };
        for (set, counts) in &groups {
            for (g, &n) in counts {
                if n < 0 {
                    return Break(SearchAnswer::Whole("the group files disagree"));
                }
                tally.add(&|t: &str| set.contains(&t), g, n);
            }
        }
        self.count_listed(&mut tally, &grouped, &listed);
        tally.take_held(engines);
        Continue(tally.outside())
    }

    /// Counts the records of the `listed` terms from their member files,
    /// each with every query term it holds, and takes each out of the
    /// count of its set of the `grouped` terms.
    fn count_listed(&self, tally: &mut Tally, grouped: &[&str], listed: &[&str]) {
        let stats = tally.r.stats;
        let grouped_at: Vec<(&str, Option<u16>)> = grouped
            .iter()
            .map(|&t| (t, stats.commonness_position(t).map(|p| p as u16)))
            .collect();
        let lookup: Vec<HashMap<u32, &Member>> = listed
            .iter()
            .map(|t| {
                self.members[*t]
                    .members
                    .iter()
                    .map(|m| (m.record, m))
                    .collect()
            })
            .collect();
        let mut all: Vec<u32> = lookup.iter().flat_map(|l| l.keys().copied()).collect();
        sort(&mut all);
        all.dedup();
        for r in all {
            let mut member = None;
            let mut held: Vec<&str> = Vec::new();
            for (t, l) in listed.iter().zip(&lookup) {
                if let Some(m) = l.get(&r) {
                    held.push(t);
                    member = Some(*m);
                }
            }
            let Some(m) = member else { continue };
            let in_groups: Vec<&str> = grouped_at
                .iter()
                .filter(|(_, p)| p.is_some_and(|p| m.holds.binary_search(&p).is_ok()))
                .map(|(t, _)| *t)
                .collect();
            let g = Group {
                status: m.status,
                types: m.types,
                continents: m.continents,
                countries: m.countries.clone(),
            };
            tally.add(
                &|t: &str| held.contains(&t) || in_groups.contains(&t),
                &g,
                1,
            );
            if !in_groups.is_empty() {
                tally.add(&|t: &str| in_groups.contains(&t), &g, -1);
            }
        }
    }

    /// The files the count of records no loaded piece holds needs: the
    /// group files of every set of the query's common terms when it has
    /// at most [`GROUP_TERMS`](super::reading::GROUP_TERMS) of them and the build wrote them, else
    /// their member files; nothing when a rare word is required.
    pub(super) fn outside_needs(&self, stats: &SearchStats, clauses: &[Clause]) -> Vec<Need> {
        let Some(sets) = outside_sets(stats, clauses) else {
            return Vec::new();
        };
        let (grouped, listed) = split_common(stats, &sets);
        let mut needs: Vec<Need> = subsets(&grouped)
            .into_iter()
            .map(|s| Need::Groups(s.into_iter().map(str::to_string).collect()))
            .chain(listed.iter().map(|t| Need::Members(t.to_string())))
            .collect();
        if stats.groups {
            // Every common word's own group file: its rank chunks' frontiers.
            let mut all: Vec<&str> = clauses
                .iter()
                .flat_map(|(_, _, toks)| toks.iter().map(|t| t.text.as_str()))
                .filter(|t| stats.common(t).is_some())
                .collect();
            sort(&mut all);
            all.dedup();
            needs.extend(all.into_iter().map(|t| Need::Groups(vec![t.to_string()])));
        }
        sort(&mut needs);
        needs.dedup();
        needs.into_iter().filter(|n| !self.has(n)).collect()
    }

    /// The records holding exactly each set of `grouped` (common terms of
    /// the query, at most [`GROUP_TERMS`](super::reading::GROUP_TERMS); and none of the others of
    /// `grouped`), counted by columns: from the group files by inclusion
    /// and exclusion. `None`: a group file is not loaded.
    #[allow(clippy::type_complexity)]
    pub(super) fn exact_groups<'t>(
        &self,
        grouped: &[&'t str],
    ) -> Option<Vec<(Vec<&'t str>, HashMap<&Group, i64>)>> {
        let all = subsets(grouped);
        let mut out = Vec::new();
        for set in &all {
            let mut counts: HashMap<&Group, i64> = HashMap::new();
            for sup in all.iter().filter(|f| set.iter().all(|t| f.contains(t))) {
                let key: Vec<String> = sup.iter().map(|t| t.to_string()).collect();
                let sign = if (sup.len() - set.len()) % 2 == 0 {
                    1
                } else {
                    -1
                };
                for (g, n) in self.groups_of(&key)? {
                    *counts.entry(g).or_default() += sign * i64::from(*n);
                }
            }
            out.push((set.clone(), counts));
        }
        Some(out)
    }

    /// The groups of the records holding every term of `terms` (one or
    /// two, sorted): their file, or for a pair without one (a 404), the
    /// pairs written in its terms' own files; `None`: not loaded.
    pub(super) fn groups_of(&self, terms: &[String]) -> Option<&[(Group, u32)]> {
        let file = self.groups.get(terms)?;
        if terms.len() != 2 || !file.groups.is_empty() {
            return Some(&file.groups);
        }
        for (own, other) in [(&terms[0], &terms[1]), (&terms[1], &terms[0])] {
            let own = self.groups.get(std::slice::from_ref(own))?;
            if let Some((_, g)) = own.pairs.iter().find(|(t, _)| t == other) {
                return Some(g);
            }
        }
        Some(&[])
    }
}

/// Whether a name of record `r` holds term `t`.
pub(super) fn record_has(ix: &Index, r: u32, t: &str) -> bool {
    let Some(id) = ix.term_id(t) else {
        return false;
    };
    let entries = ix.record_entries(r);
    let postings = ix.postings(id);
    let i = postings.partition_point(|&e| e < entries.start);
    postings.get(i).is_some_and(|&e| e < entries.end)
}
