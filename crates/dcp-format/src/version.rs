//! Plugin and app versions: `x.y.z`, numbers only, up to 4 digits each (§5).

use std::fmt;

/// A version `x.y.z`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version(pub u16, pub u16, pub u16);

impl Version {
    /// This build's app version: the workspace's, as Cargo gives it (a
    /// part that is not a number up to 65535 fails the build).
    pub const APP: Version = Version(
        number(env!("CARGO_PKG_VERSION_MAJOR")),
        number(env!("CARGO_PKG_VERSION_MINOR")),
        number(env!("CARGO_PKG_VERSION_PATCH")),
    );

    /// Parses `x.y.z` with 1 to 4 digits in each part.
    pub fn parse(text: &str) -> Option<Version> {
        let mut parts = text.split('.');
        let mut next = || -> Option<u16> {
            let part = parts.next()?;
            let ok = (1..=4).contains(&part.len()) && part.bytes().all(|b| b.is_ascii_digit());
            ok.then(|| part.parse().ok()).flatten()
        };
        let version = Version(next()?, next()?, next()?);
        parts.next().is_none().then_some(version)
    }
}

/// `digits` as a number, at compile time.
const fn number(digits: &str) -> u16 {
    let bytes = digits.as_bytes();
    assert!(!bytes.is_empty(), "a version part is a number");
    let mut value: u32 = 0;
    let mut i = 0;
    while i < bytes.len() {
        assert!(bytes[i].is_ascii_digit(), "a version part is a number");
        value = value * 10 + (bytes[i] - b'0') as u32;
        assert!(value <= u16::MAX as u32, "a version part is at most 65535");
        i += 1;
    }
    value as u16
}

impl serde::Serialize for Version {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.0, self.1, self.2)
    }
}

#[cfg(test)]
mod tests {
    use super::Version;

    #[test]
    fn s5_versions_are_three_numbers_of_up_to_four_digits() {
        assert_eq!(Version::parse("1.0.0"), Some(Version(1, 0, 0)));
        assert_eq!(Version::parse("9999.9999.9999"), Some(Version(9999, 9999, 9999)));
        for bad in
            ["", "1", "1.0", "1.0.0.0", "10000.0.0", "1.0.0-beta", "v1.0.0", "1..0", " 1.0.0", "1.0.+1", "-1.0.0"]
        {
            assert_eq!(Version::parse(bad), None, "{bad}");
        }
        assert!(Version(1, 10, 0) > Version(1, 9, 99));
    }

    /// The app's version is the one `[workspace.package]` declares.
    #[test]
    fn the_app_version_is_the_workspace_version() {
        let manifest = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../Cargo.toml"))
            .expect("the workspace's Cargo.toml");
        let package = manifest.split("[workspace.package]").nth(1).expect("a [workspace.package] table");
        let declared = package
            .lines()
            .take_while(|line| !line.starts_with('['))
            .find_map(|line| line.strip_prefix("version = \""))
            .and_then(|rest| rest.strip_suffix('"'))
            .expect("a version");
        assert_eq!(Version::APP.to_string(), declared);
        assert_eq!(Version::parse(declared), Some(Version::APP));
    }
}
