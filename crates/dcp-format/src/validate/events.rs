//! Events (§16): names and titles.

use super::json::Value;
use super::{translated, type_name, unknown_keys, Path};
use crate::limits;
use crate::model::Event;
use crate::problem::{Code, Problems};

pub(super) fn check(events: Option<&Value>, tool_names: &[String], p: &mut Problems) -> Vec<Event> {
    let Some(events) = events else {
        return Vec::new();
    };
    let Value::Object(map) = events else {
        p.push(
            Code::BadEvents,
            "events",
            format!("events must be an object keyed by event name, not {}", type_name(events)),
        );
        return Vec::new();
    };
    if !limits::EVENTS.contains(&map.len()) {
        p.push(Code::BadEvents, "events", format!("{} events; 1 to 10", map.len()));
    }
    map.iter().filter_map(|(name, value)| event(name, value, tool_names, p)).collect()
}

fn event(name: &str, value: &Value, tool_names: &[String], p: &mut Problems) -> Option<Event> {
    let events = Path::top("events");
    let path = events.key(name);
    let before = p.error_count();
    if !crate::names::is_event_name(name) {
        p.push(Code::BadEvents, path, "an event name is 1 to 40 of a-z, 0-9 and _");
    } else if tool_names.iter().any(|t| t == name) {
        p.push(Code::BadEvents, path, format!("{name} is also a tool name"));
    }
    let Value::Object(map) = value else {
        p.push(Code::BadEvents, path, "an event is an object with a title");
        return None;
    };
    unknown_keys(map, &["title"], Code::BadEvents, path, p);
    let title =
        translated(map.get("title"), path.key("title"), "title", "…", limits::EVENT_TITLE_CHARS, Code::BadEvents, p);
    (p.error_count() == before).then(|| Event { name: name.to_owned(), title })
}
