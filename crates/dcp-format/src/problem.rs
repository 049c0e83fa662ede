//! Problems found in a plugin: the error codes of spec §22 "At import" and
//! the one warning (superlative), each with the place it was found and a
//! message a plugin author understands.
//!
//! The validator never stops at the first problem: it collects them all in a
//! [`Problems`] list so an author fixes everything in one pass.

use serde::Serialize;
use std::fmt;

crate::spelled! {
    /// A code of §22 "At import" (plus `dev_mode_required` and
    /// `bad_folder`, which the host adds), and the `superlative` warning.
    ///
    /// The serialized form is the spec's snake_case code and is part of
    /// the public `dcplugin validate --json` contract.
    pub enum Code {
        TooLarge => "too_large",
        UnsupportedPackage => "unsupported_package",
        BadZip => "bad_zip",
        NoManifest => "no_manifest",
        ReadFailed => "read_failed",
        NotJson => "not_json",
        BadFormat => "bad_format",
        BadApiVersion => "bad_api_version",
        UnsupportedKind => "unsupported_kind",
        BadVersion => "bad_version",
        AppTooOld => "app_too_old",
        BadSlug => "bad_slug",
        ReservedSlug => "reserved_slug",
        BadText => "bad_text",
        InvisibleChars => "invisible_chars",
        Instructions => "instructions",
        UrlInText => "url_in_text",
        MentionsTool => "mentions_tool",
        BadHosts => "bad_hosts",
        BadLocalPorts => "bad_local_ports",
        LocalPortNotDeclared => "local_port_not_declared",
        DevModeRequired => "dev_mode_required",
        BadFolder => "bad_folder",
        LanUnsupported => "lan_unsupported",
        HostPermissionsUnsupported => "host_permissions_unsupported",
        NoTools => "no_tools",
        TooManyTools => "too_many_tools",
        BadToolName => "bad_tool_name",
        BadHint => "bad_hint",
        BadRisk => "bad_risk",
        RiskForbidden => "risk_forbidden",
        BadSchema => "bad_schema",
        BadRequest => "bad_request",
        HostNotDeclared => "host_not_declared",
        BadPlaceholder => "bad_placeholder",
        BadHeader => "bad_header",
        BadResponse => "bad_response",
        BadUserConfig => "bad_user_config",
        SecretNotSensitive => "secret_not_sensitive",
        BadAuth => "bad_auth",
        BadEvents => "bad_events",
        Superlative => "superlative",
    }
}

impl Code {
    /// Whether this code is a warning (the plugin installs anyway).
    pub fn is_warning(self) -> bool {
        matches!(self, Code::Superlative)
    }
}

/// One problem: its code, where it is, and what to do about it.
///
/// `path` is written relative to the `_meta["com.desktopaicompanion"]` block
/// for everything inside it (`tools.add_card.request.url`) and by their own
/// name for top-level fields (`display_name`, `user_config.api_token`).
/// Problems with the package itself use the entry name or `package`.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// The spec's code.
    pub code: Code,
    /// Where in the manifest (or package) the problem is.
    pub path: String,
    /// A sentence for the plugin author.
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = if self.path.is_empty() { "-" } else { &self.path };
        write!(f, "{}  {}  {}", self.code, path, self.message)
    }
}

/// Every problem found so far, errors and warnings apart.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Problems {
    /// Problems that refuse the plugin.
    pub errors: Vec<Problem>,
    /// Problems that let it install (§22 "Warning").
    pub warnings: Vec<Problem>,
}

impl Problems {
    /// Records a problem; warnings and errors are sorted by [`Code::is_warning`].
    pub fn push(&mut self, code: Code, path: impl Into<String>, message: impl Into<String>) {
        let problem = Problem { code, path: path.into(), message: message.into() };
        if code.is_warning() {
            self.warnings.push(problem);
        } else {
            self.errors.push(problem);
        }
    }

    /// True when no error was recorded (warnings allowed).
    pub fn is_ok(&self) -> bool {
        self.errors.is_empty()
    }

    /// How many errors have been recorded; lets a caller tell whether a
    /// sub-check added any.
    pub fn error_count(&self) -> usize {
        self.errors.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_is_snake_case_and_unique() {
        let mut seen = std::collections::HashSet::new();
        for code in Code::ALL {
            let name = code.as_str();
            assert!(name.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'), "{name}");
            assert!(seen.insert(name), "{name} twice");
            assert_eq!(serde_json::to_value(code).ok(), Some(serde_json::Value::from(name)));
        }
    }
}
