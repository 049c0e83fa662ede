//! The app switches kept in the profile: Plugins enabled, Enable tools
//! (from the Tools tab), developer mode and the player's language. A
//! change is a typed [`Switch`]; the text `KEY=VALUE` form is parsed into
//! one, and only the stored value is text (`true`/`false`, a language).

use crate::error::StoreError;
use dcp_format::language::Language;
use rusqlite::{params, Connection};
use serde::Serialize;

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
