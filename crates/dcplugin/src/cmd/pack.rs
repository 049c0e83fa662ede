//! `dcplugin pack FOLDER [-o OUT.zip] [--json]`: builds a .zip from a plugin
//! folder with only the files §4 allows, and refuses to write an invalid one.

use crate::output::{print_json, print_problems};
use dcp_host::author::{self, EXTRA_FILES, ICON_FILE, MANIFEST_FILE};
use dcp_host::Problem;
use serde::Serialize;
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
            println!("left out: {}  ({})", l.name, l.why);
        }
        match &written {
            Some(path) => {
                println!("wrote {} ({})", path.display(), files.join(", "));
                let p = super::shell_word(&path.to_string_lossy());
                println!("next: share it, or import it to try it as a player would: {} import {p}", crate::me());
            }
            None => println!(
                "refused: nothing written ({} problem(s)); dcplugin validate FOLDER lists them",
                problems.errors.len()
            ),
        }
    }
    Ok(if written.is_some() { ExitCode::SUCCESS } else { ExitCode::from(super::REFUSED) })
}

/// Writes beside the target, then renames, so an interrupted pack never
/// leaves a half-written package under the final name.
fn write_atomically(target: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let dir = target.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let temp = dir.join(format!(".{name}.partial"));
    std::fs::write(&temp, bytes).map_err(|e| anyhow::anyhow!("cannot write {}: {e}", temp.display()))?;
    std::fs::rename(&temp, target).map_err(|e| anyhow::anyhow!("cannot write {}: {e}", target.display()))
}
