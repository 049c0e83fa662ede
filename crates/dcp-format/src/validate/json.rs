//! The manifest's JSON, parsed once into a small tree that borrows the
//! manifest's bytes, refusing an object that names the same key twice.
//!
//! *Why not `serde_json::Value`:* the validator reads every field once and
//! copies into the [`Plugin`](crate::model::Plugin) only what it keeps, so
//! a tree of owned strings in hash maps would be built only to be thrown
//! away: one allocation per key and per string, a hash per key. Here a
//! string is a slice of the manifest (owned only when it has an escape such
//! as `\n`) and an object is its list of entries in order: manifest objects
//! are small, so a lookup is a short scan. This keeps validation within
//! 3× the time serde_json takes just to parse the same bytes
//! (`benches/validate.rs`). Values the model keeps as JSON (an enum, a
//! default, a fixed body value) are converted with [`Value::to_json`].
//!
//! *Duplicate keys:* serde_json keeps the last of two equal keys without a
//! word, while an editor, a reviewer or another tool may show the first:
//! the same file would mean two things. Refusing duplicates keeps one
//! meaning. The check runs as each entry is read, so the error names the
//! line and column of the second one.

use serde::de::{Deserialize, Deserializer, Error, MapAccess, SeqAccess, Visitor};
use serde_json::Number;
use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;
use std::hash::{BuildHasher, RandomState};

/// A JSON value whose strings borrow the parsed bytes.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Value<'a> {
    Null,
    Bool(bool),
    Number(Number),
    String(Cow<'a, str>),
    Array(Vec<Value<'a>>),
    Object(Map<'a>),
}

/// A JSON object: its entries in order, no key twice.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Map<'a> {
    entries: Vec<(Cow<'a, str>, Value<'a>)>,
}

impl<'a> Value<'a> {
    /// Parses a whole JSON text; the error is serde_json's, with its line
    /// and column.
    pub fn parse(json: &'a [u8]) -> Result<Value<'a>, serde_json::Error> {
        serde_json::from_slice(json)
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_u64(&self) -> Option<u64> {
        self.as_number().and_then(Number::as_u64)
    }

    pub fn as_i64(&self) -> Option<i64> {
        self.as_number().and_then(Number::as_i64)
    }

    pub fn as_f64(&self) -> Option<f64> {
        self.as_number().and_then(Number::as_f64)
    }

    fn as_number(&self) -> Option<&Number> {
        match self {
            Value::Number(n) => Some(n),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Value<'a>]> {
        match self {
            Value::Array(list) => Some(list),
            _ => None,
        }
    }

    pub fn as_object(&self) -> Option<&Map<'a>> {
        match self {
            Value::Object(map) => Some(map),
            _ => None,
        }
    }

    pub fn is_string(&self) -> bool {
        matches!(self, Value::String(_))
    }

    /// The value of `key` when this is an object that has it.
    pub fn get(&self, key: &str) -> Option<&Value<'a>> {
        self.as_object()?.get(key)
    }

    /// The same value as a `serde_json::Value`, for the model.
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Value::Null => serde_json::Value::Null,
            Value::Bool(b) => serde_json::Value::Bool(*b),
            Value::Number(n) => serde_json::Value::Number(n.clone()),
            Value::String(s) => serde_json::Value::String(s.to_string()),
            Value::Array(list) => serde_json::Value::Array(list.iter().map(Value::to_json).collect()),
            Value::Object(map) => {
                serde_json::Value::Object(map.iter().map(|(k, v)| (k.to_owned(), v.to_json())).collect())
            }
        }
    }
}

/// Compact JSON, as serde_json writes it (messages quote values this way).
impl fmt::Display for Value<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.to_json().fmt(f)
    }
}

impl<'a> Map<'a> {
    pub fn get(&self, key: &str) -> Option<&Value<'a>> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// The entries in manifest order.
    pub fn iter(&self) -> Entries<'_, 'a> {
        self.into_iter()
    }

    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|(k, _)| k.as_ref())
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// The iterator over a [`Map`]'s entries.
pub(super) type Entries<'m, 'a> = std::iter::Map<
    std::slice::Iter<'m, (Cow<'a, str>, Value<'a>)>,
    fn(&'m (Cow<'a, str>, Value<'a>)) -> (&'m str, &'m Value<'a>),
>;

impl<'m, 'a> IntoIterator for &'m Map<'a> {
    type Item = (&'m str, &'m Value<'a>);
    type IntoIter = Entries<'m, 'a>;

    fn into_iter(self) -> Entries<'m, 'a> {
        self.entries.iter().map(|(k, v)| (k.as_ref(), v))
    }
}

impl<'de> Deserialize<'de> for Value<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value<'de>, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value<'de>, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value<'de>, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value<'de>, E> {
        // As serde_json::Value does: a parsed number is always finite.
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Value<'de>, E> {
        Ok(Value::String(Cow::Borrowed(v)))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value<'de>, E> {
        Ok(Value::String(Cow::Owned(v.to_owned())))
    }

    fn visit_string<E>(self, v: String) -> Result<Value<'de>, E> {
        Ok(Value::String(Cow::Owned(v)))
    }

    fn visit_unit<E>(self) -> Result<Value<'de>, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value<'de>, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Value<'de>, A::Error> {
        let mut keys = Keys::default();
        let mut entries = Vec::new();
        while let Some(Key(key)) = access.next_key()? {
            let value = access.next_value()?;
            if !keys.insert(&entries, &key) {
                return Err(A::Error::custom(format!("the key \"{key}\" appears twice in one object")));
            }
            entries.push((key, value));
        }
        Ok(Value::Object(Map { entries }))
    }
}

/// The keys of an object being read, to refuse a repeated one.
///
/// Up to [`Keys::SCAN`] entries the earlier keys are simply compared; past
/// that their hashes are indexed as well, so that a manifest with thousands
/// of keys in one object is not checked in quadratic time.
#[derive(Default)]
struct Keys {
    /// Built on the first key past [`Keys::SCAN`].
    hashes: Option<(RandomState, HashSet<u64>)>,
}

impl Keys {
    const SCAN: usize = 16;

    /// Records `key` (about to be appended to `entries`); false when an
    /// earlier entry has it.
    fn insert(&mut self, entries: &[(Cow<'_, str>, Value<'_>)], key: &str) -> bool {
        let repeated = || entries.iter().any(|(k, _)| k == key);
        if entries.len() < Self::SCAN {
            return !repeated();
        }
        let (state, hashes) = self.hashes.get_or_insert_with(|| {
            let state = RandomState::new();
            let hashes = entries.iter().map(|(k, _)| state.hash_one(k.as_ref())).collect();
            (state, hashes)
        });
        hashes.insert(state.hash_one(key)) || !repeated()
    }
}

/// An object key: borrowed unless it has an escape. (serde's own `Cow<str>`
/// always copies.)
struct Key<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match deserializer.deserialize_str(ValueVisitor)? {
            Value::String(key) => Ok(Key(key)),
            _ => Err(D::Error::custom("an object key is a string")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Value;
    use std::borrow::Cow;

    #[test]
    fn s5_duplicate_keys_are_refused_at_any_depth() {
        assert!(Value::parse(br#"{"a":1,"b":{"c":[{"d":1}]}}"#).is_ok());
        for bad in [r#"{"a":1,"a":2}"#, r#"{"x":{"url":"a","url":"b"}}"#, r#"[{"k":1,"k":1}]"#, r#"{"\u0061":1,"a":2}"#]
        {
            let err = Value::parse(bad.as_bytes()).err().map(|e| e.to_string()).unwrap_or_default();
            assert!(err.contains("appears twice"), "{bad}: {err}");
        }
    }

    #[test]
    fn s5_duplicate_keys_are_refused_in_long_objects() {
        let keys: Vec<String> = (0..100).map(|i| format!("\"k{i}\":{i}")).collect();
        let ok = format!("{{{}}}", keys.join(","));
        assert!(Value::parse(ok.as_bytes()).is_ok());
        for repeated in [0, 15, 16, 17, 99] {
            let bad = format!("{{{},\"k{repeated}\":0}}", keys.join(","));
            let err = Value::parse(bad.as_bytes()).err().map(|e| e.to_string()).unwrap_or_default();
            assert!(err.contains(&format!("\"k{repeated}\" appears twice")), "{repeated}: {err}");
        }
    }

    #[test]
    fn strings_borrow_the_bytes_unless_escaped_and_values_convert() {
        let json = br#"{"n":-1,"f":1.5,"u":18446744073709551615,"s":"\u00e9t\u00e9","b":"plain","z":null,"t":true,"l":[1,{"k":"v"}]}"#;
        let v = Value::parse(json).expect("parses");
        assert!(matches!(v.get("b"), Some(Value::String(Cow::Borrowed("plain")))));
        assert!(matches!(v.get("s"), Some(Value::String(Cow::Owned(s))) if s == "été"));
        let expected: serde_json::Value = serde_json::from_slice(json).expect("parses");
        assert_eq!(v.to_json(), expected);
        assert_eq!(v.to_string(), expected.to_string());
    }
}
