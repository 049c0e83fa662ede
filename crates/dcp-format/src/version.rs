//! Plugin and app versions: `x.y.z`, numbers only, up to 4 digits each (§5).

use std::fmt;

/// A version `x.y.z`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version(pub u16, pub u16, pub u16);

impl Version {
    /// This build's app version.
    pub const APP: Version = Version(0, 1, 0);

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
        assert_eq!(
            Version::parse("9999.9999.9999"),
            Some(Version(9999, 9999, 9999))
        );
        for bad in [
            "",
            "1",
            "1.0",
            "1.0.0.0",
            "10000.0.0",
            "1.0.0-beta",
            "v1.0.0",
            "1..0",
            " 1.0.0",
            "1.0.+1",
            "-1.0.0",
        ] {
            assert_eq!(Version::parse(bad), None, "{bad}");
        }
        assert!(Version(1, 10, 0) > Version(1, 9, 99));
    }
}
