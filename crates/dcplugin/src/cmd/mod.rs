//! One module per command.

pub mod calls;
pub mod events;
pub mod host;
pub mod pack;
pub mod plugins;
pub mod validate;

use dcp_host::format::version::Version;

/// Exit code of a refused plugin (1); 0 is success and 2 a usage error.
pub const REFUSED: u8 = 1;

/// Parses `--app-version`.
pub fn parse_version(text: &str) -> Result<Version, String> {
    Version::parse(text).ok_or_else(|| format!("{text} is not a version x.y.z"))
}
