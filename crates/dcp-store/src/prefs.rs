//! The app switches kept in the profile: Plugins enabled, Enable tools
//! (from the Tools tab), developer mode and the player's language.

use crate::error::StoreError;
use rusqlite::{params, Connection};
use serde::Serialize;

/// The app switches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Prefs {
    /// The general switch of §18: off turns every plugin off at once.
    pub plugins_enabled: bool,
    /// Enable tools (Tools tab): plugins need it (§2, §18 "Tools off").
    pub tools_enabled: bool,
    /// Developer mode (§19).
    pub dev_mode: bool,
    /// The player's language, one of the languages of §10.
    pub language: String,
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
        language: get("language").unwrap_or("en").to_owned(),
    })
}

/// Sets one switch, checking its value.
pub(crate) fn write(conn: &Connection, key: &str, value: &str) -> Result<(), StoreError> {
    let ok = match key {
        "plugins_enabled" | "tools_enabled" | "dev_mode" => value == "true" || value == "false",
        "language" => dcp_format::model::LANGUAGES.contains(&value),
        _ => return Err(StoreError::NoSuchName(format!("unknown pref {key} (use {})", PREF_KEYS.join(", ")))),
    };
    if !ok {
        let expected = if key == "language" { dcp_format::model::LANGUAGES.join(", ") } else { "true or false".into() };
        return Err(StoreError::BadValue(format!("{key} must be {expected}")));
    }
    conn.execute(
        "INSERT INTO prefs (key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = ?2",
        params![key, value],
    )?;
    Ok(())
}
