//! `dcplugin validate PATH [--json] [--app-version X.Y.Z]`.

use crate::output::{print_json, print_problems, ValidateJson};
use dcp_host::format::version::Version;
use dcp_host::format::{package, Options, Problems};
use std::path::Path;
use std::process::ExitCode;

pub fn run(path: &Path, json: bool, app_version: Option<Version>) -> anyhow::Result<ExitCode> {
    let options = Options { app_version: app_version.unwrap_or(Version::APP), ..Options::default() };
    let (problems, slug, icon_note, summary) = match package::read_path(path) {
        Ok(pkg) => {
            let report = dcp_host::format::check_package(&pkg, &options);
            let summary = report.plugin.as_ref().map(|p| format!("{} ({} {})", p.slug, p.display_name, p.version));
            (report.problems, report.slug, pkg.icon_ignored, summary)
        }
        Err(e) => {
            let mut problems = Problems::default();
            problems.push(e.code, e.path, e.message);
            (problems, None, None, None)
        }
    };
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
            println!("note: icon.png is not used: {note}");
        }
        match summary {
            Some(summary) if problems.warnings.is_empty() => println!("valid: {summary}"),
            Some(summary) => println!("valid with {} warning(s): {summary}", problems.warnings.len()),
            None => println!(
                "refused: {} problem(s); docs/errors.md gives the usual fix of each code",
                problems.errors.len()
            ),
        }
        if problems.is_ok() {
            println!("{}", super::hints::after_validate(path));
        }
    }
    Ok(if problems.is_ok() { ExitCode::SUCCESS } else { ExitCode::from(super::REFUSED) })
}
