//! What can go wrong in the store, each failure with the spec's code where
//! §22 has one ("At import" and "When installing or saving settings").

use dcp_format::codes::{SettingsCode, SpecCode};
use dcp_format::setting_value::RefusedValue;
use dcp_format::Problems;

/// A store failure.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The package or its manifest was refused: every problem, with codes.
    #[error("the plugin is refused: {}", summary(.0))]
    Refused(Problems),
    /// Required settings are empty (`missing_settings`).
    #[error("missing_settings: fill in {}", .0.join(", "))]
    MissingSettings(Vec<String>),
    /// Values were refused (`bad_settings`), by setting, with the required
    /// settings left empty beside them: every problem at once.
    #[error("bad_settings: {}", bad_settings(refused, missing))]
    BadSettings {
        /// The refused values, by setting.
        refused: Vec<(String, RefusedValue)>,
        /// Required settings given no value (and with none kept or by default).
        missing: Vec<String>,
    },
    /// The online-AI question has no answer (`cloud_choice_required`).
    #[error("cloud_choice_required: this plugin reads your data; choose whether online AI models may use it (allow or local)")]
    CloudChoiceRequired,
    /// No credential store can protect a secret here (`vault_unavailable`).
    #[error("vault_unavailable: encryption is not available on this PC, so the secret was not saved ({0})")]
    VaultUnavailable(String),
    /// No installed plugin has this slug.
    #[error("no installed plugin is named {0}")]
    UnknownPlugin(String),
    /// No pending review has this id (cancelled, installed, or expired).
    #[error("no pending review {0} (it was installed, cancelled or cleaned up)")]
    UnknownReview(String),
    /// A name the plugin or the app does not have: a setting, an action,
    /// an event, a secret, an app switch, an official plugin.
    #[error("{0}")]
    NoSuchName(String),
    /// A value an app switch cannot take.
    #[error("{0}")]
    BadValue(String),
    /// The plugin's files cannot be read now (Missing, Invalid, Modified).
    #[error("{0}")]
    NotReadable(String),
    /// The package changed since the player reviewed it: review it again.
    #[error("{0}")]
    ReviewOutdated(String),
    /// Unexpected failure inside the store (a watcher, an upgrade, serialising).
    #[error("{0}")]
    Internal(String),
    /// A journal line could not be written (disk full, database damaged):
    /// what it records stands, the line is lost.
    #[error("journal: a call's entry could not be written ({0})")]
    JournalLost(String),
    /// The database failed.
    #[error("database: {0}")]
    Db(#[from] rusqlite::Error),
    /// A file operation failed.
    #[error("file: {0}")]
    Io(#[from] std::io::Error),
}

impl StoreError {
    /// The §22 code, where the spec has one.
    pub fn code(&self) -> Option<SpecCode> {
        let settings = match self {
            StoreError::Refused(problems) => return problems.errors.first().map(|p| SpecCode::Import(p.code)),
            StoreError::MissingSettings(_) => SettingsCode::MissingSettings,
            StoreError::BadSettings { .. } => SettingsCode::BadSettings,
            StoreError::CloudChoiceRequired => SettingsCode::CloudChoiceRequired,
            StoreError::VaultUnavailable(_) => SettingsCode::VaultUnavailable,
            _ => return None,
        };
        Some(SpecCode::Settings(settings))
    }

    pub(crate) fn refused(code: dcp_format::Code, path: &str, message: impl Into<String>) -> StoreError {
        let mut problems = Problems::default();
        problems.push(code, path, message);
        StoreError::Refused(problems)
    }
}

fn summary(problems: &Problems) -> String {
    problems.errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
}

/// The text of `bad_settings`: each refused value, then what is still empty.
fn bad_settings(refused: &[(String, RefusedValue)], missing: &[String]) -> String {
    let mut parts: Vec<String> =
        refused.iter().map(|(k, r)| format!("{k}: {} ({})", r.reason.as_str(), r.message)).collect();
    if !missing.is_empty() {
        parts.push(format!("also fill in {}", missing.join(", ")));
    }
    parts.join("; ")
}
