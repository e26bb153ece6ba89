//! Handing files in: each file a [`Need`] names, decoded and checked
//! against the statistics, and what is loaded.

use crate::Registry;
use crate::index::Index;
use crate::order::sort;
use crate::search::Engine;
use crate::shard::search::{SearchStats, TermGroups, TermMembers, decode_terms, term_part};
use crate::shard::{SectionKind, ShardError, read_file};

use super::{Need, SearchClient};

impl SearchClient {
    /// Loads the statistics file.
    pub fn add_stats(&mut self, bytes: &[u8]) -> Result<(), ShardError> {
        let stats = SearchStats::decode(&section(bytes, SectionKind::SearchStats)?)?;
        let countries = Index::country_table(
            stats
                .countries
                .iter()
                .map(|c| (c.code.as_str(), c.title.as_str(), c.names.as_slice())),
        );
        self.stats = Some((stats, countries));
        for (first, bytes) in std::mem::take(&mut self.early_parts) {
            self.add_terms(&first, &bytes)?;
        }
        Ok(())
    }

    /// Loads statistics part `first` (version 8) into the statistics.
    pub(super) fn add_terms(&mut self, first: &str, bytes: &[u8]) -> Result<(), ShardError> {
        let Some((stats, _)) = &mut self.stats else {
            self.early_parts.push((first.to_string(), bytes.to_vec()));
            return Ok(());
        };
        // An older build's statistics list every common term.
        if stats.term_parts.is_some() {
            let terms = decode_terms(&section(bytes, SectionKind::SearchTerms)?, first, stats)?;
            stats.add_terms(terms);
        }
        Ok(())
    }

    /// The statistics parts the common terms of `tokens` are in that are
    /// not loaded (version 8; none before).
    pub(super) fn missing_parts<'t>(&self, tokens: impl IntoIterator<Item = &'t str>) -> Vec<Need> {
        if self
            .stats
            .as_ref()
            .is_some_and(|s| s.0.term_parts.is_none())
        {
            return Vec::new();
        }
        let mut out: Vec<Need> = tokens
            .into_iter()
            .map(|t| term_part(t).to_string())
            .filter(|p| !p.is_empty() && !self.parts.contains(p))
            .map(Need::StatsPart)
            .collect();
        sort(&mut out);
        out.dedup();
        out
    }

    /// Loads the directory part of first character `first`.
    pub fn add_directory(&mut self, first: &str, keys: impl IntoIterator<Item = String>) {
        self.dir.add_split_keys(first, keys);
    }

    /// Loads a file asked for by [`Need`]; `None`: it does not exist (HTTP
    /// 404: no record under that prefix or id key).
    pub fn add(&mut self, need: &Need, bytes: Option<&[u8]>) -> Result<(), ShardError> {
        match need {
            Need::Stats => match bytes {
                Some(b) => self.add_stats(b),
                None => Err(ShardError::Malformed {
                    section: SectionKind::SearchStats,
                    offset: 0,
                    what: "the statistics file is missing".into(),
                }),
            },
            Need::StatsPart(first) => {
                if let Some(b) = bytes {
                    self.add_terms(first, b)?;
                }
                self.parts.insert(first.clone());
                Ok(())
            }
            Need::Directory(first) => {
                // A directory part is JSON, handed in by `add_directory`.
                self.dir.add_split_keys(first, Vec::new());
                Ok(())
            }
            Need::Members(term) => {
                let countries = self.stats.as_ref().map_or(0, |s| s.0.countries.len());
                let m = match bytes {
                    Some(b) => {
                        let m =
                            TermMembers::decode(&section(b, SectionKind::TermMembers)?, countries)?;
                        // Positions into the statistics' common terms, which
                        // say whether the file must have them.
                        let (holds, common) = self
                            .stats
                            .as_ref()
                            .map_or((false, 0), |s| (s.0.member_holds, s.0.common_count()));
                        let beyond = m
                            .members
                            .iter()
                            .flat_map(|x| &x.holds)
                            .any(|&p| usize::from(p) >= common);
                        if m.holds != holds || beyond {
                            return Err(ShardError::Malformed {
                                section: SectionKind::TermMembers,
                                offset: 0,
                                what: format!(
                                    "the member file of {term:?} does not match the statistics' common terms"
                                ),
                            });
                        }
                        m
                    }
                    None => TermMembers {
                        term: term.clone(),
                        members: Vec::new(),
                        holds: true,
                    },
                };
                self.members.insert(term.clone(), m);
                Ok(())
            }
            Need::Groups(terms) => {
                let g = self.decode_groups(bytes)?.unwrap_or_else(|| TermGroups {
                    terms: terms.clone(),
                    ..TermGroups::default()
                });
                self.groups.insert(terms.clone(), g);
                Ok(())
            }
            Need::PhraseGroups(a, b) => {
                let g = self.decode_groups(bytes)?.unwrap_or_default();
                self.phrase_groups.insert((a.clone(), b.clone()), g);
                Ok(())
            }
            Need::Extension(prefix) if bytes.is_none() => {
                self.no_extension.insert(prefix.clone());
                Ok(())
            }
            Need::Leaf(_)
            | Need::Head(_)
            | Need::Term(_)
            | Need::Id(_)
            | Need::Rank(..)
            | Need::PairRank(..)
            | Need::SetRank(..)
            | Need::CountryRank(..)
            | Need::TypeRank(..)
            | Need::PhraseRank(..)
            | Need::Phrase(..)
            | Need::External(_)
            | Need::Extension(_) => {
                let registry = match bytes {
                    Some(b) => Registry::from_bytes(b)?,
                    None => Registry::empty(),
                };
                self.engines.insert(need.clone(), Engine::new(registry));
                Ok(())
            }
        }
    }

    /// A group file's bytes, decoded against the statistics' countries
    /// (`None`: it does not exist).
    pub(super) fn decode_groups(
        &self,
        bytes: Option<&[u8]>,
    ) -> Result<Option<TermGroups>, ShardError> {
        let countries = self.stats.as_ref().map_or(0, |s| s.0.countries.len());
        bytes
            .map(|b| TermGroups::decode(&section(b, SectionKind::TermGroups)?, countries))
            .transpose()
    }

    /// Whether `need` is loaded.
    pub fn has(&self, need: &Need) -> bool {
        match need {
            Need::Stats => self.stats.is_some(),
            Need::StatsPart(first) => self.parts.contains(first),
            Need::Directory(first) => self.dir.missing_part(first).is_none(),
            Need::Members(t) => self.members.contains_key(t),
            Need::Groups(t) => self.groups.contains_key(t),
            Need::PhraseGroups(a, b) => self.phrase_groups.contains_key(&(a.clone(), b.clone())),
            Need::Extension(p) if self.no_extension.contains(p) => true,
            _ => self.engines.contains_key(need),
        }
    }

    /// The loaded chunks `chunk(0)`, `chunk(1)`, …, from the first.
    pub(super) fn loaded_run(&self, chunk: impl Fn(u32) -> Need) -> impl Iterator<Item = &Engine> {
        (0..).map_while(move |n| self.engines.get(&chunk(n)))
    }
}

/// The one section of a single-section file.
pub(super) fn section(bytes: &[u8], kind: SectionKind) -> Result<Vec<u8>, ShardError> {
    let file = read_file(bytes)?;
    file.sections
        .into_iter()
        .find(|(k, _)| *k == kind)
        .map(|(_, b)| b)
        .ok_or(ShardError::Malformed {
            section: kind,
            offset: 0,
            what: format!("the file has no {kind} section"),
        })
}
