//! §24 "Why is my plugin never used?" (issue 23): what the player's next
//! typed turn is not offered, and why, as the Companion tab lists it: each
//! reason of §24's list (Enable tools off, a plugin or an action off, Needs
//! setup, kept on this PC with an online AI, live on Twitch, beyond the
//! 30-tool limit), from the offer the turn itself would get.

mod common;

use common::*;
use dcp_host::{CloudChoice, Host, InstallOptions, NotOffered, Sensitive, SwitchesPatch};
use serde_json::{json, Value};

fn left(plugin: &str, tool: Option<&str>, reason: &str) -> NotOffered {
    NotOffered { plugin: plugin.into(), tool: tool.map(Into::into), reason: reason.parse().expect("a spelled reason") }
}

/// What a typed turn of the window (where the player can confirm) is not offered, in a stable order.
async fn not_offered(host: &Host, live: bool) -> Vec<NotOffered> {
    let mut all = host.not_offered(live, true).await.expect("not offered");
    all.sort_by(|a, b| (&a.plugin, &a.tool).cmp(&(&b.plugin, &b.tool)));
    all
}

fn mine(reason: &str) -> Vec<NotOffered> {
    ["add_task", "complete_task", "list_tasks"].into_iter().map(|t| left("mytasks", Some(t), reason)).collect()
}

/// The exchange-rates example and my-tasks (kept on this PC, its token given).
async fn two_plugins(f: &Fixture) {
    install_manifest(&f.host, f.dir.path(), "fx", &example("exchange-rates"), InstallOptions::default()).await;
    let secrets = vec![("api_token".into(), Sensitive::new("tok-not-offered".into()))];
    let options = InstallOptions { secrets, cloud: Some(CloudChoice::Local), ..Default::default() };
    install_manifest(&f.host, f.dir.path(), "mytasks", &example("my-tasks"), options).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s24_each_reason_a_plugin_is_not_offered_is_listed_and_goes_when_fixed() {
    let f = fixture();
    let host = &f.host;
    two_plugins(&f).await;
    assert_eq!(not_offered(host, false).await, [], "everything is offered");

    // §12: live on Twitch, the reading action is paused, until the plugin is allowed while live.
    assert_eq!(not_offered(host, true).await, [left("mytasks", Some("list_tasks"), "stream_private")]);
    host.set_twitch("mytasks", true).await.expect("allowed while live");
    assert_eq!(not_offered(host, true).await, []);

    // §13: with an online AI, the plugin kept on this PC is left out, every action of it.
    host.set_ai(Some("https://openrouter.ai/api/v1".into()), Some("openai/gpt-4o-mini".into())).await.expect("online");
    assert_eq!(not_offered(host, false).await, mine("cloud_blocked"));
    host.set_ai(Some("http://127.0.0.1:11434/v1".into()), None).await.expect("on this PC");
    assert_eq!(not_offered(host, false).await, []);

    // A plugin off, an action off.
    host.set_enabled("fx", false).await.expect("off");
    assert_eq!(not_offered(host, false).await, [left("fx", None, "plugin_off")]);
    host.set_enabled("fx", true).await.expect("on");
    host.set_action_enabled("mytasks", "add_task", false).await.expect("action off");
    assert_eq!(not_offered(host, false).await, [left("mytasks", Some("add_task"), "plugin_off")]);
    host.set_action_enabled("mytasks", "add_task", true).await.expect("action on");

    // Needs setup: its token cleared.
    host.clear_secret("mytasks", "api_token").await.expect("cleared");
    assert_eq!(not_offered(host, false).await, [left("mytasks", None, "needs_setup")]);

    // Enable tools off: every plugin.
    host.set_switches(SwitchesPatch { tools_enabled: Some(false), ..Default::default() }).await.expect("tools off");
    assert_eq!(not_offered(host, false).await, [left("fx", None, "tools_off"), left("mytasks", None, "tools_off")]);
}

/// A serious action (§12) is offered where the player can confirm it, and
/// listed `needs_confirmation` where no one can be asked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s12_a_serious_action_is_listed_only_where_no_one_can_confirm_it() {
    let f = fixture();
    let mut manifest = example("exchange-rates");
    manifest["_meta"]["com.desktopaicompanion"]["tools"]["delete_alert"] = json!({
        "description": "Delete one of the user's rate alerts.",
        "hint": { "en": "delete a rate alert" },
        "inputSchema": { "type": "object", "properties": { "id": { "type": "string", "maxLength": 20 } }, "required": ["id"] },
        "request": { "method": "DELETE", "url": "https://api.frankfurter.dev/v1/alerts/{{id}}" }
    });
    install_manifest(&f.host, f.dir.path(), "fx", &manifest, InstallOptions::default()).await;
    assert_eq!(not_offered(&f.host, false).await, []);
    let nobody = f.host.not_offered(false, false).await.expect("not offered");
    assert_eq!(nobody, [left("fx", Some("delete_alert"), "needs_confirmation")]);
}

/// A plugin of `count` read actions, `<slug>__t01`… (the exchange-rates example's one, renamed).
fn many_tools(slug: &str, count: usize) -> Value {
    let mut manifest = example("exchange-rates");
    let block = &mut manifest["_meta"]["com.desktopaicompanion"];
    let convert = block["tools"]["convert"].clone();
    block["slug"] = json!(slug);
    block["tools"] =
        (1..=count).map(|n| (format!("t{n:02}"), convert.clone())).collect::<serde_json::Map<_, _>>().into();
    manifest["name"] = json!(format!("{slug}-rates"));
    manifest
}

/// §24: on a PC with many tools, the actions beyond the 30-tool limit are
/// listed `tool_limit`, the plugins' order deciding which.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s24_actions_beyond_the_30_tool_limit_are_listed() {
    let f = fixture();
    for slug in ["aa", "bb", "cc"] {
        install_manifest(&f.host, f.dir.path(), slug, &many_tools(slug, 15), InstallOptions::default()).await;
    }
    let all = not_offered(&f.host, false).await;
    let want: Vec<NotOffered> = (1..=15).map(|n| left("cc", Some(&format!("t{n:02}")), "tool_limit")).collect();
    assert_eq!(all, want);
}
