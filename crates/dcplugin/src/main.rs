//! `dcplugin`: the command-line tool for plugin authors and for scripting the
//! host. Glue only: every rule lives in the engine crates; this file parses
//! arguments, calls the engine and prints. Its commands, flags, `--json`
//! shapes and exit codes are a public contract (see README.md).

mod cmd;
mod output;

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// Command-line tool for Desktop Companion plugins.
#[derive(Parser)]
#[command(name = "dcplugin", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check a plugin (.json, .zip or folder) and list every problem.
    Validate {
        /// A .json manifest, a .zip package or a folder holding manifest.json.
        path: PathBuf,
        /// Print one JSON object: {"ok", "slug", "errors", "warnings"}.
        #[arg(long)]
        json: bool,
        /// The app version minAppVersion is checked against (x.y.z).
        #[arg(long, value_name = "X.Y.Z", value_parser = cmd::parse_version)]
        app_version: Option<dcp_format::version::Version>,
    },
    /// Build a .zip package from a plugin folder, refusing an invalid one.
    Pack {
        /// The plugin folder (manifest.json, icon.png, readme.md, license).
        folder: PathBuf,
        /// Where to write the package (default: <slug>-<version>.zip).
        #[arg(short, long, value_name = "OUT.zip")]
        output: Option<PathBuf>,
        /// Print one JSON object describing the result.
        #[arg(long)]
        json: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Validate {
            path,
            json,
            app_version,
        } => cmd::validate::run(&path, json, app_version),
        Command::Pack {
            folder,
            output,
            json,
        } => cmd::pack::run(&folder, output.as_deref(), json),
    };
    match outcome {
        Ok(code) => code,
        Err(e) => {
            eprintln!("dcplugin: {e:#}");
            ExitCode::from(2)
        }
    }
}
