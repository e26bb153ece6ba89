//! Records matching through common terms alone that no loaded piece
//! holds: the files that count them, and their counts by columns from the
//! group files, by inclusion and exclusion.

use std::collections::HashMap;

use crate::index::Index;
use crate::order::sort;
use crate::shard::search::{Group, SearchStats};

use super::reading::{Clause, outside_sets, split_common, subsets};
use super::{Need, SearchClient};

impl SearchClient {
    /// The files the count of records no loaded piece holds needs: the
    /// group files of every set of the query's common terms when it has
    /// at most [`GROUP_TERMS`] of them and the build wrote them, else
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
    /// the query, at most [`GROUP_TERMS`]; and none of the others of
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
