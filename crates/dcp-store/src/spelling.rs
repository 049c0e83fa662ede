//! Spelled enums in SQLite: stored as their one spelling (`as_str`), read
//! back strictly. A stored text this version does not spell is an error of
//! the row, never a guess (an unknown origin is not an import).

use dcp_format::codes::{NotSpelled, Spelled};
use rusqlite::types::Type;
use rusqlite::Row;

/// Column `index` of `row`, read as a `T`.
pub(crate) fn column<T: Spelled>(row: &Row, index: usize) -> rusqlite::Result<T> {
    let text: String = row.get(index)?;
    spelled(index, &text)
}

/// Column `index` of `row`, NULL or read as a `T`.
pub(crate) fn optional_column<T: Spelled>(row: &Row, index: usize) -> rusqlite::Result<Option<T>> {
    let text: Option<String> = row.get(index)?;
    text.map(|text| spelled(index, &text)).transpose()
}

fn spelled<T: Spelled>(index: usize, text: &str) -> rusqlite::Result<T> {
    T::parse(text).ok_or_else(|| rusqlite::Error::FromSqlConversionFailure(index, Type::Text, Box::new(NotSpelled)))
}
