//! §9 step 6 and §11: a secret is "replaced by [secret] in any answer or
//! error that would contain it", whatever spelling the plugin's server
//! echoes it in. A real program on 127.0.0.1 echoes the bearer token it
//! received, in one spelling per test; Try an action (§19) shows what the
//! AI reads, which must hold `[secret]` and neither the secret nor its
//! spelling. The spellings are written here by hand, apart from the
//! masker's own encoders.

mod common;

use common::*;
use dcp_host::{InstallOptions, Place, Sensitive, Source, Turn};

/// A token with reserved characters, a space and letters of both cases.
const SECRET: &str = "Tk/9f+2c=&<Zq> \"x\" 7d1E";

/// Installs the local-server example with [`SECRET`], behind a program
/// that answers `{"time": <the token as spell writes it>}`, and returns
/// what Try an action shows the AI.
async fn echoed(spell: fn(&str) -> String) -> String {
    let f = fixture();
    let port = free_port();
    let _server = pc_server_answering(port, move |authorization| {
        let token = authorization.and_then(|a| a.strip_prefix("Bearer ")).unwrap_or_default();
        ("200 OK", serde_json::json!({ "time": spell(token), "date": "2026-11-30" }).to_string())
    });
    let secrets = vec![("token".to_owned(), Sensitive::new(SECRET.to_owned()))];
    install_pc_example(&f, "mypc", port, InstallOptions { secrets, ..Default::default() }).await;
    let turn = Turn::new(Source::Voice, Place::Pc);
    let tried = f.host.try_action(turn, "mypc__get_time", serde_json::json!({}), None).await.expect("try");
    assert_eq!(tried.outcome.outcome.as_str(), "done", "{}", tried.outcome.for_ai);
    tried.outcome.for_ai
}

/// The AI's text holds `[secret]`, and neither the secret nor `spell`'s spelling of it.
async fn assert_masked(spell: fn(&str) -> String) {
    let for_ai = echoed(spell).await;
    let spelled = spell(SECRET);
    assert!(for_ai.contains("[secret]"), "{for_ai}");
    assert!(!for_ai.contains(SECRET) && !for_ai.contains(&spelled), "{spelled:?} shown in {for_ai}");
}

fn base64(bytes: &[u8], alphabet: &[u8; 64], pad: bool) -> String {
    let mut out = String::new();
    for group in bytes.chunks(3) {
        let n = group.iter().enumerate().fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..=group.len() {
            out.push(char::from(alphabet[(n >> (18 - 6 * i) & 63) as usize]));
        }
        if pad {
            out.push_str(&"=".repeat(3 - group.len()));
        }
    }
    out
}

const STANDARD: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const URL_SAFE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

fn percent(token: &str, keep: impl Fn(u8) -> bool) -> String {
    token.bytes().map(|b| if keep(b) { char::from(b).to_string() } else { format!("%{b:02X}") }).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s11_an_echo_in_base64_is_masked() {
    assert_masked(|t| base64(t.as_bytes(), STANDARD, true)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s11_an_echo_in_unpadded_base64url_is_masked() {
    assert_masked(|t| base64(t.as_bytes(), URL_SAFE, false)).await;
}

/// A Basic header echoed back: base64 of `user:token`, the user unknown to the app.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s11_an_echo_of_a_basic_pair_with_the_token_as_password_is_masked() {
    assert_masked(|t| format!("Basic {}", base64(format!("player:{t}").as_bytes(), STANDARD, true))).await;
}

/// The token as a Basic user with an empty password: base64 of `token:`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s11_an_echo_of_a_basic_pair_with_the_token_as_user_is_masked() {
    assert_masked(|t| base64(format!("{t}:").as_bytes(), STANDARD, true)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s11_an_echo_in_lower_case_hex_is_masked() {
    assert_masked(|t| t.bytes().map(|b| format!("{b:02x}")).collect()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s11_an_echo_in_upper_case_hex_is_masked() {
    assert_masked(|t| t.bytes().map(|b| format!("{b:02X}")).collect()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s11_an_echo_percent_encoded_byte_by_byte_is_masked() {
    assert_masked(|t| percent(t, |_| false)).await;
}

/// Only the reserved characters encoded, a space as `+`, as a form writes it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s11_an_echo_partly_percent_encoded_with_plus_for_spaces_is_masked() {
    assert_masked(|t| percent(t, |b| b.is_ascii_alphanumeric() || b == b' ').replace(' ', "+")).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s11_an_echo_with_named_html_references_is_masked() {
    assert_masked(|t| t.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s11_an_echo_in_decimal_html_references_is_masked() {
    assert_masked(|t| t.chars().map(|c| format!("&#{};", u32::from(c))).collect()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s11_an_echo_in_hex_html_references_is_masked() {
    assert_masked(|t| t.chars().map(|c| format!("&#x{:X};", u32::from(c))).collect()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s11_an_echo_in_upper_case_is_masked() {
    assert_masked(str::to_uppercase).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s11_an_echo_in_lower_case_is_masked() {
    assert_masked(str::to_lowercase).await;
}
