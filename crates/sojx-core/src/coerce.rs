//! `--coerce`: a string where the schema asks for a boolean, an integer or a number, and that
//! is exactly `"true"`, `"false"` or a JSON number, converted before validation.

use serde::Serialize;
use serde_json::Value;

/// One conversion (the envelope's `source.coercions[]`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Coercion {
    /// Where, as a JSON Pointer into the answer.
    pub pointer: String,
    /// The string that was there.
    pub from: String,
    /// The value it became.
    pub to: Value,
}
