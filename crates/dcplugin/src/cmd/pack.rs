//! `dcplugin pack FOLDER [-o OUT.zip] [--json]`: builds a .zip from a plugin
//! folder with only the files §4 allows, and refuses to write an invalid one.

use crate::output::{print_json, print_problems};
use crate::shown::outln;
use dcp_host::author::{self, EXTRA_FILES, ICON_FILE, MANIFEST_FILE};
use dcp_host::Problem;
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The `dcplugin pack --json` object.
#[derive(Serialize)]
struct PackJson<'a> {
    ok: bool,
    slug: Option<&'a str>,
    output: Option<&'a Path>,
    files: Vec<&'a str>,
    /// What the folder holds that the package does not, and why.
    left_out: &'a [LeftOut],
    errors: &'a [Problem],
    warnings: &'a [Problem],
}

/// A file or folder of the plugin folder that is not in the package.
#[derive(Serialize)]
struct LeftOut {
    name: String,
    why: String,
}

/// What §4 lets a package hold, as the reader names it.
const ALLOWED: &str = "manifest.json, icon.png, readme.md, license, license.md or license.txt";

/// Every entry of the folder that the package leaves out, with why.
fn left_out(folder: &Path, icon_ignored: Option<&str>) -> Vec<LeftOut> {
    let Ok(entries) = std::fs::read_dir(folder) else { return Vec::new() };
    let mut names: Vec<(String, bool)> = entries
        .flatten()
        .map(|e| (e.file_name().to_string_lossy().into_owned(), e.file_type().is_ok_and(|t| t.is_dir())))
        .collect();
    names.sort();
    let mut out = Vec::new();
    for (name, is_dir) in names {
        let allowed = name == MANIFEST_FILE || name == ICON_FILE || EXTRA_FILES.contains(&name.as_str());
        let why = if is_dir {
            "§4: a package holds no folders".to_owned()
        } else if name == ICON_FILE {
            match icon_ignored {
                Some(note) => format!("not used: {note}"),
                None => continue,
            }
        } else if allowed {
            continue;
        } else {
            let lower = name.to_lowercase();
            let exact = [MANIFEST_FILE, ICON_FILE].into_iter().chain(EXTRA_FILES);
            match exact.into_iter().find(|allowed| *allowed == lower) {
                Some(allowed) => format!("names are exact: rename it {allowed} to include it"),
                None => format!("§4: a package holds only {ALLOWED}; the app never runs other files"),
            }
        };
        out.push(LeftOut { name: if is_dir { format!("{name}/") } else { name }, why });
    }
    out
}

pub fn run(folder: &Path, output: Option<&Path>, json: bool) -> anyhow::Result<ExitCode> {
    if !folder.is_dir() {
        anyhow::bail!("{} is not a folder: pack builds a .zip from a plugin folder", folder.display());
    }
    let packed = author::pack(folder);
    let written = match (&packed.zip, &packed.file_name) {
        (Some(bytes), Some(name)) => {
            let target = output.map_or_else(|| PathBuf::from(name), Path::to_path_buf);
            write_atomically(&target, bytes)?;
            Some(target)
        }
        _ => None,
    };
    let check = packed.check;
    let (problems, slug) = (check.problems, check.slug);
    let files: Vec<&str> = check.files.iter().map(String::as_str).collect();
    let left = left_out(folder, check.icon_ignored.as_deref());
    if json {
        print_json(&PackJson {
            ok: written.is_some(),
            slug: slug.as_deref(),
            output: written.as_deref(),
            files,
            left_out: &left,
            errors: &problems.errors,
            warnings: &problems.warnings,
        });
    } else {
        print_problems(&problems);
        for l in &left {
            outln!("left out: {}  ({})", l.name, l.why);
        }
        match &written {
            Some(path) => {
                outln!("wrote {} ({})", path.display(), files.join(", "));
                let p = super::shell_word(&path.to_string_lossy());
                outln!("next: share it, or import it to try it as a player would: {} import {p}", crate::me());
            }
            None => outln!(
                "refused: nothing written ({} problem(s)); dcplugin validate FOLDER lists them",
                problems.errors.len()
            ),
        }
    }
    Ok(if written.is_some() { ExitCode::SUCCESS } else { ExitCode::from(super::REFUSED) })
}

/// Writes beside the target under a fresh random name, then renames, so an
/// interrupted pack never leaves a half-written package under the final
/// name and two packs at once never write the same file.
fn write_atomically(target: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    Partial::write(target, bytes)?.finish()
}

/// A package written in full under its temp name, not yet renamed.
struct Partial<'a> {
    temp: tempfile::NamedTempFile,
    target: &'a Path,
}

impl<'a> Partial<'a> {
    fn write(target: &'a Path, bytes: &[u8]) -> anyhow::Result<Partial<'a>> {
        let dir = target.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let prefix = format!(".{name}.");
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix).suffix(".partial");
        // A package is a file to share: the mode a plain write gives (0666
        // less the umask), not a temp file's owner-only 0600.
        #[cfg(unix)]
        builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
        let mut temp = builder.tempfile_in(dir).map_err(|e| cannot_write(target, &e))?;
        temp.write_all(bytes).map_err(|e| cannot_write(target, &e))?;
        Ok(Partial { temp, target })
    }

    /// Renames it to the target, replacing whatever is there.
    fn finish(self) -> anyhow::Result<()> {
        self.temp.persist(self.target).map_err(|e| cannot_write(self.target, &e.error))?;
        Ok(())
    }
}

fn cannot_write(target: &Path, e: &std::io::Error) -> anyhow::Error {
    anyhow::anyhow!("cannot write {}: {e}", target.display())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_packs_to_one_target_at_once_both_succeed() {
        let dir = tempfile::tempdir().expect("temp dir");
        let target = dir.path().join("plugin.zip");
        // Both written before either is renamed: the interleaving under
        // which one fixed temp name lost a pack (the second write truncated
        // the first, the second rename found no file).
        let first = Partial::write(&target, b"first").expect("first written");
        let second = Partial::write(&target, b"second").expect("second written");
        first.finish().expect("first renamed");
        assert_eq!(std::fs::read(&target).expect("read"), b"first");
        second.finish().expect("second renamed");
        assert_eq!(std::fs::read(&target).expect("read"), b"second");
        let names: Vec<_> = std::fs::read_dir(dir.path()).expect("dir").flatten().map(|e| e.file_name()).collect();
        assert_eq!(names, ["plugin.zip"], "no temp file left");
    }

    #[test]
    fn a_pack_that_is_not_finished_leaves_nothing() {
        let dir = tempfile::tempdir().expect("temp dir");
        let target = dir.path().join("plugin.zip");
        drop(Partial::write(&target, b"half").expect("written"));
        assert_eq!(std::fs::read_dir(dir.path()).expect("dir").count(), 0);
    }
}
