//! What the chat tests share (chat_cli, chat_pty): a profile with the
//! scripted AI set, the local-server example running as a plugin's server.

use super::{examples, free_port, text, Profile, Running};
use scripted_ai::{Options, Script, ScriptedAi, Step, MODEL};
use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A profile in developer mode with the AI set to `ai`.
pub fn profile_with_ai(ai: &ScriptedAi) -> Profile {
    let p = Profile::new();
    assert!(p.run(&["dev-mode", "on"]).status.success());
    let set = p.run(&["ai", "--url", &ai.url(), "--model", MODEL]);
    assert!(set.status.success(), "{}", text(&set.stderr));
    p
}

/// The local-server example on a free port, its requests logged to a file.
pub struct PcServer {
    _child: Running,
    pub dir: PathBuf,
    pub token: String,
}

impl PcServer {
    /// A copy of the example whose manifest is changed by `edit`, started,
    /// and loaded into `p` with its token.
    pub fn start(p: &Profile, edit: impl FnOnce(&mut Value)) -> PcServer {
        let port = free_port();
        let dir = p.dir.path().join("local-server");
        std::fs::create_dir_all(&dir).expect("mkdir");
        let source = examples().join("local-server");
        let manifest = std::fs::read_to_string(source.join("manifest.json")).expect("manifest");
        let mut manifest: Value = serde_json::from_str(&manifest.replace("8420", &port.to_string())).expect("JSON");
        edit(&mut manifest);
        std::fs::write(dir.join("manifest.json"), manifest.to_string()).expect("write");
        std::fs::copy(source.join("server.py"), dir.join("server.py")).expect("copy");
        let log = std::fs::File::create(dir.join("requests.log")).expect("log");
        let child = Command::new("python3")
            .arg(dir.join("server.py"))
            .args(["--port", &port.to_string()])
            .current_dir(&dir)
            .stdout(Stdio::from(log))
            .stderr(Stdio::null())
            .spawn()
            .expect("python3 runs");
        let child = Running(child);
        let deadline = Instant::now() + Duration::from_secs(20);
        let token = loop {
            let token = std::fs::read_to_string(dir.join("token.txt")).unwrap_or_default();
            if !token.trim().is_empty() && std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                break token.trim().to_owned();
            }
            assert!(Instant::now() < deadline, "the example server did not start");
            std::thread::sleep(Duration::from_millis(100));
        };
        let loaded = p.run_with(
            &["load-folder", dir.to_str().expect("utf-8"), "--yes", "--secrets-stdin", "--json"],
            Some(&format!("token={token}\n")),
            &[],
        );
        assert!(loaded.status.success(), "{}{}", text(&loaded.stdout), text(&loaded.stderr));
        PcServer { _child: child, dir, token }
    }

    /// [`PcServer::start`] with `add_note` made irreversible: an R3 action,
    /// asked every time (§12).
    pub fn start_with_r3_note(p: &Profile) -> PcServer {
        PcServer::start(p, |m| {
            m["_meta"]["com.desktopaicompanion"]["tools"]["add_note"]["sideEffects"] = "irreversible".into()
        })
    }

    /// The request lines the server logged ("GET /time", "POST /note").
    pub fn received(&self) -> Vec<String> {
        let log = std::fs::read_to_string(self.dir.join("requests.log")).unwrap_or_default();
        log.lines()
            .filter_map(|line| line.split('"').nth(1))
            .map(|request| request.rsplit_once(' ').map_or(request, |(r, _)| r).to_owned())
            .collect()
    }
}

/// The pomodoro example installed in `p`, its `focus_done` event on: the
/// event door opens while developer mode is on.
pub fn pomodoro_with_an_event_on(p: &Profile) {
    let manifest = examples().join("pomodoro/manifest.json");
    let out = p.run_with(
        &["import", manifest.to_str().expect("utf-8"), "--yes", "--secrets-stdin"],
        Some("token=pomodoro-server-token\n"),
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(p.run(&["events", "pomodoro", "on", "focus_done"]).status.success());
}

/// The secret the my-tasks example is installed with ([`my_tasks_in`]).
pub const TASKS_TOKEN: &str = "tasks-secret-token";

/// The my-tasks example (list_tasks reads the player's data: R1) installed
/// in `p` with [`TASKS_TOKEN`], the online-AI question answered `cloud`.
pub fn my_tasks_in(p: &Profile, cloud: &str) {
    let tasks = examples().join("my-tasks/manifest.json");
    let imported = p.run_with(
        &["import", tasks.to_str().expect("utf-8"), "--yes", "--secrets-stdin", "--cloud", cloud, "--json"],
        Some(&format!("api_token={TASKS_TOKEN}\n")),
        &[],
    );
    assert!(imported.status.success(), "{}", text(&imported.stderr));
}

/// The scripted AI answering `turns`, on this PC.
pub fn ai(turns: Vec<Step>) -> ScriptedAi {
    ScriptedAi::launch(Script::with_turns(turns), Options::default()).expect("scripted-ai starts")
}
