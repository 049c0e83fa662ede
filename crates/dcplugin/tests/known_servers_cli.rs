//! The known AI servers of a PC through the real binary (issue 34):
//! llama.cpp's announced default port, 9931, is known as llama.cpp's as
//! 8080 is, and the hint of an AI that does not answer names llama.cpp.

mod support;

use std::net::TcpListener;
use support::{text, Profile};

/// Nothing answers on 9931: the message says to start llama-server (as on
/// 8080), and the hint says how to start each known server, llama.cpp too.
#[test]
fn nothing_on_llama_cpps_new_port_says_to_start_llama_server() {
    // Bound then let go: nothing listens there while the test runs.
    let port = TcpListener::bind("127.0.0.1:9931").map(|l| l.local_addr().map(|a| a.port()));
    assert!(matches!(port, Ok(Ok(9931))), "port 9931 is taken on this machine: {port:?}");
    let p = Profile::new();
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
