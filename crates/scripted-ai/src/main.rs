//! `scripted-ai --script FILE.json [--port P] [--received FILE]`: serves a
//! script read from JSON (the library's [`scripted_ai::Script`] in serde's
//! spelling) until it is killed, for end-to-end tests of other processes.
//! The first line on standard output is the base URL, once it listens.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use clap::Parser;
use scripted_ai::{Options, Script, ScriptedAi};

/// A scripted OpenAI-compatible server on 127.0.0.1 (test support only).
#[derive(Parser)]
#[command(name = "scripted-ai")]
struct Args {
    /// The script: `{"models": .., "turns": [..]}`.
    #[arg(long)]
    script: PathBuf,
    /// Listen on this port of 127.0.0.1 (default: a free one).
    #[arg(long)]
    port: Option<u16>,
    /// Keep the list of requests received in this file, rewritten after each one.
    #[arg(long)]
    received: Option<PathBuf>,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let text = std::fs::read_to_string(&args.script).with_context(|| format!("reading {}", args.script.display()))?;
    let script: Script = serde_json::from_str(&text).with_context(|| format!("reading {}", args.script.display()))?;
    let ai =
        ScriptedAi::launch(script, Options { port: args.port, received_file: args.received, ..Options::default() })
            .context("starting the server")?;
    let mut stdout = std::io::stdout();
    writeln!(stdout, "{}", ai.url())?;
    stdout.flush()?;
    // The server runs in its own thread until the process is killed.
    loop {
        std::thread::park();
    }
}
