//! A tool's `response` (§9): `pick` paths and `maxChars`.

use super::json::Value;
use super::{unknown_keys, Path};
use crate::limits;
use crate::model::{PickPath, Response};
use crate::problem::{Code, Problems};

pub(super) fn check(response: Option<&Value>, path: Path, p: &mut Problems) -> Option<Response> {
    let mut out = Response { pick: Vec::new(), max_chars: limits::DEFAULT_MAX_CHARS };
    let Some(response) = response else {
        return Some(out);
    };
    let before = p.error_count();
    let Value::Object(map) = response else {
        p.push(Code::BadResponse, path, "response must be an object with pick and maxChars");
        return None;
    };
    unknown_keys(map, &["pick", "maxChars"], Code::BadResponse, path, p);
    if let Some(max) = map.get("maxChars") {
        match max.as_u64().filter(|n| limits::MAX_CHARS.contains(n)) {
            Some(n) => out.max_chars = n,
            None => {
                p.push(Code::BadResponse, path.key("maxChars"), "maxChars must be a whole number from 200 to 16000")
            }
        }
    }
    if let Some(pick) = map.get("pick") {
        out.pick = picks(pick, path.key("pick"), p);
    }
    (p.error_count() == before).then_some(out)
}

fn picks(value: &Value, path: Path, p: &mut Problems) -> Vec<PickPath> {
    let list = value.as_array().filter(|l| (1..=limits::PICK_PATHS).contains(&l.len()));
    let Some(list) = list else {
        p.push(Code::BadResponse, path, "pick must be a list of 1 to 10 paths (leave it out to keep the whole answer)");
        return Vec::new();
    };
    let mut out: Vec<PickPath> = Vec::new();
    for (i, item) in list.iter().enumerate() {
        let item_path = path.index(i);
        match item.as_str().ok_or_else(|| "a path is text".to_owned()).and_then(parse) {
            Ok(pick) if out.iter().any(|o| o.raw == pick.raw) => {
                p.push(Code::BadResponse, item_path, format!("{} is listed twice", pick.raw))
            }
            Ok(pick) => out.push(pick),
            Err(why) => p.push(Code::BadResponse, item_path, why),
        }
    }
    out
}

/// Parses `a.b.c` or `list[].a.b` (§9): names separated by dots, at most one
/// `[]`, which needs a name before it.
fn parse(raw: &str) -> Result<PickPath, String> {
    let names = |part: &str| -> Result<Vec<String>, String> {
        part.split('.')
            .map(|name| {
                let ok = !name.is_empty()
                    && name
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'$' || b == b'@');
                ok.then(|| name.to_owned()).ok_or_else(|| format!("\"{raw}\" is not a path of names separated by dots"))
            })
            .collect()
    };
    match raw.split_once("[]") {
        None => Ok(PickPath { raw: raw.to_owned(), head: names(raw)?, item: None }),
        Some((_, after)) if after.contains("[]") => Err(format!("\"{raw}\" has more than one []")),
        Some(("", _)) => Err(format!(
            "\"{raw}\": pick needs a name before [] (an answer that is a list at the top level cannot be picked)"
        )),
        Some((head, "")) => Ok(PickPath { raw: raw.to_owned(), head: names(head)?, item: Some(Vec::new()) }),
        Some((head, after)) => {
            let rest = after.strip_prefix('.').ok_or_else(|| format!("\"{raw}\": write a dot after []"))?;
            Ok(PickPath { raw: raw.to_owned(), head: names(head)?, item: Some(names(rest)?) })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn s9_pick_paths() {
        let p = parse("results[].due.date").expect("valid");
        assert_eq!((p.head, p.item), (vec!["results".to_owned()], Some(vec!["due".to_owned(), "date".to_owned()])));
        assert_eq!(parse("rates").expect("valid").head, vec!["rates".to_owned()]);
        assert_eq!(parse("hits[]").expect("valid").item, Some(Vec::new()));
        for bad in ["", "[].id", "a[].b[].c", "a..b", "a.", "a[]b", "a b", "a[0].b"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
