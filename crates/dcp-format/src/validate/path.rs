//! Where a field is in the manifest, as a problem names it:
//! `tools.add_card.request.url`, `permissions.network.hosts[0]`, or a
//! top-level field by its own name (`display_name`).
//!
//! A [`Path`] is a chain of borrowed steps, one per level the validator has
//! walked down, and becomes text only when a problem is recorded: a valid
//! manifest has thousands of fields and no problem, and writing out each
//! field's path as a `String` on the way down cost a tenth of the
//! validation of a 64 KB manifest.

use std::fmt;

/// A place in the manifest (see the module doc).
#[derive(Debug, Clone, Copy)]
pub(super) enum Path<'a> {
    /// The top level of the manifest, or of the Desktop Companion block:
    /// written as nothing.
    Top,
    /// `parent.key`, or `key` alone under [`Path::Top`]. A fixed key may
    /// hold dots itself (`permissions.network`).
    Key(&'a Path<'a>, &'a str),
    /// `parent[i]`.
    Index(&'a Path<'a>, usize),
}

impl<'a> Path<'a> {
    /// A top-level field.
    pub fn top(key: &'a str) -> Path<'a> {
        Path::Key(&Path::Top, key)
    }

    /// The field `key` of this object.
    pub fn key(&'a self, key: &'a str) -> Path<'a> {
        Path::Key(self, key)
    }

    /// The item `i` of this list.
    pub fn index(&'a self, i: usize) -> Path<'a> {
        Path::Index(self, i)
    }
}

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Path::Top => Ok(()),
            Path::Key(Path::Top, key) => f.write_str(key),
            Path::Key(parent, key) => write!(f, "{parent}.{key}"),
            Path::Index(parent, i) => write!(f, "{parent}[{i}]"),
        }
    }
}

/// A problem's place is text ([`crate::Problem::path`]).
impl From<Path<'_>> for String {
    fn from(path: Path<'_>) -> String {
        path.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::Path;

    #[test]
    fn paths_are_written_as_the_problems_name_them() {
        assert_eq!(Path::Top.to_string(), "");
        assert_eq!(Path::Top.key("description").to_string(), "description");
        let tool = Path::top("tools");
        let tool = tool.key("add_card");
        assert_eq!(tool.key("request").key("url").to_string(), "tools.add_card.request.url");
        let hosts = Path::top("permissions.network.hosts");
        assert_eq!(String::from(hosts.index(0)), "permissions.network.hosts[0]");
        assert_eq!(Path::top("auth").index(1).key("name").to_string(), "auth[1].name");
    }
}
