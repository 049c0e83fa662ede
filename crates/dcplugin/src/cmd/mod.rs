//! One module per command.

pub mod ai;
pub mod calls;
pub mod chat;
pub mod events;
pub mod hints;
pub mod host;
pub mod init;
// mcp writes the protocol on standard output and a startup failure on standard error.
#[allow(clippy::print_stdout, clippy::print_stderr)]
pub mod mcp;
pub mod pack;
pub mod plugins;
pub mod twitch;
pub mod validate;

use dcp_host::Version;

/// Exit code of a refused plugin (1); 0 is success and 2 a usage error.
pub const REFUSED: u8 = 1;

/// Parses `--app-version`.
pub fn parse_version(text: &str) -> Result<Version, String> {
    Version::parse(text).ok_or_else(|| format!("{text} is not a version x.y.z"))
}

/// A word as a POSIX shell reads it back: as is when it is plain, else in
/// single quotes. For the commands a hint tells to run.
pub fn shell_word(word: &str) -> String {
    let plain = !word.is_empty() && word.chars().all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}
