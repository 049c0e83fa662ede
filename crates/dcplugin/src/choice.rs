//! clap's choices for a spelled enum, built from the engine's one spelling
//! table: `--source`, `--model`, `--cloud`, `cloud`, `--outcome` and
//! `--kind` offer, in its order, and parse exactly what the engine spells.

use clap::builder::{PossibleValuesParser, TypedValueParser};
use dcp_host::Spelled;

/// The parser offering every spelling of `T` and giving back a `T`.
pub fn of<T: Spelled>() -> impl TypedValueParser<Value = T> {
    // The possible values are T's own spellings, so one always parses back.
    PossibleValuesParser::new(T::ALL.iter().map(|value| value.as_str()))
        .try_map(|text| T::parse(&text).ok_or("not one of the possible values"))
}
