//! The companion plugin format, apiVersion 1, kind declarative.
//!
//! This crate owns everything that can be said about a plugin file without
//! a profile, a network or a window: reading a package (§4), validating its
//! manifest against every rule of §5–§16 and §21 with the codes of §22,
//! computing each tool's risk level (§12) and the two fingerprints the store
//! relies on. Data flows one way: bytes → [`package::Package`] →
//! [`validate`] → [`model::Plugin`].
//!
//! *Architecture invariant:* this crate does no network or database I/O;
//! the only files it reads are the package a caller names.

#![deny(missing_docs)]

pub mod changes;
pub mod codes;
pub mod fingerprint;
pub mod headers;
pub mod hosts;
pub mod language;
pub mod limits;
pub mod model;
pub mod names;
pub mod package;
pub mod place;
pub mod problem;
pub mod risk;
pub mod setting_value;
pub mod template;
pub mod text;
pub mod url_parts;
pub mod validate;
pub mod version;

pub use codes::{CallCode, EventReason, Refusal, SettingsCode, SpecCode, ToolCode};
pub use problem::{Code, Problem, Problems};
pub use validate::{check_package, validate_manifest, Options, Report};
