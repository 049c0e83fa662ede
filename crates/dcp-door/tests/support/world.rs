//! A real profile for the door: a SQLite store in a temp folder, developer
//! mode on, the pomodoro example installed twice (as `pomodoro` and as
//! `othertimer`) with `focus_done` switched on for both. Shared by the
//! black-box tests (`tests/door.rs`) and the load bench (`benches/load.rs`).

use dcp_door::{DoorState, Notice};
use dcp_store::{InstallOptions, Profile, Store};
use dcp_vault::testing::MemoryKeyStore;
use dcp_vault::Sensitive;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc::UnboundedReceiver;

pub struct World {
    _dir: tempfile::TempDir,
    pub profile: PathBuf,
    pub keys: Arc<MemoryKeyStore>,
    pub store: Store,
    pub token: String,
    pub other_token: String,
}

impl World {
    /// A second handle on the same profile, for the door to own.
    pub fn door_store(&self) -> Store {
        Store::open(Profile::at(&self.profile).expect("profile"), self.keys.clone()).expect("store")
    }
}

fn example() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../plugins-examples/pomodoro/manifest.json");
    std::fs::read_to_string(path).expect("pomodoro")
}

fn install(store: &Store, dir: &Path, manifest: &str) {
    let path = dir.join(format!("m{}.json", manifest.len()));
    std::fs::write(&path, manifest).expect("write");
    let review = store.import(&path).expect("review");
    let options = InstallOptions {
        secrets: vec![("token".into(), Sensitive::new("server-token".into()))],
        ..InstallOptions::default()
    };
    store.install(&review.review, options).expect("installed");
}

pub fn world() -> World {
    let dir = tempfile::tempdir().expect("dir");
    let profile = dir.path().join("profile");
    let keys = Arc::new(MemoryKeyStore::new());
    let store = Store::open(Profile::at(&profile).expect("profile"), keys.clone()).expect("store");
    store.set_pref("dev_mode", "true").expect("dev");
    install(&store, dir.path(), &example());
    let other = example()
        .replace("\"slug\": \"pomodoro\"", "\"slug\": \"othertimer\"")
        .replace("\"display_name\": \"Pomodoro timer\"", "\"display_name\": \"Other timer\"");
    install(&store, dir.path(), &other);
    store.set_event_enabled("pomodoro", "focus_done", true).expect("on");
    store.set_event_enabled("othertimer", "focus_done", true).expect("on");
    let token = store.event_token("pomodoro").expect("token").expose().to_owned();
    let other_token = store.event_token("othertimer").expect("token").expose().to_owned();
    World { _dir: dir, profile, keys, store, token, other_token }
}

/// A free loopback port a plugin may declare: the OS's ephemeral range
/// overlaps ports §15 reserves (45000–45999, 50021).
pub fn free_port() -> u16 {
    loop {
        let port = std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port();
        if dcp_format::hosts::reserved_port(port).is_none() {
            return port;
        }
    }
}

/// A well-formed event request for `slug` on the door at `port`.
pub fn request(port: u16, slug: &str, token: &str, body: &str) -> String {
    format!(
        "POST /v1/events/{slug} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

/// The event the legitimate program sends.
pub const FOCUS: &str = r#"{"event": "focus_done", "text": "Session 2 of 4 done. Break: 5 minutes."}"#;

/// Returns once the door reports `state` (its notices say each change),
/// within 5 s; the other notices on the way are left behind.
pub async fn door_reaches(notices: &mut UnboundedReceiver<Notice>, state: &DoorState) {
    let reached = async {
        while let Some(notice) = notices.recv().await {
            if matches!(&notice, Notice::Door { state: s } if s == state) {
                return;
            }
        }
        panic!("the door stopped before {state:?}");
    };
    tokio::time::timeout(Duration::from_secs(5), reached).await.unwrap_or_else(|_| panic!("never {state:?}"));
}
