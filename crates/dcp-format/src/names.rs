//! The shape of the names a manifest gives (§5 slug, §6 tool names, §16
//! event names), written once: the validator judges manifests with them and
//! the event door judges the slug and event of a request with the same.

use crate::limits;

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
}
