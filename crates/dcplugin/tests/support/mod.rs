//! What the `dcplugin` integration tests share: the binary run with piped
//! input, its one JSON object, the example plugins, loopback ports a plugin
//! may declare, searching output and files for a secret, and child
//! processes that end with the test; the chat tests' AI and plugin server
//! (`chat`), a program on a pseudo-terminal (`pty`).

#![allow(dead_code)] // each test file uses its own part

pub mod chat;
#[cfg(unix)]
pub mod pty;

use serde_json::Value;
use std::io::Write;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

/// The `dcplugin` binary built for these tests.
pub fn binary() -> Command {
    Command::new(env!("CARGO_BIN_EXE_dcplugin"))
}

/// A child process killed when the test ends, passed or failed: one left
/// running would hold the test's output open and hang whoever reads it.
pub struct Running(pub Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `command`. Under Wine (scripts/build-windows --test) starting a
/// process now and then fails with ERROR_INTERNAL_ERROR (1359) while many
/// tests start processes at once (seen once in a CI run, in a test that
/// passed before and after): that answer alone is tried again, a few times,
/// on Windows only; any other failure to start fails the test.
pub fn spawn(command: &mut Command) -> Child {
    const ERROR_INTERNAL_ERROR: i32 = 1359;
    let mut tries = 1;
    loop {
        match command.spawn() {
            Err(e) if cfg!(windows) && e.raw_os_error() == Some(ERROR_INTERNAL_ERROR) && tries < 5 => tries += 1,
            started => return started.expect("the program starts"),
        }
    }
}

/// Runs `command` with `stdin` written to it (then closed), capturing
/// stdout and stderr.
pub fn run(mut command: Command, stdin: Option<&str>) -> Output {
    let mut child = spawn(command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()));
    if let Some(text) = stdin {
        child.stdin.take().expect("stdin").write_all(text.as_bytes()).expect("write stdin");
    }
    drop(child.stdin.take());
    child.wait_with_output().expect("dcplugin ends")
}

/// The one JSON object a `--json` command prints, on one line.
pub fn json_of(out: &Output) -> Value {
    let stdout = text(&out.stdout);
    let mut lines = stdout.lines();
    let value = serde_json::from_str(lines.next().unwrap_or_default())
        .unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}{}", text(&out.stderr)));
    assert_eq!(lines.next(), None, "exactly one JSON object: {stdout}");
    value
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// True when `needle` occurs in `hay`.
pub fn contains(hay: &[u8], needle: &str) -> bool {
    hay.windows(needle.len()).any(|w| w == needle.as_bytes())
}

/// The example plugins folder.
pub fn examples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../plugins-examples")
}

/// A loopback listener on a port a plugin may declare: the OS's ephemeral
/// range overlaps ports §15 reserves (45000–45999, 50021).
pub fn unreserved_listener() -> TcpListener {
    loop {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        if dcp_format::hosts::reserved_port(port).is_none() {
            return listener;
        }
    }
}

/// A free port a plugin may declare.
pub fn free_port() -> u16 {
    unreserved_listener().local_addr().expect("addr").port()
}

/// Every file under `dir`.
pub fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("folder").flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(files(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// A temp profile for one test, on real files; its vault key is removed
/// from the OS store when it is dropped.
pub struct Profile {
    pub dir: tempfile::TempDir,
}

impl Profile {
    pub fn new() -> Profile {
        Profile { dir: tempfile::tempdir().expect("temp dir") }
    }

    pub fn root(&self) -> PathBuf {
        self.dir.path().join("profile")
    }

    /// `dcplugin --profile ROOT ARGS…`, never with a crash point left set.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut cmd = binary();
        cmd.arg("--profile").arg(self.root()).args(args).env_remove("DCPLUGIN_TEST_CRASH_AT");
        cmd
    }

    pub fn run_with(&self, args: &[&str], stdin: Option<&str>, env: &[(&str, &str)]) -> Output {
        let mut cmd = self.command(args);
        cmd.envs(env.iter().copied());
        run(cmd, stdin)
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.run_with(args, None, &[])
    }
}

impl Drop for Profile {
    /// Removes this profile's vault key from the OS store.
    fn drop(&mut self) {
        use dcp_vault::KeyStore;
        if let Ok(conn) = rusqlite::Connection::open(self.root().join("host.sqlite")) {
            if let Ok(id) =
                conn.query_row("SELECT value FROM prefs WHERE key='profile_id'", [], |r| r.get::<_, String>(0))
            {
                let _ = dcp_vault::OsKeyStore::new().delete(&id);
            }
        }
    }
}
