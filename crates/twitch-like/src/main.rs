//! `twitch-like [--port N] [--ca-out PATH]`: the Twitch-like IRC server for
//! tests that drive another process (issue 36). Its first line is
//! `listening 127.0.0.1:PORT`, then one line per happening (`connected N`,
//! `joined #chan`, `pong`, `closed N`); it reads commands on its standard
//! input, one a line — `say CHANNEL LOGIN DISPLAY TEXT…` (answered
//! `said ID`), `delete CHANNEL ID`, `ban CHANNEL LOGIN`, `clear CHANNEL`,
//! `reconnect`, `drop`, `ping`, `raw LINE…` — and ends at the end of its
//! input. A command it cannot read is named on standard error.

use std::io::Write;
use std::path::PathBuf;

use clap::Parser;
use tokio::io::AsyncBufReadExt;
use tokio::sync::broadcast::error::RecvError;
use twitch_like::{Role, TwitchLike};

/// A Twitch-like IRC server over TLS on 127.0.0.1, driven from standard input.
#[derive(Parser)]
#[command(name = "twitch-like", version)]
struct Args {
    /// Listen on this port of 127.0.0.1 (default: a free one).
    #[arg(long)]
    port: Option<u16>,
    /// Write the test CA's certificate (PEM) here: what the client trusts (DCPLUGIN_TEST_CA).
    #[arg(long)]
    ca_out: Option<PathBuf>,
}

fn main() -> std::io::Result<()> {
    let args = Args::parse();
    let twitch = TwitchLike::launch(args.port)?;
    if let Some(path) = &args.ca_out {
        std::fs::write(path, twitch.ca_pem())?;
    }
    let mut happenings = twitch.happenings();
    say_line(&format!("listening 127.0.0.1:{}", twitch.port()));
    let runtime = tokio::runtime::Builder::new_current_thread().build()?;
    runtime.block_on(async {
        let mut lines = tokio::io::BufReader::new(tokio::io::stdin()).lines();
        loop {
            tokio::select! {
                line = lines.next_line() => match line {
                    Ok(Some(line)) => command(&twitch, &line),
                    _ => break,
                },
                happening = happenings.recv() => match happening {
                    Ok(happening) => say_line(&happening.to_string()),
                    Err(RecvError::Lagged(missed)) => eprintln!("twitch-like: {missed} happenings not printed"),
                    Err(RecvError::Closed) => break,
                },
            }
        }
    });
    Ok(())
}

/// One command line of standard input.
fn command(twitch: &TwitchLike, line: &str) {
    let line = line.trim_end_matches('\r');
    let (verb, rest) = line.split_once(' ').unwrap_or((line, ""));
    let words: Vec<&str> = rest.split_whitespace().collect();
    match (verb, words.as_slice()) {
        ("say", [channel, login, display_name, ..]) => {
            // The text as typed: everything after the third word, inner spaces kept.
            let text = rest.splitn(4, ' ').nth(3).unwrap_or_default();
            match twitch.try_say(channel, login, display_name, text, Role::Viewer) {
                Ok(id) => say_line(&format!("said {id}")),
                Err(bad) => eprintln!("twitch-like: say: {bad}"),
            }
        }
        ("delete", [channel, id]) => twitch.delete(channel, id),
        ("ban", [channel, login]) => twitch.ban(channel, login),
        ("clear", [channel]) => twitch.clear(channel),
        ("reconnect", []) => twitch.reconnect(),
        ("drop", []) => twitch.drop_all(),
        ("ping", []) => twitch.ping(),
        ("raw", _) if !rest.is_empty() => twitch.send_raw(rest),
        _ => eprintln!(
            "twitch-like: cannot read `{line}` (say CHANNEL LOGIN DISPLAY TEXT…, delete CHANNEL ID, ban CHANNEL LOGIN, \
             clear CHANNEL, reconnect, drop, ping, raw LINE…)"
        ),
    }
}

/// A line on standard output, flushed (the reader is another process waiting for it).
fn say_line(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}
