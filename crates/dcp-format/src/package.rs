//! Reading a plugin package (spec §4): a .json file, a .zip, or a folder,
//! and writing one back as a .zip (`dcplugin pack`).
//!
//! This module owns every byte of a package before the validator sees it:
//! the size limits of §21, the zip rules of §4 and the icon check. It hands
//! the validator a [`Package`] whose parts are already bounded, so nothing
//! downstream needs to think about hostile archives.
//!
//! Why the zip reading is this careful:
//! - Declared sizes are only claims. Every file is read through
//!   `take(limit + 1)` and the real bytes are counted, so a zip bomb is
//!   refused after at most 1 MB + 1 byte of output, in bounded memory.
//! - The `zip` crate keys its entries by name, so a name written twice
//!   silently disappears, and an Info-ZIP "Unicode path" extra field can
//!   replace the name it reports. We therefore walk the central directory
//!   ourselves to get every entry name exactly as written, judge those raw
//!   bytes, and refuse the zip when the crate, the central directory and the
//!   local headers disagree about any name. A package never has two
//!   readings.
//! - Only regular files at the root with the six allowed names pass: no
//!   path separator, no `:`, NUL or `..`, no folder, symlink or encrypted
//!   entry, no name that only differs from an allowed one by case.
//!
//! Decisions where the spec is silent:
//! - An icon over 256 KB is `bad_zip` (§22) wherever it comes from, a
//!   folder included; a file that is not a real PNG is not an error: `icon`
//!   is `None` and `icon_ignored` says why (the card shows a letter tile).
//!   An icon whose header declares a size of zero or over
//!   [`ICON_PIXELS`] a side counts as not a real PNG: a webview would
//!   decode the size it declares, whatever the file's own size.
//! - In a folder, a package file (manifest.json, icon.png, readme.md, a
//!   license) that is a symbolic link is refused with `read_failed`: the
//!   folder is read in place and watched for changes, and a link would let
//!   the package read (and later keep) a file from anywhere on the disk and
//!   escape the reload watcher. Other files of the folder are never opened.
//!   Each file is opened once without following a link (`O_NOFOLLOW`) and
//!   the opened handle is judged, never the path: a link swapped in between
//!   a check and the open would otherwise be followed.
//! - The total of 1 MB counts the manifest, the icon and the extras, in a
//!   folder as in a zip.
//! - A zip needing zip64 or with bytes after its end record is unreadable
//!   (`bad_zip`): a 1 MB package never needs them.
//! - [`to_zip`] reads its own output back and refuses to return a zip that
//!   would not read back as the same package.

use crate::limits::{ICON_BYTES, ICON_PIXELS, MANIFEST_BYTES, PACKAGE_BYTES, ZIP_FILES};
use crate::problem::{Code, Problem};
use std::collections::HashSet;
use std::fs;
use std::io::{self, Cursor, Read, Write};
use std::path::Path;

/// Where a package came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// A single manifest file ending in .json.
    Json,
    /// A .zip package.
    Zip,
    /// A folder holding manifest.json (Load a folder, `dcplugin pack`).
    Folder,
}

/// The files of a package, read within the limits of §4.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Package {
    /// Where it came from.
    pub source: Source,
    /// The manifest's bytes, at most 64 KB.
    pub manifest: Vec<u8>,
    /// icon.png, only when it is a real PNG.
    pub icon: Option<Vec<u8>>,
    /// Why an icon.png present in the package is not used (not a real PNG).
    pub icon_ignored: Option<String>,
    /// readme.md and license files, kept beside the manifest, by name.
    pub extras: Vec<(String, Vec<u8>)>,
}

/// Why a package cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct PackageError {
    /// The §22 code.
    pub code: Code,
    /// The entry concerned, or `package`.
    pub path: String,
    /// Why.
    pub message: String,
}

impl From<PackageError> for Problem {
    fn from(e: PackageError) -> Self {
        Problem { code: e.code, path: e.path, message: e.message }
    }
}

/// The manifest's name inside a zip or a folder.
pub const MANIFEST_FILE: &str = "manifest.json";
/// The icon's name inside a zip or a folder.
pub const ICON_FILE: &str = "icon.png";
/// The other files a package may hold, in the order a folder is read.
pub const EXTRA_FILES: [&str; 4] = ["readme.md", "license", "license.md", "license.txt"];
/// The `path` of a problem with the package as a whole.
const PACKAGE: &str = "package";
const REZIP: &str = "create the zip again with a standard zip tool (deflate or no compression).";
const ALLOWED: &str = "manifest.json, icon.png, readme.md, license, license.md or license.txt";

fn fail(code: Code, path: &str, message: String) -> PackageError {
    PackageError { code, path: path.to_string(), message }
}

/// The two kinds of package file, chosen by extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Json,
    Zip,
}

fn kind_of(file_name: &str) -> Result<Kind, PackageError> {
    let lower = file_name.to_ascii_lowercase();
    if lower.ends_with(".json") {
        Ok(Kind::Json)
    } else if lower.ends_with(".zip") {
        Ok(Kind::Zip)
    } else {
        Err(fail(
            Code::UnsupportedPackage,
            PACKAGE,
            format!("'{file_name}' is not a plugin package: import a .json manifest or a .zip."),
        ))
    }
}

/// Reads a .json, a .zip or a folder.
pub fn read_path(path: &Path) -> Result<Package, PackageError> {
    let meta = fs::metadata(path).map_err(|e| unreadable(path, &e))?;
    if meta.is_dir() {
        return read_folder(path);
    }
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let kind = kind_of(&name)?;
    // Judged on the opened handle: the path may have changed since.
    let file = open_for_reading(path, true).map_err(|e| unreadable(path, &e))?;
    let meta = file.metadata().map_err(|e| unreadable(path, &e))?;
    if !meta.is_file() {
        return Err(fail(Code::ReadFailed, PACKAGE, format!("{} is not a regular file.", path.display())));
    }
    if meta.len() > PACKAGE_BYTES {
        return Err(package_too_large());
    }
    let bytes = read_at_most(file, PACKAGE_BYTES).map_err(|e| unreadable(path, &e))?;
    from_bytes(kind, &bytes)
}

/// Reads a package from bytes; `file_name` decides .json or .zip.
pub fn read_bytes(file_name: &str, bytes: &[u8]) -> Result<Package, PackageError> {
    from_bytes(kind_of(file_name)?, bytes)
}

fn from_bytes(kind: Kind, bytes: &[u8]) -> Result<Package, PackageError> {
    if bytes.is_empty() {
        return Err(fail(Code::ReadFailed, PACKAGE, "The file is empty.".to_string()));
    }
    if bytes.len() as u64 > PACKAGE_BYTES {
        return Err(package_too_large());
    }
    match kind {
        Kind::Json => read_json(bytes),
        Kind::Zip => read_zip(bytes),
    }
}

fn read_json(bytes: &[u8]) -> Result<Package, PackageError> {
    if bytes.len() as u64 > MANIFEST_BYTES {
        return Err(manifest_too_large(PACKAGE));
    }
    Ok(Package { source: Source::Json, manifest: bytes.to_vec(), icon: None, icon_ignored: None, extras: Vec::new() })
}

fn unreadable(path: &Path, e: &io::Error) -> PackageError {
    fail(Code::ReadFailed, PACKAGE, format!("{} cannot be read: {e}.", path.display()))
}

fn package_too_large() -> PackageError {
    fail(
        Code::TooLarge,
        PACKAGE,
        format!(
            "The package is over {} MB (its files together, uncompressed): make it smaller.",
            PACKAGE_BYTES / (1024 * 1024)
        ),
    )
}

fn manifest_too_large(path: &str) -> PackageError {
    fail(Code::TooLarge, path, format!("The manifest is over {} KB: make it smaller.", MANIFEST_BYTES / 1024))
}

fn icon_too_large() -> PackageError {
    fail(
        Code::BadZip,
        ICON_FILE,
        format!("icon.png is over {} KB: save it smaller (it is shown at 32 to 40 px).", ICON_BYTES / 1024),
    )
}

/// The size check shared by zips and folders. `used` is what the package's
/// other files already take; returns the error for a file of `len` bytes.
fn size_problem(name: &str, len: u64, used: u64) -> Option<PackageError> {
    let own = if name == MANIFEST_FILE {
        MANIFEST_BYTES
    } else if name == ICON_FILE {
        ICON_BYTES
    } else {
        PACKAGE_BYTES
    };
    if len > own {
        return Some(match name {
            MANIFEST_FILE => manifest_too_large(MANIFEST_FILE),
            ICON_FILE => icon_too_large(),
            _ => package_too_large(),
        });
    }
    (len.saturating_add(used) > PACKAGE_BYTES).then(package_too_large)
}

/// How many bytes a file may still take: one past this proves it too big.
fn room(name: &str, used: u64) -> u64 {
    let own = match name {
        MANIFEST_FILE => MANIFEST_BYTES,
        ICON_FILE => ICON_BYTES,
        _ => PACKAGE_BYTES,
    };
    own.min(PACKAGE_BYTES.saturating_sub(used))
}

/// Reads at most `limit + 1` bytes: never trusts a declared length.
fn read_at_most(reader: impl Read, limit: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    reader.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    Ok(bytes)
}

// ---------------------------------------------------------------- icon

/// Why bytes named icon.png are not a usable PNG, if they are not.
fn icon_problem(bytes: &[u8]) -> Option<String> {
    match png::Decoder::new(Cursor::new(bytes)).read_info() {
        Err(e) => Some(format!("icon.png is not a real PNG ({e}); the card shows a letter tile instead.")),
        Ok(reader) => {
            let (width, height) = reader.info().size();
            let sane = 1..=ICON_PIXELS;
            (!sane.contains(&width) || !sane.contains(&height)).then(|| {
                format!(
                    "icon.png declares {width} × {height} px; an icon is 1 to {ICON_PIXELS} px a side, so the card \
                     shows a letter tile instead."
                )
            })
        }
    }
}

fn set_icon(package: &mut Package, bytes: Vec<u8>) {
    match icon_problem(&bytes) {
        None => package.icon = Some(bytes),
        Some(reason) => package.icon_ignored = Some(reason),
    }
}

/// Puts one file of a zip or a folder where it belongs in the package.
fn place(package: &mut Package, name: &str, bytes: Vec<u8>) {
    match name {
        MANIFEST_FILE => package.manifest = bytes,
        ICON_FILE => set_icon(package, bytes),
        _ => package.extras.push((name.to_string(), bytes)),
    }
}

fn empty(source: Source) -> Package {
    Package { source, manifest: Vec::new(), icon: None, icon_ignored: None, extras: Vec::new() }
}

fn no_manifest(where_: &str) -> PackageError {
    fail(
        Code::NoManifest,
        MANIFEST_FILE,
        format!("There is no manifest.json {where_}: add it (the name is all lowercase)."),
    )
}

// ---------------------------------------------------------------- folder

fn read_folder(dir: &Path) -> Result<Package, PackageError> {
    let mut package = empty(Source::Folder);
    let mut used = 0;
    let manifest = read_member(dir, MANIFEST_FILE, &mut used)?.ok_or_else(|| no_manifest("in the folder"))?;
    place(&mut package, MANIFEST_FILE, manifest);
    for name in std::iter::once(ICON_FILE).chain(EXTRA_FILES) {
        if let Some(bytes) = read_member(dir, name, &mut used)? {
            place(&mut package, name, bytes);
        }
    }
    Ok(package)
}

/// One package file of a folder, `None` when absent.
///
/// The file is opened once, without following a symbolic link, and the
/// opened handle is judged (a regular file within the limits): checking the
/// path and then opening it would follow a link swapped in between.
fn read_member(dir: &Path, name: &str, used: &mut u64) -> Result<Option<Vec<u8>>, PackageError> {
    let cannot = |e: io::Error| fail(Code::ReadFailed, name, format!("{name} cannot be read: {e}."));
    let file = match open_for_reading(&dir.join(name), false) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        // ELOOP under O_NOFOLLOW; looking again only picks the message.
        Err(_) if fs::symlink_metadata(dir.join(name)).is_ok_and(|m| m.file_type().is_symlink()) => {
            return Err(symlinked(name))
        }
        Err(e) => return Err(cannot(e)),
        Ok(file) => file,
    };
    let meta = file.metadata().map_err(cannot)?;
    if meta.file_type().is_symlink() {
        return Err(symlinked(name));
    }
    if !meta.is_file() {
        return Err(fail(Code::ReadFailed, name, format!("{name} is not a regular file.")));
    }
    if let Some(e) = size_problem(name, meta.len(), *used) {
        return Err(e);
    }
    let bytes = read_at_most(file, room(name, *used)).map_err(cannot)?;
    if let Some(e) = size_problem(name, bytes.len() as u64, *used) {
        return Err(e);
    }
    *used += bytes.len() as u64;
    Ok(Some(bytes))
}

fn symlinked(name: &str) -> PackageError {
    fail(Code::ReadFailed, name, format!("{name} is a symbolic link: put the real file in the folder."))
}

/// Opens `path` for reading; a final symbolic link is followed only when
/// `follow` (a file the player picked, not a member of a loaded folder).
///
/// On Unix, `O_NOFOLLOW` makes opening a link fail, and `O_NONBLOCK` keeps
/// a FIFO put in the file's place from blocking the open (the handle is
/// then refused as not a regular file; reading a regular file ignores the
/// flag). On Windows, `FILE_FLAG_OPEN_REPARSE_POINT` opens the link itself,
/// which the handle's metadata then shows.
fn open_for_reading(path: &Path, follow: bool) -> io::Result<fs::File> {
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        let no_follow = if follow { 0 } else { libc::O_NOFOLLOW };
        std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, no_follow | libc::O_NONBLOCK);
    }
    #[cfg(windows)]
    if !follow {
        std::os::windows::fs::OpenOptionsExt::custom_flags(&mut options, FILE_FLAG_OPEN_REPARSE_POINT);
    }
    options.open(path)
}

/// `FILE_FLAG_OPEN_REPARSE_POINT` of the Windows API.
#[cfg(windows)]
const FILE_FLAG_OPEN_REPARSE_POINT: u32 = 0x0020_0000;

// ---------------------------------------------------------------- zip

fn bad_zip(path: &str, message: String) -> PackageError {
    fail(Code::BadZip, path, message)
}

fn unreadable_zip(detail: &str) -> PackageError {
    bad_zip(PACKAGE, format!("The zip cannot be read ({detail}): {REZIP}"))
}

/// A raw entry name as an author can read it in a message.
fn shown(raw: &[u8]) -> String {
    String::from_utf8_lossy(raw)
        .chars()
        .flat_map(|c| if c.is_control() { c.escape_default().collect::<Vec<_>>() } else { vec![c] })
        .collect()
}

fn read_zip(bytes: &[u8]) -> Result<Package, PackageError> {
    let names = central_names(bytes)?;
    let allowed = judge_names(&names)?;
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| unreadable_zip(&e.to_string()))?;
    if archive.len() != names.len() {
        return Err(unreadable_zip("its entry list is inconsistent"));
    }
    let mut package = empty(Source::Zip);
    let mut used = 0;
    for (index, name) in allowed.iter().enumerate() {
        check_entry(&mut archive, index, &names[index], bytes)?;
        let data = read_entry(&mut archive, index, name, used)?;
        used += data.len() as u64;
        place(&mut package, name, data);
    }
    Ok(package)
}

fn le16(bytes: &[u8], at: usize) -> Option<usize> {
    let b = bytes.get(at..at.checked_add(2)?)?;
    Some(usize::from(u16::from_le_bytes([b[0], b[1]])))
}

fn le32(bytes: &[u8], at: usize) -> Option<usize> {
    let b = bytes.get(at..at.checked_add(4)?)?;
    usize::try_from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])).ok()
}

const EOCD_SIGNATURE: &[u8] = b"PK\x05\x06";
const CENTRAL_SIGNATURE: &[u8] = b"PK\x01\x02";
const LOCAL_SIGNATURE: &[u8] = b"PK\x03\x04";
const EOCD_LEN: usize = 22;
const CENTRAL_LEN: usize = 46;
const LOCAL_LEN: usize = 30;

/// The end record: the one whose comment ends exactly at the end of the file.
fn find_eocd(bytes: &[u8]) -> Option<usize> {
    let last = bytes.len().checked_sub(EOCD_LEN)?;
    let first = last.saturating_sub(usize::from(u16::MAX));
    (first..=last).rev().find(|&at| {
        bytes.get(at..at + 4) == Some(EOCD_SIGNATURE)
            && le16(bytes, at + 20).is_some_and(|comment| at + EOCD_LEN + comment == bytes.len())
    })
}

/// Every entry name exactly as the central directory writes it, in order,
/// duplicates included.
fn central_names(bytes: &[u8]) -> Result<Vec<Vec<u8>>, PackageError> {
    let eocd = find_eocd(bytes).ok_or_else(|| unreadable_zip("no end of central directory"))?;
    let count = le16(bytes, eocd + 10).ok_or_else(|| unreadable_zip("truncated end record"))?;
    if count > ZIP_FILES {
        return Err(too_many_files(count));
    }
    let mut at = le32(bytes, eocd + 16).ok_or_else(|| unreadable_zip("truncated end record"))?;
    let mut names = Vec::with_capacity(count);
    for _ in 0..count {
        let (name, next) = central_entry(bytes, at).ok_or_else(|| unreadable_zip("damaged central directory"))?;
        names.push(name.to_vec());
        at = next;
    }
    Ok(names)
}

/// One central directory record at `at`: its name and where the next starts.
fn central_entry(bytes: &[u8], at: usize) -> Option<(&[u8], usize)> {
    if bytes.get(at..at.checked_add(4)?)? != CENTRAL_SIGNATURE {
        return None;
    }
    let name_len = le16(bytes, at + 28)?;
    let rest = le16(bytes, at + 30)? + le16(bytes, at + 32)?;
    let start = at + CENTRAL_LEN;
    let name = bytes.get(start..start + name_len)?;
    Some((name, start + name_len + rest))
}

fn too_many_files(count: usize) -> PackageError {
    bad_zip(PACKAGE, format!("The zip holds {count} entries; at most {ZIP_FILES} are allowed. Keep only {ALLOWED}."))
}

/// Judges every raw name; returns the allowed name each one is.
fn judge_names(names: &[Vec<u8>]) -> Result<Vec<&'static str>, PackageError> {
    if names.len() > ZIP_FILES {
        return Err(too_many_files(names.len()));
    }
    let mut seen = HashSet::new();
    let mut allowed = Vec::with_capacity(names.len());
    for raw in names {
        let name = judge_name(raw)?;
        if !seen.insert(name) {
            return Err(bad_zip(name, format!("{name} appears twice in the zip: keep one.")));
        }
        allowed.push(name);
    }
    if !seen.contains(MANIFEST_FILE) {
        return Err(no_manifest("at the root of the zip"));
    }
    Ok(allowed)
}

/// The allowed name `raw` is exactly, or why it is refused.
fn judge_name(raw: &[u8]) -> Result<&'static str, PackageError> {
    let path = shown(raw);
    if let Some(problem) = path_problem(raw) {
        return Err(bad_zip(&path, format!("'{path}' {problem}: a package holds only files at the root of the zip.")));
    }
    let known = std::iter::once(MANIFEST_FILE).chain(std::iter::once(ICON_FILE)).chain(EXTRA_FILES);
    for name in known {
        if raw == name.as_bytes() {
            return Ok(name);
        }
        if raw.eq_ignore_ascii_case(name.as_bytes()) {
            return Err(bad_zip(&path, format!("'{path}' must be named exactly {name} (all lowercase).")));
        }
    }
    Err(bad_zip(&path, format!("'{path}' is not allowed in a package: keep only {ALLOWED}.")))
}

fn path_problem(raw: &[u8]) -> Option<&'static str> {
    if raw.is_empty() {
        Some("has no name")
    } else if raw.ends_with(b"/") || raw.ends_with(b"\\") {
        Some("is a folder")
    } else if raw.iter().any(|b| matches!(b, b'/' | b'\\' | b':')) {
        Some("is a path")
    } else if raw.contains(&0) {
        Some("contains a NUL character")
    } else if raw.windows(2).any(|w| w == b"..") {
        Some("contains '..'")
    } else {
        None
    }
}

/// Refuses what is not a plain stored or deflated file, and any name the
/// crate or the local header reads differently from the central directory.
fn check_entry(
    archive: &mut zip::ZipArchive<Cursor<&[u8]>>,
    index: usize,
    raw: &[u8],
    bytes: &[u8],
) -> Result<(), PackageError> {
    let path = shown(raw);
    let entry = archive.by_index_raw(index).map_err(|e| unreadable_zip(&e.to_string()))?;
    if entry.name_raw() != raw || local_name(bytes, entry.header_start()) != Some(raw) {
        return Err(bad_zip(&path, format!("'{path}' is named differently in different parts of the zip: {REZIP}")));
    }
    if let Some(problem) = entry_problem(&entry) {
        return Err(bad_zip(&path, format!("'{path}' {problem}.")));
    }
    Ok(())
}

fn entry_problem<R: Read>(entry: &zip::read::ZipFile<'_, R>) -> Option<&'static str> {
    const TYPE_BITS: u32 = 0o170_000;
    const REGULAR: u32 = 0o100_000;
    const SYMLINK: u32 = 0o120_000;
    let kind = entry.unix_mode().map_or(0, |mode| mode & TYPE_BITS);
    if entry.is_dir() {
        Some("is a folder: a package holds only files at the root of the zip")
    } else if kind == SYMLINK {
        Some("is a symbolic link: put the real file in the zip")
    } else if kind != 0 && kind != REGULAR {
        Some("is not a regular file: put the real file in the zip")
    } else if entry.encrypted() {
        Some("is encrypted: packages cannot have a password")
    } else {
        None
    }
}

fn local_name(bytes: &[u8], header_start: u64) -> Option<&[u8]> {
    let at = usize::try_from(header_start).ok()?;
    if bytes.get(at..at.checked_add(4)?)? != LOCAL_SIGNATURE {
        return None;
    }
    let len = le16(bytes, at + 26)?;
    bytes.get(at + LOCAL_LEN..at + LOCAL_LEN + len)
}

/// Inflates one entry, counting the real bytes against its limits.
fn read_entry(
    archive: &mut zip::ZipArchive<Cursor<&[u8]>>,
    index: usize,
    name: &str,
    used: u64,
) -> Result<Vec<u8>, PackageError> {
    let cannot = |e: &dyn std::fmt::Display| bad_zip(name, format!("{name} cannot be read ({e}): {REZIP}"));
    let entry = archive.by_index(index).map_err(|e| cannot(&e))?;
    let data = read_at_most(entry, room(name, used)).map_err(|e| cannot(&e))?;
    match size_problem(name, data.len() as u64, used) {
        Some(e) => Err(e),
        None => Ok(data),
    }
}

// ---------------------------------------------------------------- writing

/// Writes a package as a deflate zip of root entries (`dcplugin pack`):
/// manifest.json, then icon.png when present, then the extras.
/// The result always reads back as the same package with [`read_bytes`].
pub fn to_zip(package: &Package) -> Result<Vec<u8>, PackageError> {
    let bytes = write_zip(package).map_err(|e| bad_zip(PACKAGE, format!("The zip cannot be written: {e}.")))?;
    let back = read_bytes("package.zip", &bytes)?;
    let same = back.manifest == package.manifest && back.icon == package.icon && back.extras == package.extras;
    if !same {
        return Err(bad_zip(
            PACKAGE,
            "The package does not read back the same once zipped: check its icon and file names.".to_string(),
        ));
    }
    Ok(bytes)
}

fn write_zip(package: &Package) -> zip::result::ZipResult<Vec<u8>> {
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .last_modified_time(zip::DateTime::default())
        .unix_permissions(0o644);
    let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let icon = package.icon.iter().map(|icon| (ICON_FILE, icon));
    let extras = package.extras.iter().map(|(name, bytes)| (name.as_str(), bytes));
    for (name, bytes) in std::iter::once((MANIFEST_FILE, &package.manifest)).chain(icon).chain(extras) {
        writer.start_file(name, options)?;
        writer.write_all(bytes)?;
    }
    Ok(writer.finish()?.into_inner())
}
