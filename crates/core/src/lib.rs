//! Research-organization registry core: record model, dump import, shard
//! format, search (keyword, typeahead, advanced, affiliation) and the API
//! router — pure Rust, no I/O, no wasm-bindgen, so the same code runs
//! natively and in the browser.
//!
//! The host supplies bytes (a dump, shard files) and gets values back:
//!
//! ```
//! use registry_core::{import, shard, Registry};
//! let dump = br#"[{"admin":{"created":{"date":"2020-01-01","schema_version":"2.1"},
//!   "last_modified":{"date":"2024-05-01","schema_version":"2.1"}},"domains":[],
//!   "established":1901,"external_ids":[],"id":"https://ror.org/02mhbdp94","links":[],
//!   "locations":[],"names":[{"lang":"en","types":["ror_display","label"],
//!   "value":"Example University"}],"relationships":[],"status":"active",
//!   "types":["education"]}]"#;
//! let imported = import::import_dump(dump, Default::default(), &mut |_, _| {}).unwrap();
//! let built = shard::build(&imported.records, "demo", 0, &shard::Stored).unwrap();
//! let registry = Registry::from_bytes(&built.full_file()).unwrap();
//! assert_eq!(registry.display_name(0), "Example University");
//! assert_eq!(registry.record(0).unwrap(), imported.records[0]);
//!
//! // Every front end answers the API through one router.
//! let engine = registry_core::search::Engine::new(registry);
//! let answer = engine.handle("/v2/organizations?query=example%20univ");
//! assert_eq!(answer.status, 200);
//! assert!(answer.json.contains("https://ror.org/02mhbdp94"));
//! ```
//!
//! # Quirks
//!
//! * Unknown JSON members in a dump are ignored (not stored, not reported).
//! * Arrays keep the dump's order; upstream's API re-sorts names, links and
//!   ids on output, we do not.
//! * Identifiers are accepted in more forms than upstream accepts (upper
//!   case, surrounding spaces, `www.`, a trailing slash), but the checksum is
//!   always verified.
#![deny(missing_docs)]

pub mod advanced;
pub mod affiliation;
pub mod container;
pub mod continent;
pub mod crc32;
mod decimal;
pub mod id;
pub mod import;
pub mod index;
pub mod list_layout;
pub mod model;
pub(crate) mod order;
pub mod pieces;
pub mod prior;
pub mod registry;
pub mod router;
pub mod search;
pub mod shard;
pub mod text;
pub mod v1;

pub use id::{IdError, RecordId};
pub use model::Record;
pub use registry::Registry;
pub use shard::{ShardError, ShardInfo};
pub use v1::RecordV1;
