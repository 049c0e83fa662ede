//! The `scripted-ai` binary: a script read from JSON, the URL on its first
//! line of output, the requests kept in the `--received` file.

use std::io::BufRead;
use std::process::{Child, Command, Stdio};

use scripted_ai::{openai, ModelsReply, Received, Script};
use serde_json::json;

mod support;
use support::{chunks, client, deltas, json_of};

/// The child, killed when the test ends however it ends.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test]
async fn the_binary_serves_a_json_script_and_keeps_what_it_received() {
    let dir = tempfile::tempdir().expect("temp dir");
    let script = Script {
        models: ModelsReply::List(vec!["llama3.1".into()]),
        turns: vec![openai::tool_calls(&[("call_1", "fx__convert", r#"{"amount":100}"#)], 3)],
    };
    let script_file = dir.path().join("script.json");
    std::fs::write(&script_file, serde_json::to_vec(&script).expect("JSON")).expect("write script");
    let received_file = dir.path().join("received.json");
    let mut child = Running(
        Command::new(env!("CARGO_BIN_EXE_scripted-ai"))
            .arg("--script")
            .arg(&script_file)
            .arg("--received")
            .arg(&received_file)
            .stdout(Stdio::piped())
            .spawn()
            .expect("the binary starts"),
    );
    let mut url = String::new();
    std::io::BufReader::new(child.0.stdout.take().expect("stdout")).read_line(&mut url).expect("the URL line");
    let url = url.trim();
    assert!(url.starts_with("http://127.0.0.1:") && url.ends_with("/v1"), "{url}");

    let models = client(None).get(format!("{url}/models")).send().await.expect("models").text().await.expect("body");
    assert_eq!(json_of(&models)["data"][0]["id"], "llama3.1");
    let asked = json!({"model": "llama3.1", "stream": true, "messages": [{"role": "user", "content": "100 $ in €?"}]});
    let stream = client(None)
        .post(format!("{url}/chat/completions"))
        .header("content-type", "application/json")
        .body(asked.to_string())
        .send()
        .await
        .expect("chat")
        .text()
        .await
        .expect("stream");
    let chunks = chunks(&stream);
    let deltas = deltas(&chunks);
    assert_eq!(deltas[1]["tool_calls"][0]["function"]["name"], "fx__convert");

    // Each request is on file before it is answered.
    let kept: Vec<Received> =
        serde_json::from_slice(&std::fs::read(&received_file).expect("received file")).expect("JSON list");
    assert_eq!(kept.len(), 2);
    assert_eq!(kept[0].path, "/v1/models");
    assert_eq!(kept[1].body, asked);
}

#[test]
fn a_script_that_is_not_one_is_refused_naming_the_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let script_file = dir.path().join("script.json");
    std::fs::write(&script_file, r#"{"turns": [{"stream": "no"}]}"#).expect("write");
    let output = Command::new(env!("CARGO_BIN_EXE_scripted-ai"))
        .arg("--script")
        .arg(&script_file)
        .output()
        .expect("the binary runs");
    assert_eq!(output.status.code(), Some(1));
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(said.contains("script.json"), "{said}");
}
