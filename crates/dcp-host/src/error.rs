//! The one error shape at the API boundary: `{code, message, problems,
//! fields}` with a typed code, so a shell classifies a failure without
//! matching strings (as GitButler's `but-error` does). The §22 codes keep
//! their spec spelling. `fields` puts each setting's problem next to its
//! field (§18) without a window parsing the message.

use dcp_format::codes::{SettingsCode, SpecCode};
use dcp_format::setting_value::{BadSetting, RefusedValue};
use dcp_store::StoreError;
use serde::{Serialize, Serializer};

/// What went wrong, as a shell sees it. In TypeScript, the union of every
/// spelling, like the spec's codes.
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(untagged))]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    /// A package or manifest refused at import, with the §22 code of its first problem.
    Import(dcp_format::Code),
    /// A §22 code of installing or saving settings: a required setting is
    /// empty, a value is invalid, the online-AI question has no answer, a
    /// secret cannot be saved on this PC.
    Settings(SettingsCode),
    /// The companion's AI is not set, or could not be reached (issue 22).
    Ai(dcp_ai::AiCode),
    /// A failure the spec has no code for.
    Host(HostCode),
}

dcp_format::spelled! {
    /// The host's own codes, for failures the spec has no code for.
    pub enum HostCode {
        /// No installed plugin has this slug.
        UnknownPlugin => "unknown_plugin",
        /// No pending review has this id.
        UnknownReview => "unknown_review",
        /// A setting, action, event or switch the plugin or the app does not have, or a bad value for it.
        BadInput => "bad_input",
        /// The plugin's files cannot be read now (Missing, Invalid, Modified).
        PluginUnreadable => "plugin_unreadable",
        /// The package changed since its review: review it again.
        ReviewOutdated => "review_outdated",
        /// A call's journal entry could not be committed.
        JournalLost => "journal_lost",
        /// The profile's database or files failed.
        Storage => "storage",
        /// Unexpected failure inside the host.
        Internal => "internal",
    }
}

impl ErrorCode {
    /// The code as serialized.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::Import(code) => code.as_str(),
            ErrorCode::Settings(code) => code.as_str(),
            ErrorCode::Ai(code) => code.as_str(),
            ErrorCode::Host(code) => code.as_str(),
        }
    }
}

impl Serialize for ErrorCode {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// A failure of a host method.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize, thiserror::Error)]
#[error("{message}")]
pub struct ApiError {
    /// The typed code.
    pub code: ErrorCode,
    /// A sentence for a person (never a secret).
    pub message: String,
    /// For an import refusal: every problem with its code, place and message (Technical details, §19).
    /// Always sent, empty when none: a window reads `problems` without checking it is there.
    pub problems: Vec<dcp_format::Problem>,
    /// For `missing_settings` and `bad_settings`: every setting concerned,
    /// each with its own code, so a window shows each problem next to its
    /// field. Always sent, empty when none.
    pub fields: Vec<FieldProblem>,
}

/// One setting's problem in a failed install or save (§10, §18, §22).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FieldProblem {
    /// The setting's key.
    pub key: String,
    /// `missing_settings` for an empty required setting, else the reason of
    /// `bad_settings`: `bad_type`, `out_of_bounds`, `bad_text`,
    /// `bad_format`, `empty` or `unknown_setting`.
    pub code: FieldCode,
    /// A sentence for the player (never a secret's value).
    pub message: String,
}

/// A field problem's code: a §22 settings code, or the reason `bad_settings`
/// gives for this field. Serialized as its spelling.
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(untagged))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum FieldCode {
    /// `missing_settings`.
    Settings(SettingsCode),
    /// A reason of `bad_settings`.
    Refused(BadSetting),
}

impl FieldCode {
    /// The code as serialized.
    pub fn as_str(self) -> &'static str {
        match self {
            FieldCode::Settings(code) => code.as_str(),
            FieldCode::Refused(reason) => reason.as_str(),
        }
    }
}

impl FieldProblem {
    fn missing(key: &str) -> FieldProblem {
        FieldProblem {
            key: key.to_owned(),
            code: FieldCode::Settings(SettingsCode::MissingSettings),
            message: format!("{key} is required: fill it in"),
        }
    }

    fn refused(key: &str, refused: &RefusedValue) -> FieldProblem {
        FieldProblem { key: key.to_owned(), code: FieldCode::Refused(refused.reason), message: refused.message.clone() }
    }
}

impl ApiError {
    /// An error with no problem list.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ApiError {
        ApiError { code, message: message.into(), problems: Vec::new(), fields: Vec::new() }
    }

    /// The spec's §22 code, where the failure has one (what `dcplugin --json` prints as `code`).
    pub fn spec_code(&self) -> Option<SpecCode> {
        match self.code {
            ErrorCode::Import(code) => Some(SpecCode::Import(code)),
            ErrorCode::Settings(code) => Some(SpecCode::Settings(code)),
            _ => None,
        }
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> ApiError {
        let message = e.to_string();
        let code = match &e {
            StoreError::Refused(problems) => {
                let code =
                    problems.errors.first().map_or(ErrorCode::Host(HostCode::Internal), |p| ErrorCode::Import(p.code));
                return ApiError { problems: problems.errors.clone(), ..ApiError::new(code, message) };
            }
            StoreError::MissingSettings(keys) => {
                let fields = keys.iter().map(|k| FieldProblem::missing(k)).collect();
                return ApiError {
                    fields,
                    ..ApiError::new(ErrorCode::Settings(SettingsCode::MissingSettings), message)
                };
            }
            StoreError::BadSettings { refused, missing } => {
                let refused = refused.iter().map(|(k, r)| FieldProblem::refused(k, r));
                let fields = refused.chain(missing.iter().map(|k| FieldProblem::missing(k))).collect();
                return ApiError { fields, ..ApiError::new(ErrorCode::Settings(SettingsCode::BadSettings), message) };
            }
            StoreError::CloudChoiceRequired => ErrorCode::Settings(SettingsCode::CloudChoiceRequired),
            StoreError::VaultUnavailable(_) => ErrorCode::Settings(SettingsCode::VaultUnavailable),
            StoreError::UnknownPlugin(_) => ErrorCode::Host(HostCode::UnknownPlugin),
            StoreError::UnknownReview(_) => ErrorCode::Host(HostCode::UnknownReview),
            StoreError::NoSuchName(_) | StoreError::BadValue(_) => ErrorCode::Host(HostCode::BadInput),
            StoreError::NotReadable(_) => ErrorCode::Host(HostCode::PluginUnreadable),
            StoreError::ReviewOutdated(_) => ErrorCode::Host(HostCode::ReviewOutdated),
            StoreError::Internal(_) => ErrorCode::Host(HostCode::Internal),
            StoreError::JournalLost(_) => ErrorCode::Host(HostCode::JournalLost),
            StoreError::Db(_) | StoreError::Io(_) => ErrorCode::Host(HostCode::Storage),
        };
        ApiError::new(code, message)
    }
}

impl From<dcp_ai::AiError> for ApiError {
    fn from(e: dcp_ai::AiError) -> ApiError {
        ApiError::new(ErrorCode::Ai(e.ai_code()), e.to_string())
    }
}

/// A host method's result.
pub type ApiResult<T> = Result<T, ApiError>;
