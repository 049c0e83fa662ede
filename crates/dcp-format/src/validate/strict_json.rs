//! Parsing the manifest into a JSON value in one pass, refusing an object
//! that names the same key twice.
//!
//! serde_json keeps the last of two equal keys without a word, while an
//! editor, a reviewer or another tool may show the first: the same file
//! would mean two things. Refusing duplicates keeps one meaning.

use serde::de::{Deserialize, Deserializer, Error, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::fmt;

/// A JSON value whose objects have no duplicate keys.
pub(super) struct Strict(pub Value);

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(Strict(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Value, A::Error> {
        let mut map = Map::new();
        while let Some(key) = access.next_key::<String>()? {
            let Strict(value) = access.next_value()?;
            if map.contains_key(&key) {
                return Err(A::Error::custom(format!("the key \"{key}\" appears twice in one object")));
            }
            map.insert(key, value);
        }
        Ok(Value::Object(map))
    }
}

#[cfg(test)]
mod tests {
    use super::Strict;

    #[test]
    fn s5_duplicate_keys_are_refused_at_any_depth() {
        assert!(serde_json::from_str::<Strict>(r#"{"a":1,"b":{"c":[{"d":1}]}}"#).is_ok());
        for bad in [r#"{"a":1,"a":2}"#, r#"{"x":{"url":"a","url":"b"}}"#, r#"[{"k":1,"k":1}]"#] {
            let err = serde_json::from_str::<Strict>(bad).err().map(|e| e.to_string()).unwrap_or_default();
            assert!(err.contains("appears twice"), "{bad}: {err}");
        }
        let Strict(v) = serde_json::from_str(r#"{"n":-1,"f":1.5,"u":18446744073709551615,"s":"é","z":null,"t":true}"#).expect("parses");
        assert_eq!(v["u"], serde_json::json!(u64::MAX));
        assert_eq!(v["n"], serde_json::json!(-1));
    }
}
