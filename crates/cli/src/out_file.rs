//! One file a build writes: what the data build, the pieces and the packs
//! hand each other (below all three, so none imports another for it).

use registry_core::shard::SectionKind;

/// One written file.
pub struct OutFile {
    /// File name (content-hashed).
    pub name: String,
    /// Sections it holds.
    pub sections: Vec<SectionKind>,
    /// Contents.
    pub bytes: Vec<u8>,
}
