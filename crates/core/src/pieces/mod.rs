//! The partitioned typeahead index: the registry cut into small *pieces*
//! keyed by folded term prefix, so a typeahead client fetches only the
//! piece its query needs instead of the whole `summary` + `names`.
//!
//! # Pieces
//!
//! A piece is a complete shard file ([`crate::shard::pieces`], format 2)
//! holding the `summary` and `names` sections of a subset of records, with
//! their real ids. A client loads it as a [`crate::Registry`] and asks the
//! one [`crate::search::Engine`] — there is no second suggest engine. Two
//! kinds:
//!
//! * **leaf** `p`: every record with a term (a folded word, or a character
//!   or bigram of a no-space script) starting with `p`. Any query with a
//!   required unit (a word not in [`crate::text::OPTIONAL_WORDS`], a
//!   bigram, a lone character) whose text starts with `p` has all its
//!   candidates in the leaf, and every ranking key of `suggest` depends
//!   only on the record and the query (match tier, status, prior, name
//!   length, id order), so the leaf answers *exactly* as the whole registry
//!   does, filters included.
//! * **head** `p`: a prefix whose leaf would exceed the byte budget is
//!   split into one node per next character; its head holds the best
//!   [`PieceBudget::head_records`] records of the one-word query `p` as the
//!   whole registry ranks them. A head answers that query exactly without
//!   filters, and with filters whenever at least `k` of its records pass
//!   (filtering keeps the order); otherwise the client needs the whole
//!   typeahead data.
//!
//! * **a head proves first hits** of a longer one-word query while its
//!   piece is on its way ([`ExactWords`], [`Answer::Partial`]): the hits
//!   ranking above the head's last record for its own prefix come first in
//!   the whole registry, unless a record outside the head is named exactly
//!   as typed, which its `exact_words` section rules out.
//!
//! [`route`] decides, from the [`Directory`] alone, which piece answers a
//! query: the smallest leaf covering one of its required units; else the
//! head of a one-word query; else [`Route::Whole`] (several common short
//! words, ids, empty text), where the client uses the full `summary` +
//! `names`. A required unit under no node matches no record:
//! [`Route::Empty`].
//!
//! # Context
//!
//! [`PieceClient::answer`] takes the form's [`SuggestContext`] and answers
//! with [`Engine::suggest_in`]. In a leaf the context is exact: preferred
//! countries and types are boosts by the record's own columns (a value is
//! accepted or ignored by its form — a known type, two letters — never by
//! the data, so a piece applies the same ones), a remembered record moves
//! only when it matches the text (one outside the leaf does not, so the
//! whole registry does not show it either), and `lang` picks one of the
//! record's own labels. A head holds the best records *without*
//! context, so a preference or a remembered pick may lift a record it does
//! not hold: a head answers only when the context has nothing but `lang`.
//! An e-mail domain (one [`domain_of`] accepts) needs the `domains`
//! section, which pieces do not carry: [`Answer::Whole`], for any text.
//!
//! # Quirks
//!
//! * A prefix that cannot be extended (a very common term that no longer
//!   term continues) stays one leaf even over the budget.
//! * The budget is on raw (uncompressed) section bytes, estimated per
//!   record, so piece files vary around it after compression.
//! * A head proves first hits only for one-word queries, without
//!   preferences or remembered picks, and only up to the word length its
//!   exact words cover (three characters for a common first letter at
//!   144k records): a longer word waits for a deeper head or its leaf.
//!
//! Layers: the file formats are [`crate::shard::pieces`]; this module is
//! above the engine ([`crate::search`]): [`partition`] cuts an engine's
//! registry, [`route`] picks a piece for a query, [`PieceClient`] answers
//! with the one engine.

mod client;
mod partition;
mod route;
pub mod search;

pub use crate::shard::pieces::{
    ExactWords, ID_KEY_CHARS, PieceKind, PieceSpec, first_char, id_key, pack, piece_file,
};
pub use client::{Answer, PieceClient};
pub use partition::{PieceBudget, exact_words, pack_first_characters, partition};
pub use route::{Directory, Route, route};
