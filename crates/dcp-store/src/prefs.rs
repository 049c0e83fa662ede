//! The app switches kept in the profile: Plugins enabled, Enable tools
//! (from the Tools tab), developer mode and the player's language. A
//! change is a typed [`Switch`]; the text `KEY=VALUE` form is parsed into
//! one, and only the stored value is text (`true`/`false`, a language).
//!
//! Beside them, in the same table under `chat_*` keys, the Twitch chat's
//! settings (issue 36, [`ChatSettings`]): the channel, the prefix, the
//! pause switch and the viewers ignored. Each change is checked when it
//! is written, by dcp-twitch's rules (a Twitch login, a visible prefix),
//! and checked again when read, so a row edited by hand cannot put a line
//! break in a `JOIN`.

use crate::error::StoreError;
use crate::Store;
use dcp_format::language::Language;
use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};

/// The app switches.
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "AppSwitches"))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Prefs {
    /// The general switch of §18: off turns every plugin off at once.
    pub plugins_enabled: bool,
    /// Enable tools (Tools tab): plugins need it (§2, §18 "Tools off").
    pub tools_enabled: bool,
    /// Developer mode (§19).
    pub dev_mode: bool,
    /// The player's language, one of the languages of §10.
    pub language: Language,
}

/// The names `dcplugin prefs KEY=VALUE` accepts.
pub const PREF_KEYS: [&str; 4] = ["plugins_enabled", "tools_enabled", "dev_mode", "language"];

pub(crate) fn read(conn: &Connection) -> Result<Prefs, StoreError> {
    // One cached statement: every tool call reads the switches.
    let mut stmt = conn.prepare_cached("SELECT key, value FROM prefs")?;
    let stored: Vec<(String, String)> =
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<Result<_, _>>()?;
    let get = |key: &str| stored.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str());
    let flag = |key: &str, default: bool| get(key).map_or(default, |v| v == "true");
    Ok(Prefs {
        plugins_enabled: flag("plugins_enabled", true),
        tools_enabled: flag("tools_enabled", true),
        dev_mode: flag("dev_mode", false),
        // Only a language of §10 is written (`write`); English, the
        // fallback of every text, for a row none wrote.
        language: get("language").and_then(Language::parse).unwrap_or_default(),
    })
}

/// One app switch and its new value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Switch {
    /// Plugins enabled.
    PluginsEnabled(bool),
    /// Enable tools.
    ToolsEnabled(bool),
    /// Developer mode.
    DevMode(bool),
    /// The player's language: one of §10's, checked when it is written.
    Language(String),
}

impl Switch {
    /// `key=value` as `dcplugin prefs` and the tests write it.
    pub fn parse(key: &str, value: &str) -> Result<Switch, StoreError> {
        let flag = || match value {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(StoreError::BadValue(format!("{key} must be true or false"))),
        };
        Ok(match key {
            "plugins_enabled" => Switch::PluginsEnabled(flag()?),
            "tools_enabled" => Switch::ToolsEnabled(flag()?),
            "dev_mode" => Switch::DevMode(flag()?),
            "language" => Switch::Language(value.to_owned()),
            _ => return Err(StoreError::NoSuchName(format!("unknown pref {key} (use {})", PREF_KEYS.join(", ")))),
        })
    }

    /// Its row: the key and the value as stored.
    fn row(&self) -> (&'static str, &str) {
        let flag = |on: bool| if on { "true" } else { "false" };
        match self {
            Switch::PluginsEnabled(on) => ("plugins_enabled", flag(*on)),
            Switch::ToolsEnabled(on) => ("tools_enabled", flag(*on)),
            Switch::DevMode(on) => ("dev_mode", flag(*on)),
            Switch::Language(language) => ("language", language),
        }
    }
}

/// Sets one switch; a language that is not one of §10's is refused.
pub(crate) fn write(conn: &Connection, switch: &Switch) -> Result<(), StoreError> {
    if let Switch::Language(language) = switch {
        if Language::parse(language).is_none() {
            return Err(StoreError::BadValue(format!("language must be {}", Language::codes())));
        }
    }
    let (key, value) = switch.row();
    set_row(conn, key, value)
}

/// The Twitch chat's settings (issue 36), kept in the profile.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChatSettings {
    /// The channel the player connected, a Twitch login; none once disconnected.
    pub channel: Option<String>,
    /// What a viewer's message starts with to address the companion
    /// (dcp-twitch's `DEFAULT_PREFIX` when the player chose none).
    pub prefix: String,
    /// Chat turns paused (the chat stays connected).
    pub paused: bool,
    /// Viewers ignored: logins, lowercase, sorted.
    pub ignored: Vec<String>,
}

impl Default for ChatSettings {
    /// No channel, the default prefix, not paused, nobody ignored.
    fn default() -> Self {
        ChatSettings {
            channel: None,
            prefix: dcp_twitch::gate::DEFAULT_PREFIX.to_owned(),
            paused: false,
            ignored: Vec::new(),
        }
    }
}

/// A change of the chat's settings the player makes (the channel changes
/// by connecting and disconnecting: [`Store::set_chat_channel`]).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChatChange {
    /// A new prefix: 1 to 20 visible characters, no space.
    Prefix(String),
    /// Pauses or resumes chat turns.
    Paused(bool),
    /// Ignores a viewer (a login, any case, an optional `@`).
    Ignore(String),
    /// Stops ignoring a viewer.
    Unignore(String),
}

const CHAT_CHANNEL: &str = "chat_channel";
const CHAT_PREFIX: &str = "chat_prefix";
const CHAT_PAUSED: &str = "chat_paused";
/// The ignored logins, one space between each (a login holds none).
const CHAT_IGNORED: &str = "chat_ignored";

impl Store {
    /// The Twitch chat's settings; what is not stored, or no longer passes
    /// the checks, reads as the default.
    pub fn chat_settings(&self) -> Result<ChatSettings, StoreError> {
        let get = |key: &str| -> Result<Option<String>, StoreError> {
            let mut stmt = self.conn.prepare_cached("SELECT value FROM prefs WHERE key = ?1")?;
            Ok(stmt.query_row([key], |r| r.get(0)).optional()?)
        };
        let mut ignored: Vec<String> =
            get(CHAT_IGNORED)?.unwrap_or_default().split(' ').filter_map(|l| dcp_twitch::typed_login(l).ok()).collect();
        ignored.sort();
        ignored.dedup();
        Ok(ChatSettings {
            channel: get(CHAT_CHANNEL)?.and_then(|c| dcp_twitch::typed_login(&c).ok()),
            prefix: get(CHAT_PREFIX)?
                .and_then(|p| dcp_twitch::typed_prefix(&p))
                .unwrap_or_else(|| dcp_twitch::gate::DEFAULT_PREFIX.to_owned()),
            paused: get(CHAT_PAUSED)?.as_deref() == Some("true"),
            ignored,
        })
    }

    /// Saves the channel to connect (a Twitch login, any case, an optional
    /// leading `#`), or forgets it; returns the settings then.
    pub fn set_chat_channel(&self, channel: Option<&str>) -> Result<ChatSettings, StoreError> {
        match channel {
            Some(typed) => {
                let login = checked_login(typed, "the channel")?;
                set_row(&self.conn, CHAT_CHANNEL, &login)?;
            }
            None => {
                self.conn.execute("DELETE FROM prefs WHERE key = ?1", [CHAT_CHANNEL])?;
            }
        }
        self.chat_settings()
    }

    /// Changes one chat setting; a bad prefix or login is refused
    /// (BadValue). Returns the settings then.
    pub fn change_chat(&self, change: &ChatChange) -> Result<ChatSettings, StoreError> {
        let tx = self.write_tx()?;
        match change {
            ChatChange::Prefix(typed) => {
                let prefix = dcp_twitch::typed_prefix(typed).ok_or_else(|| {
                    StoreError::BadValue(format!(
                        "the prefix must be 1 to {} visible characters without a space",
                        dcp_twitch::gate::PREFIX_CHARS
                    ))
                })?;
                set_row(&tx, CHAT_PREFIX, &prefix)?;
            }
            ChatChange::Paused(paused) => set_row(&tx, CHAT_PAUSED, if *paused { "true" } else { "false" })?,
            ChatChange::Ignore(typed) | ChatChange::Unignore(typed) => {
                let login = checked_login(typed, "a viewer")?;
                let mut ignored = self.chat_settings()?.ignored;
                ignored.retain(|l| *l != login);
                if matches!(change, ChatChange::Ignore(_)) {
                    ignored.push(login);
                }
                set_row(&tx, CHAT_IGNORED, &ignored.join(" "))?;
            }
        }
        tx.commit()?;
        self.chat_settings()
    }
}

/// `typed` as a Twitch login, or BadValue naming `what`.
fn checked_login(typed: &str, what: &str) -> Result<String, StoreError> {
    dcp_twitch::typed_login(typed)
        .map_err(|_| StoreError::BadValue(format!("{what} must be a Twitch login: 1 to 25 letters, digits or _")))
}

fn set_row(conn: &Connection, key: &str, value: &str) -> Result<(), StoreError> {
    conn.execute(
        "INSERT INTO prefs (key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = ?2",
        params![key, value],
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_switch_is_parsed_from_its_text_form() {
        assert_eq!(Switch::parse("dev_mode", "true").ok(), Some(Switch::DevMode(true)));
        assert_eq!(Switch::parse("tools_enabled", "false").ok(), Some(Switch::ToolsEnabled(false)));
        assert_eq!(Switch::parse("language", "fr").ok(), Some(Switch::Language("fr".into())));
        assert!(matches!(Switch::parse("dev_mode", "yes"), Err(StoreError::BadValue(_))));
        assert!(matches!(Switch::parse("volume", "1"), Err(StoreError::NoSuchName(_))));
    }
}

#[cfg(test)]
mod chat_tests {
    use super::*;
    use crate::Profile;
    use std::sync::Arc;

    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().expect("temp dir");
        let profile = Profile::at(dir.path().join("profile")).expect("profile");
        let store = Store::open(profile, Arc::new(dcp_vault::testing::MemoryKeyStore::new())).expect("store");
        (dir, store)
    }

    fn refused(result: Result<ChatSettings, StoreError>) -> bool {
        matches!(result, Err(StoreError::BadValue(_)))
    }

    #[test]
    fn issue36_the_chat_settings_default_to_no_channel_ask_not_paused_nobody_ignored() {
        let (_dir, store) = store();
        let settings = store.chat_settings().expect("read");
        assert_eq!(settings, ChatSettings { channel: None, prefix: "!ask".into(), paused: false, ignored: Vec::new() });
    }

    #[test]
    fn issue36_the_channel_is_saved_as_a_login_and_forgotten() {
        let (_dir, store) = store();
        assert_eq!(
            store.set_chat_channel(Some(" #Streamer_42 ")).expect("saved").channel.as_deref(),
            Some("streamer_42")
        );
        assert_eq!(store.chat_settings().expect("read").channel.as_deref(), Some("streamer_42"));
        for bad in ["", "a b", "streamer\r\nJOIN #x", "twitch.tv/streamer", &"s".repeat(26)] {
            assert!(refused(store.set_chat_channel(Some(bad))), "{bad:?}");
        }
        assert_eq!(store.chat_settings().expect("read").channel.as_deref(), Some("streamer_42"), "kept");
        assert_eq!(store.set_chat_channel(None).expect("forgotten").channel, None);
    }

    #[test]
    fn issue36_the_prefix_pause_and_ignore_list_are_kept() {
        let (_dir, store) = store();
        assert_eq!(store.change_chat(&ChatChange::Prefix(" ?Bot ".into())).expect("prefix").prefix, "?Bot");
        for bad in ["", "? bot", "?bot\u{200b}", &"?".repeat(21)] {
            assert!(refused(store.change_chat(&ChatChange::Prefix(bad.into()))), "{bad:?}");
        }
        assert!(store.change_chat(&ChatChange::Paused(true)).expect("pause").paused);
        store.change_chat(&ChatChange::Ignore("@Zed".into())).expect("ignore");
        store.change_chat(&ChatChange::Ignore("alice".into())).expect("ignore");
        let settings = store.change_chat(&ChatChange::Ignore("ALICE".into())).expect("twice is once");
        assert_eq!(settings.ignored, ["alice", "zed"], "lowercase, sorted, once");
        assert!(refused(store.change_chat(&ChatChange::Ignore("a\nb".into()))));
        let settings = store.change_chat(&ChatChange::Unignore("Zed".into())).expect("unignore");
        assert_eq!(
            settings,
            ChatSettings { channel: None, prefix: "?Bot".into(), paused: true, ignored: vec!["alice".into()] }
        );
        assert_eq!(store.chat_settings().expect("read"), settings);
    }

    #[test]
    fn issue36_a_stored_value_edited_by_hand_reads_as_the_default() {
        let (_dir, store) = store();
        for (key, value) in
            [(CHAT_CHANNEL, "x\r\nPRIVMSG #y :hi"), (CHAT_PREFIX, "a b"), (CHAT_IGNORED, "ok bad\u{7} also_ok")]
        {
            set_row(&store.conn, key, value).expect("written");
        }
        let settings = store.chat_settings().expect("read");
        assert_eq!(settings.channel, None);
        assert_eq!(settings.prefix, "!ask");
        assert_eq!(settings.ignored, ["also_ok", "ok"]);
    }

    #[test]
    fn issue36_a_change_of_the_chat_is_parsed_from_json() {
        let change: ChatChange = serde_json::from_str(r#"{"prefix":"?q"}"#).expect("json");
        assert_eq!(change, ChatChange::Prefix("?q".into()));
        let change: ChatChange = serde_json::from_str(r#"{"paused":true}"#).expect("json");
        assert_eq!(change, ChatChange::Paused(true));
    }
}
