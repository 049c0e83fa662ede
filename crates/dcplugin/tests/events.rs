//! `dcplugin events` and `dcplugin serve` through the real binary (§16):
//! the switches and the token from the command line, then the host without
//! a window receiving events from the Python client of §16 and from the
//! pomodoro example server, and printing the event turn.

mod support;

use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use support::{binary, examples, free_port, json_of as json, run, spawn, text, Running};

fn dcplugin(profile: &Path, args: &[&str]) -> Output {
    let mut command = binary();
    command.args(args).env("DCPLUGIN_PROFILE", profile);
    run(command, None)
}

fn pomodoro_profile() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("dir");
    let profile = dir.path().join("profile");
    assert!(dcplugin(&profile, &["dev-mode", "on"]).status.success());
    let manifest = examples().join("pomodoro/manifest.json");
    let mut command = binary();
    command
        .args(["import", manifest.to_str().expect("utf-8"), "--yes", "--secrets-stdin", "--json"])
        .env("DCPLUGIN_PROFILE", &profile);
    let out = run(command, Some("token=server-token-for-tests\n"));
    assert!(out.status.success(), "{}{}", text(&out.stdout), text(&out.stderr));
    (dir, profile)
}

#[test]
fn s16_events_switches_door_state_and_token_from_the_command_line() {
    let (_dir, profile) = pomodoro_profile();
    let v = json(&dcplugin(&profile, &["events", "pomodoro", "--json"]));
    assert_eq!(
        v["events"][0],
        serde_json::json!({"name": "focus_done", "title": "Focus session finished", "on": false})
    );
    assert_eq!(v["door"]["wanted"], "no_event_on");
    assert_eq!(v["token_made"], false);
    assert_eq!(json(&dcplugin(&profile, &["events", "pomodoro", "on", "focus_done", "--json"]))["ok"], true);
    assert!(!dcplugin(&profile, &["events", "pomodoro", "on", "lunch_done", "--json"]).status.success());
    let v = json(&dcplugin(&profile, &["events", "pomodoro", "--json"]));
    assert_eq!(v["events"][0]["on"], true);
    // The port as a number beside the address it has always printed (issue 33: a field added).
    assert_eq!(v["door"], serde_json::json!({"wanted": "open", "port": 8440, "address": "127.0.0.1:8440"}));
    let token = json(&dcplugin(&profile, &["events", "pomodoro", "token", "--json"]))["token"]
        .as_str()
        .expect("token")
        .to_owned();
    assert_eq!(token.len(), 64);
    let again = String::from_utf8(dcplugin(&profile, &["events", "pomodoro", "token"]).stdout).expect("utf-8");
    assert_eq!(again.trim(), token, "the same until New token");
    let fresh = json(&dcplugin(&profile, &["events", "pomodoro", "token", "--new", "--json"]))["token"].clone();
    assert_ne!(fresh.as_str(), Some(token.as_str()));
    assert!(json(&dcplugin(&profile, &["events", "pomodoro", "--json"]))["token_made"] == true);
    let journal = String::from_utf8(dcplugin(&profile, &["journal", "--json"]).stdout).expect("utf-8");
    assert!(!journal.contains(&token), "never in the journal");
    assert!(dcplugin(&profile, &["dev-mode", "off"]).status.success());
    assert_eq!(json(&dcplugin(&profile, &["events", "pomodoro", "--json"]))["door"]["wanted"], "dev_mode_off");
    let human = String::from_utf8(dcplugin(&profile, &["events", "pomodoro"]).stdout).expect("utf-8");
    assert!(human.contains("focus_done") && human.contains("door: closed (developer mode is off)"), "{human}");
}

struct Serve {
    child: Running,
    lines: mpsc::Receiver<Value>,
}

impl Serve {
    fn start(profile: &Path, port: u16) -> Serve {
        Serve::start_as(profile, port, true)
    }

    /// `serve` printing words (`json` false) or JSON lines.
    fn start_as(profile: &Path, port: u16, json: bool) -> Serve {
        let port = port.to_string();
        let mut args = vec!["serve", "--listening", "--door-port", &port];
        if json {
            args.push("--json");
        }
        let mut child = spawn(binary().args(args).env("DCPLUGIN_PROFILE", profile).stdout(Stdio::piped()));
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(serde_json::from_str(&line).unwrap_or(Value::String(line)));
            }
        });
        Serve { child: Running(child), lines }
    }

    /// The next line with this kind, within `limit`.
    fn wait(&self, kind: &str, limit: Duration) -> Value {
        let start = Instant::now();
        while let Some(left) = limit.checked_sub(start.elapsed()) {
            match self.lines.recv_timeout(left) {
                Ok(v) if v["kind"] == kind => return v,
                Ok(_) => {}
                Err(_) => break,
            }
        }
        panic!("no {kind} line within {limit:?}");
    }

    /// The next line of words starting with `prefix`, within `limit`.
    fn said(&self, prefix: &str, limit: Duration) -> String {
        let start = Instant::now();
        while let Some(left) = limit.checked_sub(start.elapsed()) {
            match self.lines.recv_timeout(left) {
                Ok(Value::String(line)) if line.starts_with(prefix) => return line,
                Ok(_) => {}
                Err(_) => break,
            }
        }
        panic!("no line starting with {prefix:?} within {limit:?}");
    }

    /// Fails on a line of this kind within `limit`.
    fn quiet(&self, kind: &str, limit: Duration) {
        let start = Instant::now();
        while let Some(left) = limit.checked_sub(start.elapsed()) {
            match self.lines.recv_timeout(left) {
                Ok(v) => assert_ne!(v["kind"], kind, "{v}"),
                Err(_) => break,
            }
        }
    }

    /// Stops serve as a service manager would, by SIGTERM, and checks that
    /// it says so and exits cleanly. Windows has no SIGTERM, and these
    /// tests give serve no console to send a Ctrl-C to: there the rest of
    /// the test still runs, and serve is ended by `Running`'s kill.
    #[cfg(windows)]
    fn stop(self) {
        drop(self.child);
    }

    #[cfg(unix)]
    fn stop(mut self) {
        let pid = self.child.0.id().to_string();
        assert!(Command::new("kill").args(["-TERM", &pid]).status().expect("kill").success());
        let v = self.wait("stopped", Duration::from_secs(5));
        assert_eq!(v["kind"], "stopped");
        assert!(self.child.0.wait().expect("exit").success(), "clean exit on SIGTERM");
    }
}

/// §19 under `dcplugin serve`: one save of a loaded folder, one reload.
/// Reads of the folder (the reload's own, `dcplugin list`) are no saves. A
/// reload that fails is reported and tried again.
#[test]
fn s19_serve_reloads_a_saved_folder_once() {
    let dir = tempfile::tempdir().expect("dir");
    let profile = dir.path().join("profile");
    let folder = dir.path().join("fx");
    std::fs::create_dir(&folder).expect("folder");
    let manifest = std::fs::read_to_string(examples().join("exchange-rates/manifest.json")).expect("example");
    std::fs::write(folder.join("manifest.json"), &manifest).expect("write");
    assert!(dcplugin(&profile, &["dev-mode", "on"]).status.success());
    let loaded = dcplugin(&profile, &["load-folder", folder.to_str().expect("utf-8"), "--yes", "--json"]);
    assert!(loaded.status.success(), "{}", text(&loaded.stderr));

    let serve = Serve::start(&profile, free_port());
    serve.wait("door", Duration::from_secs(5));
    let saved = manifest.replace("\"version\": \"1.0.0\"", "\"version\": \"1.0.1\"");
    std::fs::write(folder.join(".manifest.json.tmp"), saved).expect("write");
    save_by_rename(&folder.join(".manifest.json.tmp"), &folder.join("manifest.json"));
    let reloaded = serve.wait("reloaded", Duration::from_secs(5));
    assert_eq!(reloaded["plugin"], "fx");
    serve.quiet("reloaded", Duration::from_millis(1500));
    assert!(dcplugin(&profile, &["list"]).status.success());
    serve.quiet("reloaded", Duration::from_millis(1500));

    // The profile locked by another process past the busy timeout: the
    // reload fails, says so, and succeeds once the lock is gone.
    let other = rusqlite::Connection::open(profile.join("host.sqlite")).expect("another process");
    other.execute_batch("BEGIN EXCLUSIVE").expect("lock the profile");
    let saved = manifest.replace("\"version\": \"1.0.0\"", "\"version\": \"1.0.2\"");
    std::fs::write(folder.join("manifest.json"), saved).expect("save in place");
    let failed = serve.wait("reload_failed", Duration::from_secs(30));
    assert!(failed["error"].as_str().is_some_and(|e| e.contains("locked")), "{failed}");
    other.execute_batch("ROLLBACK").expect("unlock");
    assert_eq!(serve.wait("reloaded", Duration::from_secs(30))["plugin"], "fx");
    serve.stop();
}

/// Saves `to` by renaming `from` over it, as many editors do. Windows
/// may refuse to replace a file that another process has open at that
/// instant (os error 5, seen under Wine in one run of two), and serve reads
/// the manifest at each check: like those editors, try again for a while.
fn save_by_rename(from: &Path, to: &Path) {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        match std::fs::rename(from, to) {
            Ok(()) => return,
            Err(e)
                if cfg!(windows) && e.kind() == std::io::ErrorKind::PermissionDenied && Instant::now() < deadline =>
            {
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(e) => panic!("save: {e}"),
        }
    }
}

/// The Python client of §16, unchanged but for the port.
const PYTHON_CLIENT: &str = r#"import json, urllib.request

def send_event(token, event, text=''):
    request = urllib.request.Request(
        'http://127.0.0.1:8440/v1/events/pomodoro',
        data=json.dumps({'event': event, 'text': text}).encode('utf-8'), method='POST',
        headers={'Authorization': f'Bearer {token}', 'Content-Type': 'application/json'})
    with urllib.request.urlopen(request, timeout=5) as response:
        return response.status  # 202
"#;

#[cfg_attr(
    windows,
    ignore = "starts a Python program (python3): under Wine only Linux's python3 exists, which Wine cannot start with piped standard streams (os error 6)"
)]
#[test]
fn s16_serve_listening_says_an_event_from_the_python_client_of_s16() {
    let (_dir, profile) = pomodoro_profile();
    dcplugin(&profile, &["events", "pomodoro", "on", "focus_done"]);
    let token = String::from_utf8(dcplugin(&profile, &["events", "pomodoro", "token"]).stdout).expect("utf-8");
    let port = free_port();
    let serve = Serve::start(&profile, port);
    let door = serve.wait("door", Duration::from_secs(5));
    assert_eq!(door["state"], serde_json::json!({"state": "listening", "port": port}));
    let script = format!(
        "{}\nimport sys\nprint(send_event(sys.argv[1], 'focus_done', 'Session 2 of 4 done. Break: 5 minutes.'))\n",
        PYTHON_CLIENT.replace("8440", &port.to_string())
    );
    let out = Command::new("python3").args(["-c", &script, token.trim()]).output().expect("python3");
    assert_eq!(text(&out.stdout).trim(), "202", "{}", text(&out.stderr));
    let received = serve.wait("received", Duration::from_secs(5));
    assert_eq!(received["event"], "focus_done");
    let turn = serve.wait("turn", Duration::from_secs(5));
    assert_eq!(
        turn["message"],
        "(Not a message from the user. The Pomodoro timer plugin reports: Focus session finished. Details sent by the program, not checked: \"Session 2 of 4 done. Break: 5 minutes.\". Tell the user about it in one or two short sentences, in character.)"
    );
    assert_eq!(turn["tools"], serde_json::json!([]));
    // A wrong token: urlopen raises HTTPError 401.
    let bad = format!(
        "{}\nimport sys, urllib.error\ntry:\n    send_event('0' * 64, 'focus_done')\nexcept urllib.error.HTTPError as e:\n    print(e.code)\n",
        PYTHON_CLIENT.replace("8440", &port.to_string())
    );
    let out = Command::new("python3").args(["-c", &bad]).output().expect("python3");
    assert_eq!(text(&out.stdout).trim(), "401");
    serve.stop();
}

/// Issue 23, §16: a second door on a taken port says who holds it. Beside
/// the app's window (here another `serve`, the same door), it says the
/// door there already takes the events; beside a program that is no door,
/// that program is to be closed. `--json` keeps the notice's shape.
#[test]
fn s16_serve_says_when_its_port_is_held_by_another_door_or_another_program() {
    let (_dir, profile) = pomodoro_profile();
    dcplugin(&profile, &["events", "pomodoro", "on", "focus_done"]);
    let port = free_port();
    let first = Serve::start(&profile, port);
    assert_eq!(first.wait("door", Duration::from_secs(5))["state"]["state"], "listening");

    let second = Serve::start_as(&profile, port, false);
    let line = second.said("door: ", Duration::from_secs(10));
    assert!(
        line.starts_with(&format!(
            "door: port {port} is used by another event door (the Desktop Companion Plugins window's"
        )),
        "{line}"
    );
    assert!(line.contains("post them there, or close it to open this one"), "{line}");
    let json = Serve::start(&profile, port);
    assert_eq!(
        json.wait("door", Duration::from_secs(10))["state"],
        serde_json::json!({"state": "port_taken", "port": port}),
        "the JSON notice is unchanged"
    );
    drop((second, json));
    first.stop();

    // A program that holds the port and answers nothing a door would.
    let other = std::net::TcpListener::bind(("127.0.0.1", 0)).expect("bind");
    let port = other.local_addr().expect("addr").port();
    let serve = Serve::start_as(&profile, port, false);
    let line = serve.said("door: ", Duration::from_secs(10));
    assert_eq!(
        line,
        format!("door: port {port} is used by another program, which does not answer as the app's event door does: close it to open this one")
    );
}

#[cfg_attr(
    windows,
    ignore = "starts a Python program (python3): under Wine only Linux's python3 exists, which Wine cannot start with piped standard streams (os error 6)"
)]
#[test]
fn s20g_pomodoro_end_to_end_focus_done_becomes_an_event_turn() {
    let (dir, profile) = pomodoro_profile();
    dcplugin(&profile, &["events", "pomodoro", "on", "focus_done"]);
    dcplugin(&profile, &["events", "pomodoro", "on", "break_done"]);
    let token = String::from_utf8(dcplugin(&profile, &["events", "pomodoro", "token"]).stdout).expect("utf-8");
    // The example server keeps its files next to itself: run a copy.
    let server_dir = dir.path().join("pomodoro");
    std::fs::create_dir(&server_dir).expect("dir");
    std::fs::copy(examples().join("pomodoro/server.py"), server_dir.join("server.py")).expect("copy");
    std::fs::write(server_dir.join("event-token.txt"), token.trim()).expect("event token");
    let door_port = free_port();
    let timer_port = free_port();
    let serve = Serve::start(&profile, door_port);
    serve.wait("door", Duration::from_secs(5));
    let _server = Running(
        Command::new("python3")
            .args([
                "server.py",
                "--test",
                "--port",
                &timer_port.to_string(),
                "--events-url",
                &format!("http://127.0.0.1:{door_port}/v1/events/pomodoro"),
            ])
            .current_dir(&server_dir)
            .stdout(Stdio::null())
            .spawn()
            .expect("server.py"),
    );
    let mut server_token = String::new();
    for _ in 0..50 {
        server_token = std::fs::read_to_string(server_dir.join("token.txt")).unwrap_or_default();
        if std::net::TcpStream::connect(("127.0.0.1", timer_port)).is_ok() && !server_token.trim().is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let start = format!(
        "import urllib.request, json\nr = urllib.request.Request('http://127.0.0.1:{timer_port}/start', data=json.dumps({{'minutes': 1, 'break_minutes': 1}}).encode(), method='POST', headers={{'Authorization': 'Bearer {}', 'Content-Type': 'application/json'}})\nprint(urllib.request.urlopen(r, timeout=5).status)\n",
        server_token.trim()
    );
    let out = Command::new("python3").args(["-c", &start]).output().expect("python3");
    assert_eq!(text(&out.stdout).trim(), "200", "{}", text(&out.stderr));
    // --test: one minute lasts 15 s.
    let turn = serve.wait("turn", Duration::from_secs(40));
    let message = turn["message"].as_str().expect("message");
    assert!(
        message.starts_with("(Not a message from the user. The Pomodoro timer plugin reports: Focus session finished."),
        "{message}"
    );
    assert!(message.contains("Details sent by the program, not checked: \""), "{message}");
    serve.stop();
}
