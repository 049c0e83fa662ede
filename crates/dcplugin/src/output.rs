//! How problems are printed, for people and for scripts: each problem on
//! one line (its path and message may quote a manifest's text).

use crate::shown::{self, errln, outln};
use dcp_host::{Problem, Problems};
use serde::Serialize;

/// The `dcplugin validate --json` object: a public contract.
#[derive(Serialize)]
pub struct ValidateJson<'a> {
    pub ok: bool,
    pub slug: Option<&'a str>,
    pub errors: &'a [Problem],
    pub warnings: &'a [Problem],
}

/// Prints one JSON value on its own line.
pub fn print_json<T: Serialize>(value: &T) {
    match serde_json::to_string(value) {
        // JSON escapes every control character itself: printed as it is (issue 32).
        Ok(text) => shown::write_made_safe(shown::To::Stdout, &(text + "\n")),
        Err(e) => errln!("dcplugin: cannot print JSON: {e}"),
    }
}

/// Prints problems as `code  path  message`, errors first.
pub fn print_problems(problems: &Problems) {
    for problem in &problems.errors {
        outln!("{}", shown::line(&problem.to_string()));
    }
    for problem in &problems.warnings {
        outln!("warning: {}", shown::line(&problem.to_string()));
    }
}
