//! `registry info` and `registry get`: what a shard or build holds, and one
//! record of it.

use std::path::PathBuf;

use registry_core::{RecordId, RecordV1, shard};

use crate::load;

/// Print the shard header: release, records, sections, sizes.
///
/// Of a .shard file: its header, sections and sizes, checksums verified;
/// of a build directory, a site folder or a manifest.json: the manifest.
#[derive(clap::Args)]
pub struct InfoArgs {
    /// A .shard file, a build directory, a site folder or a manifest.json
    #[arg(value_name = "shard")]
    shard: PathBuf,
}

/// Print one record as JSON (v2 unless --v1).
#[derive(clap::Args)]
pub struct GetArgs {
    /// Registry data: a .shard file, a build directory, a site folder, a
    /// manifest.json or a dump (built in memory first)
    #[arg(value_name = "shard")]
    shard: PathBuf,
    /// The record's id in any form: https://ror.org/X, ror.org/X, or X
    #[arg(value_name = "id")]
    id: String,
    /// Print the v1 shape
    #[arg(long)]
    v1: bool,
}

pub fn cmd_info(a: InfoArgs) -> Result<(), String> {
    let file = load::data_file(&a.shard)?;
    if load::is_manifest(&file) {
        let m: serde_json::Value =
            serde_json::from_slice(&load::read(&file)?).map_err(|e| e.to_string())?;
        println!("{}", serde_json::to_string_pretty(&m).unwrap_or_default());
        return Ok(());
    }
    let bytes = load::read(&file)?;
    let (info, entries, _) =
        shard::read_header(&bytes).map_err(|e| format!("{}: {e}", file.display()))?;
    shard::read_file(&bytes).map_err(|e| format!("{}: {e}", file.display()))?;
    let sections: Vec<_> = entries
        .iter()
        .map(|e| {
            serde_json::json!({
                "section": e.kind.name(), "codec": format!("{:?}", e.codec).to_lowercase(),
                "raw_bytes": e.raw_len, "stored_bytes": e.stored_len,
            })
        })
        .collect();
    let out = serde_json::json!({
        "file": file.display().to_string(), "bytes": bytes.len(), "format_version": info.format_version,
        "release": info.release, "record_count": info.record_count, "build_time": info.build_time,
        "build_id": format!("{:016x}", info.build_id), "sections": sections, "checksums": "ok",
    });
    println!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
    Ok(())
}

pub fn cmd_get(a: GetArgs) -> Result<(), String> {
    let registry = load::load(&a.shard, false)?;
    let rid = RecordId::parse(&a.id).map_err(|e| e.to_string())?;
    let i = registry
        .index_of(rid)
        .ok_or_else(|| format!("no record with id {rid} in this shard"))?;
    let record = registry.record(i).map_err(|e| e.to_string())?;
    let json = if a.v1 {
        serde_json::to_string_pretty(&RecordV1::from_v2(&record))
    } else {
        serde_json::to_string_pretty(&record)
    };
    println!("{}", json.map_err(|e| e.to_string())?);
    Ok(())
}
