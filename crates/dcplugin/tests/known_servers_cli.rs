//! The known AI servers of a PC through the real binary (issue 34):
//! llama.cpp's announced default port, 9931, is known as llama.cpp's as
//! 8080 is, and the hint of an AI that does not answer names llama.cpp.

mod support;

use dcp_host::PcServer;
use std::net::TcpListener;
use support::{text, Profile};

/// The known servers' ports held by this test: each accepts a connection
/// and never answers, so nothing is found there, whatever runs on this
/// machine otherwise. A port another program holds fails the test.
fn hold_every_port() -> Vec<TcpListener> {
    let ports: Vec<u16> = PcServer::ALL.iter().flat_map(|s| s.ports().iter().copied()).collect();
    assert!(ports.contains(&9931), "{ports:?}");
    ports
        .iter()
        .map(|port| {
            TcpListener::bind(("127.0.0.1", *port))
                .unwrap_or_else(|e| panic!("port {port} is taken on this machine: {e}"))
        })
        .collect()
}

/// With no AI set, `ai` says which ports it looked at: llama.cpp's two.
/// With nothing on 9931, `ai test` says to start llama-server (as on
/// 8080), and the hint says how to start each known server, llama.cpp
/// too. One test: both use the same ports.
#[test]
fn llama_cpps_new_port_is_looked_at_and_said() {
    let p = Profile::new();
    let held = hold_every_port();
    let shown = p.run(&["ai"]);
    assert!(shown.status.success(), "{}", text(&shown.stderr));
    let said = text(&shown.stdout);
    assert!(
        said.contains("no AI answers on this PC's usual ports") && said.contains("llama.cpp 8080 or 9931"),
        "{said}"
    );
    drop(held);

    let set = p.run(&["ai", "--url", "http://127.0.0.1:9931/v1", "--model", "qwen"]);
    assert!(set.status.success(), "{}", text(&set.stderr));
    let tested = p.run(&["ai", "test"]);
    assert_eq!(tested.status.code(), Some(1));
    let said = text(&tested.stderr);
    let mut lines = said.lines();
    let (message, hint) = (lines.next().unwrap_or_default(), lines.next().unwrap_or_default());
    assert!(message.starts_with("ai_not_listening") && message.contains("llama-server"), "{said}");
    assert!(hint.starts_with("hint: ") && hint.contains("llama.cpp: llama-server"), "{said}");
}
