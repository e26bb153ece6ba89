//! `query.advanced` (E3) over the whole registry.
//!
//! The expression ([`crate::advanced`]) is answered from a
//! [`FieldIndex`]: every field of every record in columns (dictionaries with
//! record lists, sorted number and date columns), built once on first use
//! by decoding every record (for the 36k-record shard natively: ≈ 0.5–0.7 s,
//! ≈ 21 MB held, ≈ 55 MB peak while building; `registry bench-advanced`
//! prints the figures; [`Engine::warm_advanced`] builds it ahead, e.g. in
//! the background after load). After that no query decodes a record except
//! the 20 of the page shown: queries take well under a millisecond to ~10 ms
//! (a bare `*x*` wildcard filters every field's dictionary).
//!
//! Semantics, as the router applies them:
//!
//! * matches are exactly [`crate::advanced::Query::matches`] over every
//!   record (the tests check this on the real data);
//! * `filter`s are ANDed;
//! * the active-only default applies unless the expression names `status`
//!   ([`crate::advanced::Query::constrains_status`]), `all_status` is given,
//!   or a status filter is (which then decides, as in E2);
//! * results are in **identifier order** (there is no score); `scores` are 0;
//! * v1 answers 400: `query.advanced` is v2-only here (its field names are
//!   v2 paths).

use crate::advanced::{self, FieldIndex, Query, RecordSet};
use crate::search::{Engine, Filters, Hits, Version};

impl Engine {
    /// The `query.advanced` columns, built on first use. `Err` when the
    /// records section is not loaded.
    pub fn advanced_index(&self) -> Result<&FieldIndex, String> {
        if let Some(ix) = self.advanced.get() {
            return Ok(ix);
        }
        if !self.registry.has_records() {
            return Err("full records are not loaded: query.advanced needs them".to_string());
        }
        Ok(self.advanced.get_or_init(|| {
            FieldIndex::build(self.registry.len(), |i| self.registry.record(i).ok())
        }))
    }

    /// Builds the `query.advanced` columns now (e.g. in the background after
    /// load) so that no request pays for it. Does nothing without records.
    pub fn warm_advanced(&self) {
        let _ = self.advanced_index();
    }

    /// Heap bytes of the `query.advanced` columns (0 until built).
    pub fn advanced_heap_bytes(&self) -> usize {
        self.advanced.get().map_or(0, FieldIndex::heap_bytes)
    }

    /// Every record `query` matches, ignoring status and filters.
    pub fn advanced_matches(&self, query: &Query) -> Result<RecordSet, String> {
        Ok(self.advanced_index()?.matches(query))
    }

    /// E3: the records `query` matches under `filters` and the status rule
    /// (module docs), in identifier order.
    pub fn advanced_search(&self, query: &Query, filters: &Filters) -> Result<Hits, String> {
        if query.is_empty() {
            return Ok(Hits::default());
        }
        let set = self.advanced_matches(query)?;
        let lift = query.constrains_status();
        let records: Vec<u32> = set
            .iter()
            .filter(|&r| filters.matches(&self.index, r, lift))
            .collect();
        let scores = vec![0.0; records.len()];
        Ok(Hits { records, scores })
    }

    /// The router's `query.advanced` branch: `Err((status, message))`.
    pub(crate) fn advanced_route(
        &self,
        version: Version,
        expr: &str,
        filters: &Filters,
    ) -> Result<Hits, (u16, String)> {
        if version == Version::V1 {
            return Err((
                400,
                "query.advanced is only available in v2; use /v2/organizations?query.advanced=…"
                    .to_string(),
            ));
        }
        let query = advanced::parse(expr).map_err(|e| (400, e.to_string()))?;
        self.advanced_search(&query, filters).map_err(|e| (503, e))
    }
}
