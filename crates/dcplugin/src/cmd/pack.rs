//! `dcplugin pack FOLDER [-o OUT.zip]`.

use std::path::Path;
use std::process::ExitCode;

pub fn run(_folder: &Path, _output: Option<&Path>, _json: bool) -> anyhow::Result<ExitCode> {
    anyhow::bail!("pack: waiting for the package writer")
}
