//! Help links come from plugin manifests: the shell opens only a link a
//! setting shown in the window declares as its `helpUrl`, and checks it
//! again as §10 does (https, a public domain, no port, no credentials), so
//! that the OS is never handed a file, a program or another scheme.

use crate::handed::Handed;
use dcp_host::{help_link, ApiError, ErrorCode, HostCode};
use url::Url;

/// The link to open, when the window was shown it and it passes §10's
/// check; else `bad_input`.
pub fn link_to_open(handed: &Handed, text: &str) -> Result<Url, ApiError> {
    handed.help_link(text)?;
    let refused = |why: String| ApiError::new(ErrorCode::Host(HostCode::BadInput), format!("{text}: {why}"));
    help_link(text).map_err(refused)?;
    Url::parse(text).map_err(|e| refused(e.to_string()))
}
