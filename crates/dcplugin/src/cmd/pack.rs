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
    errors: &'a [Problem],
    warnings: &'a [Problem],
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
    if json {
        print_json(&PackJson {
            ok: written.is_some(),
            slug: slug.as_deref(),
            output: written.as_deref(),
            files,
            errors: &problems.errors,
            warnings: &problems.warnings,
        });
    } else {
        print_problems(&problems);
        if let Some(note) = package.as_ref().and_then(|p| p.icon_ignored.as_deref()) {
            println!("note: icon.png is left out: {note}");
        }
        match &written {
            Some(path) => println!("wrote {} ({})", path.display(), files.join(", ")),
            None => println!("refused: nothing written ({} problem(s))", problems.errors.len()),
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
