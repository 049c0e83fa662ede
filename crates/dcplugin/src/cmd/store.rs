//! Opening the profile's store, and printing store results and errors the
//! same way in every store command.

use crate::output::print_json;
use dcp_store::{Profile, Store, StoreError};
use dcp_vault::OsKeyStore;
use serde::Serialize;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

/// Opens the store of `--profile`, `DCPLUGIN_PROFILE` or the app's folder.
pub fn open(profile: Option<PathBuf>) -> anyhow::Result<Store> {
    let profile = Profile::locate(profile)?;
    Ok(Store::open(profile, Arc::new(OsKeyStore::new()))?)
}

/// The JSON shape of a failure: `{"ok": false, "code", "message", "errors"}`.
#[derive(Serialize)]
struct ErrorJson<'a> {
    ok: bool,
    code: Option<&'a str>,
    message: String,
    errors: &'a [dcp_format::Problem],
}

/// Prints a store failure (the spec's code first) and returns exit code 1.
pub fn fail(error: &StoreError, json: bool) -> ExitCode {
    let errors = match error {
        StoreError::Refused(problems) => problems.errors.as_slice(),
        _ => &[],
    };
    if json {
        print_json(&ErrorJson { ok: false, code: error.code(), message: error.to_string(), errors });
    } else if errors.is_empty() {
        eprintln!("{error}");
    } else {
        eprintln!("refused:");
        for problem in errors {
            eprintln!("{problem}");
        }
    }
    ExitCode::from(super::REFUSED)
}

/// Prints a result as JSON, or as the given human text.
pub fn done<T: Serialize>(value: &T, json: bool, human: impl FnOnce() -> String) -> ExitCode {
    if json {
        print_json(value);
    } else {
        println!("{}", human());
    }
    ExitCode::SUCCESS
}

/// `{"ok": true}` for commands with nothing else to say.
#[derive(Serialize)]
pub struct Ok {
    pub ok: bool,
}

/// Runs a store action and prints its outcome.
pub fn run<T: Serialize>(
    json: bool,
    action: impl FnOnce() -> Result<T, StoreError>,
    human: impl FnOnce(&T) -> String,
) -> ExitCode {
    match action() {
        Ok(value) => done(&value, json, || human(&value)),
        Err(e) => fail(&e, json),
    }
}
