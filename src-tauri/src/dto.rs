//! What crosses the IPC boundary to the settings panel.
//!
//! The shapes here are a contract with `ui/main.js`:
//! `{ ok, slug, errors: [{code, path, message}], warnings: [...] }`, with
//! `code` the spec's §22 snake_case code.

use dcp_format::package::PackageError;
use dcp_format::{Problem, Report};
use serde::Serialize;

/// The outcome of validating one package, as the panel receives it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Validation {
    /// True when there is no error (warnings allowed): the plugin would import.
    pub ok: bool,
    /// The plugin's slug, when the manifest names a readable one.
    pub slug: Option<String>,
    /// Problems that refuse the plugin.
    pub errors: Vec<Problem>,
    /// Problems that let it install.
    pub warnings: Vec<Problem>,
}

impl From<Report> for Validation {
    fn from(report: Report) -> Self {
        Validation {
            ok: report.problems.is_ok(),
            slug: report.slug,
            errors: report.problems.errors,
            warnings: report.problems.warnings,
        }
    }
}

impl From<PackageError> for Validation {
    fn from(error: PackageError) -> Self {
        Validation { ok: false, slug: None, errors: vec![error.into()], warnings: Vec::new() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dcp_format::{Code, Problems};
    use serde_json::json;

    #[test]
    fn a_report_serializes_to_the_panels_shape() {
        let mut problems = Problems::default();
        problems.push(Code::BadHosts, "permissions.network.hosts[0]", "Write a host name.");
        problems.push(Code::Superlative, "description", "Say what it does.");
        let report = Report { problems, slug: Some("fx".into()), plugin: None };

        let value = serde_json::to_value(Validation::from(report)).expect("serializes");

        assert_eq!(
            value,
            json!({
                "ok": false,
                "slug": "fx",
                "errors": [{"code": "bad_hosts", "path": "permissions.network.hosts[0]", "message": "Write a host name."}],
                "warnings": [{"code": "superlative", "path": "description", "message": "Say what it does."}],
            })
        );
    }

    #[test]
    fn warnings_alone_still_import() {
        let mut problems = Problems::default();
        problems.push(Code::Superlative, "description", "Say what it does.");
        let validation = Validation::from(Report { problems, slug: Some("fx".into()), plugin: None });
        assert!(validation.ok);
        assert!(validation.errors.is_empty());
        assert_eq!(validation.warnings.len(), 1);
    }

    #[test]
    fn an_unreadable_package_is_one_error_and_no_slug() {
        let error = PackageError {
            code: Code::UnsupportedPackage,
            path: "package".into(),
            message: "Import a .json or a .zip file.".into(),
        };
        let value = serde_json::to_value(Validation::from(error)).expect("serializes");
        assert_eq!(
            value,
            json!({
                "ok": false,
                "slug": null,
                "errors": [{"code": "unsupported_package", "path": "package", "message": "Import a .json or a .zip file."}],
                "warnings": [],
            })
        );
    }
}
