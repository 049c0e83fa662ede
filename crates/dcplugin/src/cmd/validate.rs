//! `dcplugin validate PATH [--json] [--app-version X.Y.Z]`.

use crate::output::{print_json, print_problems, ValidateJson};
use crate::shown::outln;
use dcp_host::Version;
use std::path::Path;
use std::process::ExitCode;

pub fn run(path: &Path, json: bool, app_version: Option<Version>) -> anyhow::Result<ExitCode> {
    let check = dcp_host::author::validate_path(path, app_version);
    let summary = check.plugin.as_ref().map(|p| format!("{} ({} {})", p.slug, p.name, p.version));
    let (problems, slug, icon_note) = (check.problems, check.slug, check.icon_ignored);
    if json {
        print_json(&ValidateJson {
            ok: problems.is_ok(),
            slug: slug.as_deref(),
            errors: &problems.errors,
            warnings: &problems.warnings,
        });
    } else {
        print_problems(&problems);
        if let Some(note) = icon_note {
            outln!("note: icon.png is not used: {note}");
        }
        match summary {
            Some(summary) if problems.warnings.is_empty() => outln!("valid: {summary}"),
            Some(summary) => outln!("valid with {} warning(s): {summary}", problems.warnings.len()),
            None => {
                outln!("refused: {} problem(s); docs/errors.md gives the usual fix of each code", problems.errors.len())
            }
        }
        if problems.is_ok() {
            outln!("{}", super::hints::after_validate(path));
        }
    }
    Ok(if problems.is_ok() { ExitCode::SUCCESS } else { ExitCode::from(super::REFUSED) })
}
