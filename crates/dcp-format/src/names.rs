//! The shape of the names a manifest gives (§5 slug, §6 tool names, §16
//! event names), written once: the validator judges manifests with them and
//! the event door judges the slug and event of a request with the same.
//! [`ToolRef`] is the full tool name `<slug>__<tool>`: the only place that
//! joins or splits one.

use crate::codes::CallCode;
use crate::limits;
use std::fmt;
use std::str::FromStr;

/// A slug (§5): 2 to 20 of a-z and 0-9.
pub fn is_slug(name: &str) -> bool {
    limits::SLUG_CHARS.contains(&name.len()) && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
}

/// A tool name (§6): 1 to 40 of a-z, 0-9 and _.
pub fn is_tool_name(name: &str) -> bool {
    snake(name, limits::TOOL_NAME_CHARS)
}

/// An event name (§16): 1 to 40 of a-z, 0-9 and _.
pub fn is_event_name(name: &str) -> bool {
    snake(name, limits::EVENT_NAME_CHARS)
}

/// What joins a slug and a tool name into the name the AI sees (§6).
const SEPARATOR: &str = "__";

/// A tool's full name, `<slug>__<tool>` (§6), for example `fx__convert`:
/// the name the AI sees and calls. Its slug is a slug and its tool a tool
/// name, so it is at most 62 characters, within §6's 64. Serialized as the
/// full name.
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(type = "string"))]
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ToolRef {
    full: String,
    /// Where the separator starts: the slug's length.
    split: usize,
}

/// Text that is not a `<slug>__<tool>` name: the AI asked for a tool that
/// cannot exist (§22 UNKNOWN_TOOL).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotAToolRef;

impl NotAToolRef {
    /// The §22 code of a call naming it.
    pub fn code(&self) -> CallCode {
        CallCode::UnknownTool
    }
}

impl fmt::Display for NotAToolRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a tool is named <slug>__<tool>: a slug of 2 to 20 of a-z and 0-9, a tool name of 1 to 40 of a-z, 0-9 and _")
    }
}

impl std::error::Error for NotAToolRef {}

impl ToolRef {
    /// The tool `tool` of the plugin `slug`.
    pub fn new(slug: &str, tool: &str) -> Result<ToolRef, NotAToolRef> {
        if !is_slug(slug) || !is_tool_name(tool) {
            return Err(NotAToolRef);
        }
        Ok(ToolRef { full: format!("{slug}{SEPARATOR}{tool}"), split: slug.len() })
    }

    /// The plugin's slug.
    pub fn slug(&self) -> &str {
        &self.full[..self.split]
    }

    /// The tool's name in its manifest (the key under `tools`).
    pub fn tool(&self) -> &str {
        &self.full[self.split + SEPARATOR.len()..]
    }

    /// The full name, `<slug>__<tool>`.
    pub fn as_str(&self) -> &str {
        &self.full
    }
}

impl FromStr for ToolRef {
    type Err = NotAToolRef;

    /// A slug has no `_`, so the first `__` ends it; the tool name may hold
    /// `__` of its own.
    fn from_str(full: &str) -> Result<ToolRef, NotAToolRef> {
        let (slug, tool) = full.split_once(SEPARATOR).ok_or(NotAToolRef)?;
        ToolRef::new(slug, tool)
    }
}

impl TryFrom<&str> for ToolRef {
    type Error = NotAToolRef;

    fn try_from(full: &str) -> Result<ToolRef, NotAToolRef> {
        full.parse()
    }
}

impl fmt::Display for ToolRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.full)
    }
}

impl PartialEq<str> for ToolRef {
    fn eq(&self, other: &str) -> bool {
        self.full == other
    }
}

impl PartialEq<String> for ToolRef {
    fn eq(&self, other: &String) -> bool {
        self.full == *other
    }
}

impl PartialEq<&str> for ToolRef {
    fn eq(&self, other: &&str) -> bool {
        self.full == *other
    }
}

impl serde::Serialize for ToolRef {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.full)
    }
}

impl<'de> serde::Deserialize<'de> for ToolRef {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<str> as serde::Deserialize>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

fn snake(name: &str, longest: usize) -> bool {
    (1..=longest).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s21_name_shapes() {
        assert!(is_slug("fx") && is_slug(&"a".repeat(20)) && !is_slug("f") && !is_slug(&"a".repeat(21)));
        assert!(!is_slug("my_fx") && !is_slug("Fx"));
        assert!(is_tool_name("list_tasks") && !is_tool_name("") && !is_tool_name(&"a".repeat(41)));
        assert!(is_event_name("focus_done") && !is_event_name("focus-done"));
    }

    #[test]
    fn s6_a_tool_ref_splits_at_the_first_separator_and_prints_back() {
        let fx: ToolRef = "fx__convert".parse().expect("valid");
        assert_eq!((fx.slug(), fx.tool(), fx.to_string().as_str()), ("fx", "convert", "fx__convert"));
        // The slug has no `_`: a tool name may hold `__` of its own.
        let deep: ToolRef = "fx__to__eur".parse().expect("valid");
        assert_eq!((deep.slug(), deep.tool()), ("fx", "to__eur"));
        assert_eq!(ToolRef::new("fx", "to__eur").expect("valid"), deep);
        let longest = ToolRef::new(&"a".repeat(20), &"b".repeat(40)).expect("valid");
        assert!(longest.as_str().len() <= limits::FULL_TOOL_NAME_CHARS);
    }

    #[test]
    fn s22_what_is_not_a_tool_ref_is_an_unknown_tool() {
        for bad in
            ["fx", "fx__", "__convert", "f__convert", "Fx__convert", "my_fx__convert", "fx__Convert", "fx_convert", ""]
        {
            let refused = bad.parse::<ToolRef>().expect_err("refused");
            assert_eq!(refused.code(), CallCode::UnknownTool, "{bad}");
        }
        assert_eq!(ToolRef::new("fx", &"a".repeat(41)).expect_err("refused").code(), CallCode::UnknownTool);
    }

    #[test]
    fn a_tool_ref_is_its_full_name_in_json() {
        let fx = ToolRef::new("fx", "convert").expect("valid");
        assert_eq!(serde_json::to_string(&fx).expect("valid"), "\"fx__convert\"");
        assert_eq!(serde_json::from_str::<ToolRef>("\"fx__convert\"").expect("valid"), fx);
        let refused = serde_json::from_str::<ToolRef>("\"fx\"").expect_err("refused");
        assert_eq!(refused.classify(), serde_json::error::Category::Data);
    }
}
