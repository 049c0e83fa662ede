//! `dcplugin pack FOLDER [-o OUT.zip] [--json]`: builds a .zip from a plugin
//! folder with only the files §4 allows, and refuses to write an invalid one.

use crate::output::{print_json, print_problems};
use dcp_host::format::package::{self, Package, Source};
use dcp_host::format::{Options, Problem, Problems};
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
fn left_out(folder: &Path, pkg: Option<&Package>) -> Vec<LeftOut> {
    let Ok(entries) = std::fs::read_dir(folder) else { return Vec::new() };
    let mut names: Vec<(String, bool)> = entries
        .flatten()
        .map(|e| (e.file_name().to_string_lossy().into_owned(), e.file_type().is_ok_and(|t| t.is_dir())))
        .collect();
    names.sort();
    let mut out = Vec::new();
    for (name, is_dir) in names {
        let allowed = name == package::MANIFEST_FILE
            || name == package::ICON_FILE
            || package::EXTRA_FILES.contains(&name.as_str());
        let why = if is_dir {
            "§4: a package holds no folders".to_owned()
        } else if name == package::ICON_FILE {
            match pkg.and_then(|p| p.icon_ignored.as_deref()) {
                Some(note) => format!("not used: {note}"),
                None => continue,
            }
        } else if allowed {
            continue;
        } else {
            let lower = name.to_lowercase();
            let exact = [package::MANIFEST_FILE, package::ICON_FILE].into_iter().chain(package::EXTRA_FILES);
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
    let (problems, slug, written, package) = match package::read_path(folder) {
        Ok(pkg) => build(&pkg, output).map(|(problems, slug, written)| (problems, slug, written, Some(pkg)))?,
        Err(e) => {
            let mut problems = Problems::default();
            problems.push(e.code, e.path, e.message);
            (problems, None, None, None)
        }
    };
    let files = package.as_ref().map(file_names).unwrap_or_default();
    let left = left_out(folder, package.as_ref());
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

/// Validates, writes the zip; the path is `None` when the plugin is refused.
fn build(pkg: &Package, output: Option<&Path>) -> anyhow::Result<(Problems, Option<String>, Option<PathBuf>)> {
    debug_assert_eq!(pkg.source, Source::Folder);
    let report = dcp_host::format::check_package(pkg, &Options::default());
    let Some(plugin) = &report.plugin else {
        return Ok((report.problems, report.slug, None));
    };
    let bytes = match package::to_zip(pkg) {
        Ok(bytes) => bytes,
        Err(e) => {
            let mut problems = report.problems;
            problems.push(e.code, e.path, e.message);
            return Ok((problems, report.slug, None));
        }
    };
    let target =
        output.map_or_else(|| PathBuf::from(format!("{}-{}.zip", plugin.slug, plugin.version)), Path::to_path_buf);
    write_atomically(&target, &bytes)?;
    Ok((report.problems, report.slug, Some(target)))
}

fn file_names(pkg: &Package) -> Vec<&str> {
    let mut names = vec![package::MANIFEST_FILE];
    if pkg.icon.is_some() {
        names.push(package::ICON_FILE);
    }
    names.extend(pkg.extras.iter().map(|(name, _)| name.as_str()));
    names
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
