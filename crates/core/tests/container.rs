//! Dumps arrive as plain JSON, gzip or a release zip.

mod common;

use miniz_oxide::deflate::compress_to_vec;
use registry_core::container::{ContainerError, unwrap_dump};
use registry_core::import::{ImportError, ImportOptions, import_dump};

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x1f, 0x8b, 8, 8, 0, 0, 0, 0, 2, 3];
    out.extend_from_slice(b"dump.json\0");
    out.extend(compress_to_vec(data, 9));
    out.extend_from_slice(&common::crc32_reference(data).to_le_bytes());
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out
}

/// A minimal zip writer (deflate), enough to mimic a release archive.
fn zip(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data) in files {
        let packed = compress_to_vec(data, 6);
        let offset = out.len() as u32;
        let mut local = vec![];
        local.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        local.extend_from_slice(&[20, 0, 0, 0, 8, 0, 0, 0, 0, 0]);
        local.extend_from_slice(&common::crc32_reference(data).to_le_bytes());
        local.extend_from_slice(&(packed.len() as u32).to_le_bytes());
        local.extend_from_slice(&(data.len() as u32).to_le_bytes());
        local.extend_from_slice(&(name.len() as u16).to_le_bytes());
        local.extend_from_slice(&0u16.to_le_bytes());
        local.extend_from_slice(name.as_bytes());
        out.extend(local);
        out.extend(&packed);
        central.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        central.extend_from_slice(&[20, 0, 20, 0, 0, 0, 8, 0, 0, 0, 0, 0]);
        central.extend_from_slice(&common::crc32_reference(data).to_le_bytes());
        central.extend_from_slice(&(packed.len() as u32).to_le_bytes());
        central.extend_from_slice(&(data.len() as u32).to_le_bytes());
        central.extend_from_slice(&(name.len() as u16).to_le_bytes());
        central.extend_from_slice(&[0; 12]);
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(name.as_bytes());
    }
    let cd_offset = out.len() as u32;
    out.extend(&central);
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&[0, 0, 0, 0]);
    out.extend_from_slice(&(files.len() as u16).to_le_bytes());
    out.extend_from_slice(&(files.len() as u16).to_le_bytes());
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&cd_offset.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out
}

fn demo_json() -> Vec<u8> {
    std::fs::read(common::demo_path()).unwrap()
}

#[test]
fn plain_gzip_and_zip_give_the_same_records() {
    let json = demo_json();
    let plain = import_dump(&json, ImportOptions::default(), &mut |_, _| {})
        .unwrap()
        .records;
    let gz = import_dump(&gzip(&json), ImportOptions::default(), &mut |_, _| {})
        .unwrap()
        .records;
    let release = zip(&[
        ("v9.99-2026-01-01-ror-data.csv", b"id,name\n"),
        ("v9.99-2026-01-01-ror-data.json", b"[]"),
        ("v9.99-2026-01-01-ror-data_schema_v2.json", &json),
    ]);
    let zipped = import_dump(&release, ImportOptions::default(), &mut |_, _| {})
        .unwrap()
        .records;
    assert_eq!(plain, gz);
    assert_eq!(plain, zipped);
}

#[test]
fn a_zip_with_one_json_file_is_used_as_is() {
    let json = demo_json();
    assert_eq!(
        unwrap_dump(&zip(&[("ror-data.json", &json)]))
            .unwrap()
            .as_ref(),
        json.as_slice()
    );
}

#[test]
fn ambiguous_or_empty_zips_list_their_files() {
    let err = unwrap_dump(&zip(&[("a.json", b"[]"), ("b.json", b"[]")])).unwrap_err();
    assert_eq!(
        err,
        ContainerError::NoDumpInZip {
            names: vec!["a.json".into(), "b.json".into()]
        }
    );
    let err = unwrap_dump(&zip(&[("readme.txt", b"hi")])).unwrap_err();
    assert!(err.to_string().contains("readme.txt"));
}

#[test]
fn damaged_containers_are_reported_not_panicked() {
    let json = demo_json();
    let gz = gzip(&json);
    for cut in (0..gz.len()).step_by(gz.len() / 50) {
        assert!(
            import_dump(&gz[..cut.max(2)], ImportOptions::default(), &mut |_, _| {}).is_err(),
            "gzip cut {cut}"
        );
    }
    let mut flipped = gz.clone();
    let mid = flipped.len() / 2;
    flipped[mid] ^= 0x55;
    let err = import_dump(&flipped, ImportOptions::default(), &mut |_, _| {}).unwrap_err();
    assert!(
        matches!(err, ImportError::Container(ContainerError::BadGzip(_))),
        "{err}"
    );
    let z = zip(&[("dump.json", &json)]);
    for cut in (4..z.len()).step_by(z.len() / 50) {
        assert!(unwrap_dump(&z[..cut]).is_err(), "zip cut {cut}");
    }
}
