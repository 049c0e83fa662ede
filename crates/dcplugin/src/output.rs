//! How problems are printed, for people and for scripts.

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
        Ok(text) => println!("{text}"),
        Err(e) => eprintln!("dcplugin: cannot print JSON: {e}"),
    }
}

/// Prints problems as `code  path  message`, errors first.
pub fn print_problems(problems: &Problems) {
    for problem in &problems.errors {
        println!("{problem}");
    }
    for problem in &problems.warnings {
        println!("warning: {problem}");
    }
}
