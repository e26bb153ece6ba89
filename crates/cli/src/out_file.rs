//! One file a build writes: what the data build, the pieces and the packs
//! hand each other (below all three, so none imports another for it).

use std::path::Path;

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

impl OutFile {
    /// Writes the file at its name under `dir`, making the folders it needs.
    pub fn write_under(&self, dir: &Path) -> Result<(), String> {
        let path = dir.join(&self.name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
        }
        std::fs::write(&path, &self.bytes)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))
    }
}
