//! The one place a result becomes JSON: pretty-printed with two-space indents, fields in the
//! order the types declare them (what every `--json` has always written; tests and README
//! blocks check the bytes).

use serde::Serialize;

/// `value` as pretty JSON.
pub fn pretty<T: Serialize + ?Sized>(value: &T) -> Result<String, serde_json::Error> {
    serde_json::to_string_pretty(value)
}
