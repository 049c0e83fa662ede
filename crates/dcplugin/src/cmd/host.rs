//! Opening the host on the profile, and printing its results and errors
//! the same way in every command.

use crate::output::print_json;
use crate::shown::{errln, outln};
use dcp_host::{ApiError, Host, HostOptions};
use serde::Serialize;
use std::future::Future;
use std::path::PathBuf;
use std::process::ExitCode;

/// Opens the host on `--profile`, `DCPLUGIN_PROFILE` or the app's folder.
pub fn open(profile: Option<PathBuf>, door_port: Option<u16>) -> anyhow::Result<Host> {
    Ok(Host::open(HostOptions { profile, door_port, ..HostOptions::default() })?)
}

/// The JSON shape of a failure: `{"ok": false, "code", "message", "errors"}`,
/// `hint`, the command or flag that fixes it, when there is one, and
/// `fields`, each setting's own problem, for a settings failure.
#[derive(Serialize)]
struct ErrorJson<'a> {
    ok: bool,
    code: Option<dcp_host::SpecCode>,
    message: &'a str,
    errors: &'a [dcp_host::Problem],
    #[serde(skip_serializing_if = "Option::is_none")]
    hint: Option<&'a str>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    fields: &'a [dcp_host::FieldProblem],
    /// A review still pending after a failed `--yes` install: install or cancel it.
    #[serde(skip_serializing_if = "Option::is_none")]
    review: Option<&'a str>,
}

/// Prints a failure (the spec's code first) with what fixes it, and
/// returns exit code 1.
pub fn fail(error: &ApiError, json: bool) -> ExitCode {
    fail_pending(error, json, None)
}

/// [`fail`] for an install whose review stays pending: `--json` names it.
pub fn fail_pending(error: &ApiError, json: bool, review: Option<&str>) -> ExitCode {
    let errors = error.problems.as_slice();
    let hint = super::hints::fix_for(error);
    if json {
        let hint = hint.as_deref();
        print_json(&ErrorJson {
            ok: false,
            code: error.spec_code(),
            message: &error.message,
            errors,
            hint,
            fields: &error.fields,
            review,
        });
        return ExitCode::from(super::REFUSED);
    }
    if errors.is_empty() {
        errln!("{error}");
    } else {
        errln!("refused:");
        for problem in errors {
            errln!("{problem}");
        }
    }
    if let Some(hint) = hint {
        errln!("hint: {hint}");
    }
    ExitCode::from(super::REFUSED)
}

/// A failure with its code, on standard error: `CODE: message`, then
/// `hint: FIX` when something fixes it. How `ai test` and `chat` say what
/// went wrong (issue 34).
pub fn say_failure(code: &str, message: &str, hint: Option<&str>) {
    errln!("{code}: {message}");
    if let Some(hint) = hint {
        errln!("hint: {hint}");
    }
}

/// Prints a result as JSON, or as the given human text.
pub fn done<T: Serialize>(value: &T, json: bool, human: impl FnOnce() -> String) -> ExitCode {
    if json {
        print_json(value);
    } else {
        outln!("{}", human());
    }
    ExitCode::SUCCESS
}

/// `{"ok": true}` for commands with nothing else to say.
#[derive(Serialize)]
pub struct Ok {
    pub ok: bool,
}

/// Runs a host method to its end and prints its outcome.
pub fn run<T: Serialize>(
    host: &Host,
    json: bool,
    action: impl Future<Output = Result<T, ApiError>>,
    human: impl FnOnce(&T) -> String,
) -> ExitCode {
    match host.block_on(action) {
        Result::Ok(value) => done(&value, json, || human(&value)),
        Err(e) => fail(&e, json),
    }
}

/// [`run`] for a result whose `--json` shape the command line builds from
/// the host's facts ([`crate::words`]).
pub fn run_as<T, J: Serialize>(
    host: &Host,
    json: bool,
    action: impl Future<Output = Result<T, ApiError>>,
    shape: impl FnOnce(&T) -> J,
    human: impl FnOnce(&T) -> String,
) -> ExitCode {
    match host.block_on(action) {
        Result::Ok(value) => done(&shape(&value), json, || human(&value)),
        Err(e) => fail(&e, json),
    }
}
