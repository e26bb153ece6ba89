//! Where a query term's records are: the piece that holds every one of
//! them, or, for a common term, its own files.

use crate::search::Engine;
use crate::shard::pieces::{PieceKind, first_char};
use crate::shard::search::{CommonTerm, SearchStats};

use super::{Need, SearchClient};

/// Where a query token's records are.
pub(super) enum Source<'a> {
    Engine(&'a Engine),
    Common(&'a CommonTerm),
    Nothing,
}

impl SearchClient {
    /// The leaf of common term `t` when it has one (a term too common to
    /// split, whose leaf holds its records alone): E2 reads it by rank
    /// chunks, and by this leaf when they do not serve. `Err`: the
    /// directory part to fetch first.
    pub(super) fn common_leaf(&self, t: &str) -> Result<Option<Need>, Need> {
        Ok(self.piece_of(t)?.filter(|n| matches!(n, Need::Leaf(_))))
    }

    /// The loaded leaf of common term `t` ([`SearchClient::common_leaf`]):
    /// every record of `t` is loaded.
    pub(super) fn loaded_common_leaf(&self, t: &str) -> Option<&Engine> {
        self.engines.get(&self.common_leaf(t).ok()??)
    }

    /// The piece that holds every record of term `t` (a leaf of one of its
    /// prefixes, else its own term piece); `None`: no record has a term
    /// under its prefix. `Err`: the directory part to fetch first.
    pub(super) fn piece_of(&self, t: &str) -> Result<Option<Need>, Need> {
        if let Some(first) = self.dir.missing_part(first_char(t)) {
            return Err(Need::Directory(first.to_string()));
        }
        for (i, _) in t.char_indices().skip(1).chain([(t.len(), ' ')]) {
            match self.dir.get(&t[..i]) {
                Some((PieceKind::Head, _)) => continue,
                Some(_) => return Ok(Some(Need::Leaf(t[..i].to_string()))),
                None => return Ok(None),
            }
        }
        Ok(Some(Need::Term(t.to_string())))
    }

    /// The extension piece of `t` when the prefix `t` needs one (a common
    /// term or a split term that other terms extend): `Ok(None)` when it
    /// needs none, `Err` when it is to be fetched; `Ok(Some(None))` when it
    /// was too big to write.
    pub(super) fn extension(
        &self,
        stats: &SearchStats,
        t: &str,
    ) -> Result<Option<Option<&Engine>>, Need> {
        let needed = match stats.common(t) {
            Some(c) => c.prefix_df != Some(c.df),
            None => matches!(self.piece_of(t)?, Some(Need::Term(_))),
        };
        if !needed {
            return Ok(None);
        }
        if self.no_extension.contains(t) {
            return Ok(Some(None));
        }
        let need = Need::Extension(t.to_string());
        match self.engines.get(&need) {
            Some(e) => Ok(Some(Some(e))),
            None => Err(need),
        }
    }

    /// Where the records of query token `t` are (a [`Need`] when not loaded).
    pub(super) fn source<'a>(
        &'a self,
        stats: &'a SearchStats,
        t: &str,
    ) -> Result<Source<'a>, Need> {
        if let Some(c) = stats.common(t) {
            // Its member or group files are asked for with the query's
            // other common terms ([`SearchClient::outside_needs`]).
            return Ok(Source::Common(c));
        }
        let Some(need) = self.piece_of(t)? else {
            return Ok(Source::Nothing);
        };
        match self.engines.get(&need) {
            Some(e) => Ok(Source::Engine(e)),
            None => Err(need),
        }
    }
}
