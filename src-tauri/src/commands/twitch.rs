//! The Tools tab's Twitch chat section (§12, issue 36): connect the player's
//! channel, disconnect, the chat's settings. Each is one [`dcp_host::Host`]
//! method (the host judges the channel, the prefix and a viewer's login);
//! what follows a connect reaches the page as `twitch` host events
//! ([`crate::forward`]), and the chat's turns reach the conversation
//! ([`super::companion::say_events`]).

use super::host;
use dcp_host::{ApiError, ChatChange, ChatStatus};
use tauri::AppHandle;

/// The chat as the host has it now.
pub async fn twitch_status(app: &AppHandle) -> Result<ChatStatus, ApiError> {
    host(app).twitch_status().await
}

/// Connects `channel` (as typed) and keeps it as the chat to connect at start; answers at once
/// (Connecting), its state follows as events.
pub async fn twitch_connect(app: &AppHandle, channel: String) -> Result<ChatStatus, ApiError> {
    host(app).twitch_connect(&channel).await
}

/// Ends the connection and forgets the channel.
pub async fn twitch_disconnect(app: &AppHandle) -> Result<ChatStatus, ApiError> {
    host(app).twitch_disconnect().await
}

/// Changes the chat's settings: each one given, in this order (the page gives one at a time).
pub async fn twitch_settings(
    app: &AppHandle,
    prefix: Option<String>,
    paused: Option<bool>,
    ignore: Option<String>,
    unignore: Option<String>,
) -> Result<ChatStatus, ApiError> {
    settings_of(&host(app), changes(prefix, paused, ignore, unignore)).await
}

/// The changes the page's arguments ask for, in the order applied.
fn changes(
    prefix: Option<String>,
    paused: Option<bool>,
    ignore: Option<String>,
    unignore: Option<String>,
) -> Vec<ChatChange> {
    let prefix = prefix.map(ChatChange::Prefix);
    let paused = paused.map(ChatChange::Paused);
    let ignore = ignore.map(ChatChange::Ignore);
    let unignore = unignore.map(ChatChange::Unignore);
    [prefix, paused, ignore, unignore].into_iter().flatten().collect()
}

/// Applies `changes` in turn; the status after the last (the status now when there is none).
async fn settings_of(host: &dcp_host::Host, changes: Vec<ChatChange>) -> Result<ChatStatus, ApiError> {
    let mut status = None;
    for change in changes {
        status = Some(host.twitch_settings(change).await?);
    }
    match status {
        Some(status) => Ok(status),
        None => host.twitch_status().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The section's settings: each change the page gives reaches the
    /// profile, a refused one changes nothing after it, none reads the status.
    #[test]
    fn each_setting_given_is_changed_in_order() {
        let dir = tempfile::tempdir().expect("profile");
        let host = crate::tests::host(dir.path());
        let status = host.block_on(settings_of(&host, changes(None, None, None, None))).expect("status");
        assert_eq!((status.settings.prefix.as_str(), status.settings.paused), ("!ask", false));

        let given = changes(Some("!q".into()), Some(true), Some("Some_Troll".into()), None);
        let status = host.block_on(settings_of(&host, given)).expect("changed");
        assert_eq!(status.settings.prefix, "!q");
        assert!(status.settings.paused);
        assert_eq!(status.settings.ignored, ["some_troll"]);

        let refused = host.block_on(settings_of(&host, changes(None, Some(false), Some("not a login".into()), None)));
        assert_eq!(refused.expect_err("not a login").code.as_str(), "bad_input");
        let status =
            host.block_on(settings_of(&host, changes(None, None, None, Some("some_troll".into())))).expect("ok");
        assert_eq!(
            (status.settings.paused, status.settings.ignored.len()),
            (false, 0),
            "applied in order until the refusal"
        );
    }
}
