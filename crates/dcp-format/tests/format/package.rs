//! Spec §4 (packaging) and the package rows of §21/§22: every refusal of the
//! package reader, both sides of every limit, zip bombs, the icon check,
//! folders and `to_zip`.

use dcp_format::limits::{ICON_BYTES, MANIFEST_BYTES, PACKAGE_BYTES, ZIP_FILES};
use dcp_format::package::{read_bytes, read_path, to_zip, Package, PackageError, Source};
use dcp_format::Code;
use std::io::{Cursor, Write};
use std::time::{Duration, Instant};
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

const MANIFEST: &[u8] = br#"{"name":"fx"}"#;

// ---------------------------------------------------------------- helpers

fn zip_with(entries: &[(&str, &[u8])], method: CompressionMethod) -> Vec<u8> {
    let options = SimpleFileOptions::default().compression_method(method);
    let mut writer = ZipWriter::new(Cursor::new(Vec::new()));
    for (name, bytes) in entries {
        writer.start_file(*name, options).expect("start entry");
        writer.write_all(bytes).expect("write entry");
    }
    writer.finish().expect("finish zip").into_inner()
}

fn deflated(entries: &[(&str, &[u8])]) -> Vec<u8> {
    zip_with(entries, CompressionMethod::Deflated)
}

/// Stored entries keep names and sizes easy to find for byte patching.
fn stored(entries: &[(&str, &[u8])]) -> Vec<u8> {
    zip_with(entries, CompressionMethod::Stored)
}

fn refused(file_name: &str, bytes: &[u8]) -> PackageError {
    read_bytes(file_name, bytes).expect_err("the package should be refused")
}

fn assert_refused(bytes: &[u8], code: Code, path: &str) -> PackageError {
    let e = refused("p.zip", bytes);
    assert_eq!((e.code, e.path.as_str()), (code, path), "{e}");
    assert!(!e.message.is_empty());
    e
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

fn png_chunk(kind: &[u8; 4], data: &[u8]) -> Vec<u8> {
    let mut out = (data.len() as u32).to_be_bytes().to_vec();
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let mut crc_input = kind.to_vec();
    crc_input.extend_from_slice(data);
    out.extend_from_slice(&crc32(&crc_input).to_be_bytes());
    out
}

const PNG_SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";

fn real_png(width: u32, height: u32) -> Vec<u8> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().expect("png header");
    writer.write_image_data(&vec![0x80; (width * height * 4) as usize]).expect("png data");
    writer.finish().expect("png end");
    out
}

/// A PNG with the right signature and a well-formed IHDR of the given size.
fn png_with_ihdr(width: u32, height: u32) -> Vec<u8> {
    let mut ihdr = width.to_be_bytes().to_vec();
    ihdr.extend_from_slice(&height.to_be_bytes());
    ihdr.extend_from_slice(&[8, 6, 0, 0, 0]);
    let mut out = PNG_SIGNATURE.to_vec();
    out.extend(png_chunk(b"IHDR", &ihdr));
    out.extend(png_chunk(b"IDAT", &[]));
    out.extend(png_chunk(b"IEND", &[]));
    out
}

/// Where `name` starts in a local header (`true`) or a central one.
fn name_positions(zip: &[u8], name: &[u8]) -> Vec<(bool, usize)> {
    (0..zip.len().saturating_sub(name.len()))
        .filter(|&at| &zip[at..at + name.len()] == name)
        .filter_map(|at| {
            if at >= 30 && &zip[at - 30..at - 26] == b"PK\x03\x04" {
                Some((true, at - 30))
            } else if at >= 46 && &zip[at - 46..at - 42] == b"PK\x01\x02" {
                Some((false, at - 46))
            } else {
                None
            }
        })
        .collect()
}

/// Renames an entry in place (same length), in the headers chosen.
fn rename(zip: &mut [u8], from: &str, to: &[u8], local: bool, central: bool) {
    assert_eq!(from.len(), to.len());
    let positions = name_positions(zip, from.as_bytes());
    assert!(!positions.is_empty(), "{from} not found");
    for (is_local, start) in positions {
        if (is_local && local) || (!is_local && central) {
            let at = start + if is_local { 30 } else { 46 };
            zip[at..at + to.len()].copy_from_slice(to);
        }
    }
}

fn rename_everywhere(zip: &mut [u8], from: &str, to: &[u8]) {
    rename(zip, from, to, true, true);
}

fn ok_zip(bytes: &[u8]) -> Package {
    read_bytes("p.zip", bytes).expect("the package should be read")
}

// ---------------------------------------------------------------- §4 kinds

#[test]
fn s4_json_file_is_read_as_a_manifest() {
    let p = read_bytes("anything.JSON", MANIFEST).expect("json");
    assert_eq!(p.source, Source::Json);
    assert_eq!(p.manifest, MANIFEST);
    assert_eq!((p.icon, p.icon_ignored, p.extras.len()), (None, None, 0));
}

#[test]
fn s4_zip_with_every_allowed_file_is_read() {
    let icon = real_png(4, 4);
    let zip = deflated(&[
        ("manifest.json", MANIFEST),
        ("icon.png", &icon),
        ("readme.md", b"# fx"),
        ("license", b"MIT"),
        ("license.md", b"MIT"),
        ("license.txt", b"MIT"),
    ]);
    let p = read_bytes("fx.Zip", &zip).expect("zip");
    assert_eq!(p.source, Source::Zip);
    assert_eq!(p.manifest, MANIFEST);
    assert_eq!(p.icon, Some(icon));
    assert_eq!(p.icon_ignored, None);
    let names: Vec<_> = p.extras.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["readme.md", "license", "license.md", "license.txt"]);
}

#[test]
fn s4_other_extension_is_unsupported_package() {
    for name in ["fx.txt", "fx.json.exe", "fx", "fx.tar.gz"] {
        let e = refused(name, MANIFEST);
        assert_eq!((e.code, e.path.as_str()), (Code::UnsupportedPackage, "package"), "{name}");
    }
}

#[test]
fn s22_empty_file_is_read_failed() {
    for name in ["fx.json", "fx.zip"] {
        let e = refused(name, b"");
        assert_eq!((e.code, e.path.as_str()), (Code::ReadFailed, "package"), "{name}");
    }
}

#[test]
fn s22_missing_or_empty_file_on_disk_is_read_failed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let e = read_path(&dir.path().join("absent.json")).expect_err("missing");
    assert_eq!((e.code, e.path.as_str()), (Code::ReadFailed, "package"));
    let empty = dir.path().join("empty.zip");
    std::fs::write(&empty, b"").expect("write");
    let e = read_path(&empty).expect_err("empty");
    assert_eq!((e.code, e.path.as_str()), (Code::ReadFailed, "package"));
}

#[test]
fn s4_unsupported_file_on_disk_is_unsupported_package() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("fx.py");
    std::fs::write(&path, b"print()").expect("write");
    let e = read_path(&path).expect_err("py");
    assert_eq!((e.code, e.path.as_str()), (Code::UnsupportedPackage, "package"));
}

#[test]
fn s4_json_and_zip_files_on_disk_are_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    let json = dir.path().join("my plugin.json");
    std::fs::write(&json, MANIFEST).expect("write");
    assert_eq!(read_path(&json).expect("json").source, Source::Json);
    let zip = dir.path().join("fx.zip");
    std::fs::write(&zip, deflated(&[("manifest.json", MANIFEST)])).expect("write");
    let p = read_path(&zip).expect("zip");
    assert_eq!((p.source, p.manifest.as_slice()), (Source::Zip, MANIFEST));
}

// ---------------------------------------------------------------- §21 limits

/// A stored zip of exactly `len` bytes (manifest + padded readme).
fn zip_of_length(len: u64) -> Vec<u8> {
    let overhead = stored(&[("manifest.json", MANIFEST), ("readme.md", b"")]).len() as u64;
    let readme = vec![b'r'; (len - overhead) as usize];
    let zip = stored(&[("manifest.json", MANIFEST), ("readme.md", &readme)]);
    assert_eq!(zip.len() as u64, len);
    zip
}

#[test]
fn s21_package_of_exactly_1_mb_is_read() {
    let zip = zip_of_length(PACKAGE_BYTES);
    ok_zip(&zip);
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("fx.zip");
    std::fs::write(&path, &zip).expect("write");
    read_path(&path).expect("1 MB on disk");
}

#[test]
fn s21_package_of_1_mb_plus_1_is_too_large() {
    let zip = zip_of_length(PACKAGE_BYTES + 1);
    assert_refused(&zip, Code::TooLarge, "package");
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("fx.zip");
    std::fs::write(&path, &zip).expect("write");
    let e = read_path(&path).expect_err("too large on disk");
    assert_eq!((e.code, e.path.as_str()), (Code::TooLarge, "package"));
}

#[test]
fn s21_json_manifest_of_64_kb_is_read_and_one_more_byte_is_too_large() {
    let at_limit = vec![b' '; MANIFEST_BYTES as usize];
    read_bytes("fx.json", &at_limit).expect("64 KB");
    let over = vec![b' '; MANIFEST_BYTES as usize + 1];
    let e = refused("fx.json", &over);
    assert_eq!((e.code, e.path.as_str()), (Code::TooLarge, "package"));
}

#[test]
fn s21_zip_manifest_of_64_kb_is_read_and_one_more_byte_is_too_large() {
    let at_limit = vec![b' '; MANIFEST_BYTES as usize];
    ok_zip(&deflated(&[("manifest.json", &at_limit)]));
    let over = vec![b' '; MANIFEST_BYTES as usize + 1];
    assert_refused(&deflated(&[("manifest.json", &over)]), Code::TooLarge, "manifest.json");
}

/// Uncompressed content of exactly `total` bytes over three small-on-disk files.
fn content_of(total: usize) -> Vec<u8> {
    let license = vec![b'l'; 300 * 1024];
    let readme = vec![b'r'; total - MANIFEST.len() - license.len()];
    deflated(&[("manifest.json", MANIFEST), ("readme.md", &readme), ("license", &license)])
}

#[test]
fn s21_uncompressed_content_of_exactly_1_mb_is_read() {
    let zip = content_of(PACKAGE_BYTES as usize);
    assert!(zip.len() < 64 * 1024, "the zip itself is small");
    ok_zip(&zip);
}

#[test]
fn s21_uncompressed_content_of_1_mb_plus_1_is_too_large() {
    assert_refused(&content_of(PACKAGE_BYTES as usize + 1), Code::TooLarge, "package");
}

#[test]
fn s21_zip_of_20_entries_passes_the_count_and_21_is_bad_zip() {
    let names: Vec<String> = (0..ZIP_FILES + 1).map(|i| format!("extra{i:02}.txt")).collect();
    let mut entries: Vec<(&str, &[u8])> = vec![("manifest.json", MANIFEST)];
    entries.extend(names.iter().map(|n| (n.as_str(), &b"x"[..])));
    // 20 entries: refused for its first unknown name, not for the count.
    assert_refused(&deflated(&entries[..ZIP_FILES]), Code::BadZip, "extra00.txt");
    let e = assert_refused(&deflated(&entries[..ZIP_FILES + 1]), Code::BadZip, "package");
    assert!(e.message.contains("21"), "{e}");
}

/// A real PNG padded after IEND to exactly `len` bytes.
fn icon_of_length(len: u64) -> Vec<u8> {
    let mut icon = real_png(2, 2);
    icon.resize(len as usize, 0);
    icon
}

#[test]
fn s21_icon_of_256_kb_is_kept_and_one_more_byte_is_bad_zip() {
    let icon = icon_of_length(ICON_BYTES);
    let p = ok_zip(&deflated(&[("manifest.json", MANIFEST), ("icon.png", &icon)]));
    assert_eq!(p.icon, Some(icon));
    let over = icon_of_length(ICON_BYTES + 1);
    assert_refused(&deflated(&[("manifest.json", MANIFEST), ("icon.png", &over)]), Code::BadZip, "icon.png");
}

// ---------------------------------------------------------------- zip bombs

#[test]
fn s21_zip_bomb_with_a_lying_size_is_refused_quickly() {
    let inflated = vec![0u8; 64 * 1024 * 1024];
    let mut zip = deflated(&[("manifest.json", MANIFEST), ("readme.md", &inflated)]);
    assert!(zip.len() < 128 * 1024, "a bomb is small: {}", zip.len());
    // Declare 100 bytes (compressed size untouched) in both headers.
    for (local, start) in name_positions(&zip, b"readme.md") {
        let at = start + if local { 22 } else { 24 };
        zip[at..at + 4].copy_from_slice(&100u32.to_le_bytes());
    }
    let started = Instant::now();
    assert_refused(&zip, Code::TooLarge, "package");
    assert!(started.elapsed() < Duration::from_secs(5), "took {:?}", started.elapsed());
}

#[test]
fn s21_highly_compressible_entry_over_1_mb_is_too_large() {
    let big = vec![b'a'; PACKAGE_BYTES as usize + 1];
    let zip = deflated(&[("manifest.json", MANIFEST), ("readme.md", &big)]);
    assert!(zip.len() < 16 * 1024);
    assert_refused(&zip, Code::TooLarge, "package");
}

#[test]
fn s21_manifest_bomb_is_too_large_on_the_manifest() {
    let big = vec![b' '; 8 * 1024 * 1024];
    assert_refused(&deflated(&[("manifest.json", &big)]), Code::TooLarge, "manifest.json");
}

// ---------------------------------------------------------------- §4 zip entries

#[test]
fn s4_zip_with_folder_entry_is_bad_zip() {
    let options = SimpleFileOptions::default();
    let mut writer = ZipWriter::new(Cursor::new(Vec::new()));
    writer.start_file("manifest.json", options).expect("start");
    writer.write_all(MANIFEST).expect("write");
    writer.add_directory("docs/", options).expect("dir");
    let zip = writer.finish().expect("finish").into_inner();
    assert_refused(&zip, Code::BadZip, "docs/");
}

#[test]
fn s4_zip_with_file_in_folder_is_bad_zip() {
    let zip = deflated(&[("manifest.json", MANIFEST), ("docs/readme.md", b"x")]);
    assert_refused(&zip, Code::BadZip, "docs/readme.md");
}

#[test]
fn s4_zip_with_manifest_in_a_folder_is_bad_zip() {
    assert_refused(&deflated(&[("fx/manifest.json", MANIFEST)]), Code::BadZip, "fx/manifest.json");
}

#[test]
fn s4_zip_with_parent_path_is_bad_zip() {
    let zip = deflated(&[("manifest.json", MANIFEST), ("../evil", b"x")]);
    assert_refused(&zip, Code::BadZip, "../evil");
}

#[test]
fn s4_zip_with_dot_dot_name_is_bad_zip() {
    let mut zip = stored(&[("manifest.json", MANIFEST), ("ab", b"x")]);
    rename_everywhere(&mut zip, "ab", b"..");
    assert_refused(&zip, Code::BadZip, "..");
}

#[test]
fn s4_zip_with_absolute_path_is_bad_zip() {
    let mut zip = stored(&[("manifest.json", MANIFEST), ("xreadme.md", b"x")]);
    rename_everywhere(&mut zip, "xreadme.md", b"/readme.md");
    assert_refused(&zip, Code::BadZip, "/readme.md");
}

#[test]
fn s4_zip_with_backslash_name_is_bad_zip() {
    let mut zip = stored(&[("manifest.json", MANIFEST), ("docsXreadme.md", b"x")]);
    rename_everywhere(&mut zip, "docsXreadme.md", b"docs\\readme.md");
    assert_refused(&zip, Code::BadZip, "docs\\readme.md");
}

#[test]
fn s4_zip_with_backslash_parent_is_bad_zip() {
    let mut zip = stored(&[("manifest.json", MANIFEST), ("XXXmanifest.json", b"x")]);
    rename_everywhere(&mut zip, "XXXmanifest.json", b"..\\manifest.json");
    assert_refused(&zip, Code::BadZip, "..\\manifest.json");
}

#[test]
fn s4_zip_with_colon_name_is_bad_zip() {
    let mut zip = stored(&[("manifest.json", MANIFEST), ("cXreadme.md", b"x")]);
    rename_everywhere(&mut zip, "cXreadme.md", b"c:readme.md");
    assert_refused(&zip, Code::BadZip, "c:readme.md");
}

#[test]
fn s4_zip_with_nul_in_name_is_bad_zip() {
    // Truncated at NUL this name would read as manifest.json.
    let mut zip = stored(&[("icon.png", b"x"), ("manifest.jsonXevil", MANIFEST)]);
    rename_everywhere(&mut zip, "manifest.jsonXevil", b"manifest.json\0evil");
    assert_refused(&zip, Code::BadZip, "manifest.json\\u{0}evil");
}

#[test]
fn s4_zip_with_symlink_entry_is_bad_zip() {
    let options = SimpleFileOptions::default();
    let mut writer = ZipWriter::new(Cursor::new(Vec::new()));
    writer.start_file("manifest.json", options).expect("start");
    writer.write_all(MANIFEST).expect("write");
    writer.add_symlink("readme.md", "/etc/passwd", options).expect("symlink");
    let zip = writer.finish().expect("finish").into_inner();
    let e = assert_refused(&zip, Code::BadZip, "readme.md");
    assert!(e.message.contains("symbolic link"), "{e}");
}

#[test]
fn s4_zip_with_encrypted_entry_is_bad_zip() {
    let mut zip = stored(&[("manifest.json", MANIFEST), ("license", b"MIT")]);
    for (local, start) in name_positions(&zip, b"license") {
        zip[start + if local { 6 } else { 8 }] |= 1;
    }
    let e = assert_refused(&zip, Code::BadZip, "license");
    assert!(e.message.contains("encrypted"), "{e}");
}

#[test]
fn s4_zip_with_duplicate_name_is_bad_zip() {
    let mut zip = stored(&[("manifest.json", MANIFEST), ("manifest.jsoX", b"{}")]);
    rename_everywhere(&mut zip, "manifest.jsoX", b"manifest.json");
    let e = assert_refused(&zip, Code::BadZip, "manifest.json");
    assert!(e.message.contains("twice"), "{e}");
}

#[test]
fn s4_zip_with_duplicate_extra_is_bad_zip() {
    let mut zip = stored(&[("manifest.json", MANIFEST), ("readme.md", b"a"), ("readme.mX", b"b")]);
    rename_everywhere(&mut zip, "readme.mX", b"readme.md");
    assert_refused(&zip, Code::BadZip, "readme.md");
}

#[test]
fn s4_zip_with_name_differing_by_case_is_bad_zip() {
    assert_refused(&deflated(&[("Manifest.json", MANIFEST)]), Code::BadZip, "Manifest.json");
    let zip = deflated(&[("manifest.json", MANIFEST), ("ICON.PNG", &real_png(1, 1))]);
    assert_refused(&zip, Code::BadZip, "ICON.PNG");
    let zip = deflated(&[("manifest.json", MANIFEST), ("README.md", b"x")]);
    assert_refused(&zip, Code::BadZip, "README.md");
}

#[test]
fn s4_zip_with_unknown_name_is_bad_zip() {
    let zip = deflated(&[("manifest.json", MANIFEST), ("server.py", b"print()")]);
    assert_refused(&zip, Code::BadZip, "server.py");
    let zip = deflated(&[("manifest.json", MANIFEST), ("manifest.json.bak", b"{}")]);
    assert_refused(&zip, Code::BadZip, "manifest.json.bak");
}

#[test]
fn s22_unreadable_zip_is_bad_zip() {
    assert_refused(b"this is not a zip at all", Code::BadZip, "package");
    let mut truncated = deflated(&[("manifest.json", MANIFEST)]);
    truncated.truncate(truncated.len() - 10);
    assert_refused(&truncated, Code::BadZip, "package");
}

#[test]
fn s22_zip_with_corrupted_content_is_bad_zip() {
    let mut zip = stored(&[("manifest.json", MANIFEST)]);
    let local = name_positions(&zip, b"manifest.json")[0].1;
    let extra = usize::from(u16::from_le_bytes([zip[local + 28], zip[local + 29]]));
    let at = local + 30 + "manifest.json".len() + extra;
    zip[at] ^= 0xff; // the CRC no longer matches
    assert_refused(&zip, Code::BadZip, "manifest.json");
}

#[test]
fn s22_zip_without_manifest_is_no_manifest() {
    let e = assert_refused(&deflated(&[("readme.md", b"x")]), Code::NoManifest, "manifest.json");
    assert!(e.message.contains("manifest.json"));
}

#[test]
fn s4_zip_whose_local_name_differs_from_central_is_bad_zip() {
    let mut zip = stored(&[("manifest.json", MANIFEST), ("license", b"MIT")]);
    rename(&mut zip, "license", b"../evil", true, false);
    assert_refused(&zip, Code::BadZip, "license");
}

#[test]
fn s4_zip_whose_unicode_path_field_renames_an_entry_is_bad_zip() {
    // Info-ZIP Unicode path (0x7075): the zip crate reports this name
    // instead of the one written in the header.
    let mut field = vec![1u8];
    field.extend_from_slice(&crc32(b"readme.md").to_le_bytes());
    field.extend_from_slice(b"license.md");
    let mut options = zip::write::FullFileOptions::default().compression_method(CompressionMethod::Stored);
    options.add_extra_data(0x6666, field.into_boxed_slice(), false).expect("extra");
    let mut writer = ZipWriter::new(Cursor::new(Vec::new()));
    writer.start_file("manifest.json", SimpleFileOptions::default()).expect("start");
    writer.write_all(MANIFEST).expect("write");
    writer.start_file("readme.md", options.clone()).expect("start");
    writer.write_all(b"x").expect("write");
    let mut zip = writer.finish().expect("finish").into_inner();
    let positions: Vec<usize> = (0..zip.len() - 2).filter(|&i| zip[i..i + 2] == [0x66, 0x66]).collect();
    assert!(!positions.is_empty());
    for at in positions {
        zip[at..at + 2].copy_from_slice(&0x7075u16.to_le_bytes());
    }
    assert_refused(&zip, Code::BadZip, "readme.md");
}

#[test]
fn s4_zip_with_trailing_bytes_is_bad_zip() {
    let mut zip = deflated(&[("manifest.json", MANIFEST)]);
    zip.extend_from_slice(b"trailing");
    assert_refused(&zip, Code::BadZip, "package");
}

// ---------------------------------------------------------------- icon

#[test]
fn s4_real_png_icon_is_kept() {
    let icon = real_png(256, 256);
    let p = ok_zip(&deflated(&[("manifest.json", MANIFEST), ("icon.png", &icon)]));
    assert_eq!((p.icon, p.icon_ignored), (Some(icon), None));
}

fn icon_ignored(icon: &[u8]) -> String {
    let p = ok_zip(&deflated(&[("manifest.json", MANIFEST), ("icon.png", icon)]));
    assert_eq!(p.icon, None);
    p.icon_ignored.expect("a reason")
}

#[test]
fn s4_icon_with_signature_but_no_ihdr_is_ignored() {
    let mut fake = PNG_SIGNATURE.to_vec();
    fake.extend_from_slice(b"not a chunk at all");
    icon_ignored(&fake);
    icon_ignored(PNG_SIGNATURE);
    let mut text_first = PNG_SIGNATURE.to_vec();
    text_first.extend(png_chunk(b"tEXt", b"a\0b"));
    text_first.extend_from_slice(&png_with_ihdr(4, 4)[PNG_SIGNATURE.len()..]);
    icon_ignored(&text_first);
}

#[test]
fn s4_icon_of_zero_size_is_ignored() {
    icon_ignored(&png_with_ihdr(0, 16));
    icon_ignored(&png_with_ihdr(16, 0));
}

/// §4: a few KB of PNG may declare 60000 × 60000 px (about 14 GB for a
/// webview to decode): an insane size is not a real icon, the card shows
/// the letter tile. Up to 1024 px a side is kept.
#[test]
fn s4_icon_of_insane_size_is_ignored() {
    let mut bomb = png_with_ihdr(60_000, 60_000);
    bomb.resize(6 * 1024, 0);
    let reason = icon_ignored(&bomb);
    assert!(reason.contains("60000 × 60000"), "{reason}");
    icon_ignored(&png_with_ihdr(1025, 1));
    icon_ignored(&png_with_ihdr(1, 1025));
    icon_ignored(&png_with_ihdr(u32::MAX >> 1, 16));
    let edge = png_with_ihdr(1024, 1024);
    assert_eq!(ok_zip(&deflated(&[("manifest.json", MANIFEST), ("icon.png", &edge)])).icon, Some(edge));
    let p = read_path(folder(&[("manifest.json", MANIFEST), ("icon.png", &bomb)]).path()).expect("folder");
    assert_eq!(p.icon, None, "a folder's icon is judged alike");
}

#[test]
fn s4_icon_that_is_not_a_png_is_ignored() {
    let reason = icon_ignored(b"GIF89a....");
    assert!(reason.contains("icon.png"), "{reason}");
}

#[test]
fn s4_hand_made_ihdr_of_nonzero_size_is_kept() {
    // Guards the fake-PNG tests: the same builder with a real size passes.
    let icon = png_with_ihdr(4, 4);
    let p = ok_zip(&deflated(&[("manifest.json", MANIFEST), ("icon.png", &icon)]));
    assert_eq!(p.icon, Some(icon));
}

// ---------------------------------------------------------------- folders

fn folder(files: &[(&str, &[u8])]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for (name, bytes) in files {
        std::fs::write(dir.path().join(name), bytes).expect("write");
    }
    dir
}

#[test]
fn s19_folder_reads_package_files_only() {
    let icon = real_png(8, 8);
    let dir = folder(&[
        ("manifest.json", MANIFEST),
        ("icon.png", &icon),
        ("readme.md", b"# fx"),
        ("license.txt", b"MIT"),
        ("server.py", b"print()"),
    ]);
    let p = read_path(dir.path()).expect("folder");
    assert_eq!(p.source, Source::Folder);
    assert_eq!((p.manifest.as_slice(), p.icon, p.icon_ignored), (MANIFEST, Some(icon), None));
    assert_eq!(
        p.extras,
        vec![("readme.md".to_string(), b"# fx".to_vec()), ("license.txt".to_string(), b"MIT".to_vec())]
    );
}

#[test]
fn s19_folder_without_manifest_is_no_manifest() {
    let dir = folder(&[("readme.md", b"x"), ("server.py", b"print()")]);
    let e = read_path(dir.path()).expect_err("no manifest");
    assert_eq!((e.code, e.path.as_str()), (Code::NoManifest, "manifest.json"));
}

#[cfg(unix)]
#[test]
fn s19_folder_with_symlinked_manifest_is_read_failed() {
    let outside = folder(&[("manifest.json", MANIFEST)]);
    let dir = folder(&[]);
    std::os::unix::fs::symlink(outside.path().join("manifest.json"), dir.path().join("manifest.json"))
        .expect("symlink");
    let e = read_path(dir.path()).expect_err("symlink");
    assert_eq!((e.code, e.path.as_str()), (Code::ReadFailed, "manifest.json"));
}

/// §19: a program swapping `manifest.json` between the real file and a
/// link to a file outside, as fast as it can, while the folder is read.
/// Checking the path and then opening it would sometimes follow the link
/// swapped in between and read the outside file; opening once without
/// following links never does. Each read is either the real file or a
/// refusal (read_failed at manifest.json); both must have been seen, so
/// the swap really raced the reads.
#[cfg(unix)]
#[test]
fn s19_a_link_swapped_in_while_the_folder_is_read_is_never_followed() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let outside = folder(&[("secret.json", b"OUTSIDE")]);
    let dir = folder(&[("manifest.json", b"inside")]);
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let swapper = {
        let (stop, dir, target) = (stop.clone(), dir.path().to_owned(), outside.path().join("secret.json"));
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                let _ = std::fs::remove_file(dir.join("link.tmp"));
                std::os::unix::fs::symlink(&target, dir.join("link.tmp")).expect("link");
                std::fs::rename(dir.join("link.tmp"), dir.join("manifest.json")).expect("swap in the link");
                std::fs::write(dir.join("real.tmp"), b"inside").expect("real");
                std::fs::rename(dir.join("real.tmp"), dir.join("manifest.json")).expect("swap back");
            }
        })
    };
    let (mut read, mut refused) = (0, 0);
    let started = std::time::Instant::now();
    while started.elapsed() < std::time::Duration::from_secs(3) && (read < 500 || refused < 500) {
        match read_path(dir.path()) {
            Ok(p) => {
                assert_eq!(p.manifest, b"inside", "the link was followed");
                read += 1;
            }
            Err(e) => {
                assert_eq!((e.code, e.path.as_str()), (Code::ReadFailed, "manifest.json"), "{e}");
                refused += 1;
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    swapper.join().expect("swapper");
    assert!(read > 0 && refused > 0, "the swap raced the reads: {read} read, {refused} refused");
}

/// A FIFO named manifest.json neither blocks the read (nothing ever writes
/// to it) nor passes: the opened handle is not a regular file.
#[cfg(unix)]
#[test]
fn s19_folder_with_a_fifo_manifest_is_read_failed_at_once() {
    let dir = folder(&[]);
    let made = std::process::Command::new("mkfifo").arg(dir.path().join("manifest.json")).status();
    assert!(made.expect("mkfifo runs").success());
    let e = read_path(dir.path()).expect_err("fifo");
    assert_eq!((e.code, e.path.as_str()), (Code::ReadFailed, "manifest.json"));
    assert!(e.message.contains("not a regular file"), "{e}");
}

#[cfg(unix)]
#[test]
fn s19_folder_with_symlinked_readme_is_read_failed() {
    let dir = folder(&[("manifest.json", MANIFEST)]);
    std::os::unix::fs::symlink("/etc/hostname", dir.path().join("readme.md")).expect("symlink");
    let e = read_path(dir.path()).expect_err("symlink");
    assert_eq!((e.code, e.path.as_str()), (Code::ReadFailed, "readme.md"));
}

#[test]
fn s19_folder_with_manifest_folder_is_read_failed() {
    let dir = folder(&[]);
    std::fs::create_dir(dir.path().join("manifest.json")).expect("mkdir");
    let e = read_path(dir.path()).expect_err("dir");
    assert_eq!((e.code, e.path.as_str()), (Code::ReadFailed, "manifest.json"));
}

#[test]
fn s21_folder_limits_match_the_zip_limits() {
    let big_manifest = vec![b' '; MANIFEST_BYTES as usize + 1];
    let e = read_path(folder(&[("manifest.json", &big_manifest)]).path()).expect_err("manifest");
    assert_eq!((e.code, e.path.as_str()), (Code::TooLarge, "manifest.json"));
    let big_icon = icon_of_length(ICON_BYTES + 1);
    let e = read_path(folder(&[("manifest.json", MANIFEST), ("icon.png", &big_icon)]).path()).expect_err("icon");
    assert_eq!((e.code, e.path.as_str()), (Code::BadZip, "icon.png"));
    let readme = vec![b'r'; PACKAGE_BYTES as usize - MANIFEST.len()];
    read_path(folder(&[("manifest.json", MANIFEST), ("readme.md", &readme)]).path()).expect("exactly 1 MB");
    let license = b"M";
    let dir = folder(&[("manifest.json", MANIFEST), ("readme.md", &readme), ("license", license)]);
    let e = read_path(dir.path()).expect_err("1 MB + 1");
    assert_eq!((e.code, e.path.as_str()), (Code::TooLarge, "package"));
}

#[test]
fn s19_folder_with_fake_icon_ignores_it() {
    let p = read_path(folder(&[("manifest.json", MANIFEST), ("icon.png", b"not a png")]).path()).expect("folder");
    assert_eq!(p.icon, None);
    assert!(p.icon_ignored.is_some());
}

// ---------------------------------------------------------------- to_zip

fn assert_same_files(a: &Package, b: &Package) {
    assert_eq!((&a.manifest, &a.icon, &a.extras), (&b.manifest, &b.icon, &b.extras));
}

#[test]
fn s4_to_zip_round_trips_a_folder() {
    let dir = folder(&[
        ("manifest.json", MANIFEST),
        ("icon.png", &real_png(16, 16)),
        ("readme.md", b"# fx"),
        ("license", b"MIT"),
        ("server.py", b"print()"),
    ]);
    let from_folder = read_path(dir.path()).expect("folder");
    let zip = to_zip(&from_folder).expect("pack");
    let back = ok_zip(&zip);
    assert_eq!(back.source, Source::Zip);
    assert_same_files(&from_folder, &back);
    assert_eq!(to_zip(&back).expect("again"), zip, "packing is reproducible");
    let mut archive = zip::ZipArchive::new(Cursor::new(&zip)).expect("zip");
    for i in 0..archive.len() {
        assert_eq!(archive.by_index(i).expect("entry").compression(), CompressionMethod::Deflated);
    }
}

#[test]
fn s4_to_zip_round_trips_a_bare_manifest() {
    let p = read_bytes("fx.json", MANIFEST).expect("json");
    assert_same_files(&p, &ok_zip(&to_zip(&p).expect("pack")));
}

#[test]
fn s4_to_zip_refuses_what_would_not_read_back() {
    let mut p = read_bytes("fx.json", MANIFEST).expect("json");
    p.extras.push(("server.py".to_string(), b"print()".to_vec()));
    let e = to_zip(&p).expect_err("unknown extra");
    assert_eq!((e.code, e.path.as_str()), (Code::BadZip, "server.py"));
    let mut p = read_bytes("fx.json", MANIFEST).expect("json");
    p.icon = Some(b"not a png".to_vec());
    assert_eq!(to_zip(&p).expect_err("fake icon").code, Code::BadZip);
    let mut p = read_bytes("fx.json", MANIFEST).expect("json");
    p.manifest = vec![b' '; MANIFEST_BYTES as usize + 1];
    assert_eq!(to_zip(&p).expect_err("big manifest").code, Code::TooLarge);
}

#[test]
fn s4_package_error_becomes_a_problem() {
    let e = refused("fx.txt", b"x");
    let problem: dcp_format::Problem = e.clone().into();
    assert_eq!((problem.code, problem.path, problem.message), (e.code, e.path, e.message));
}
