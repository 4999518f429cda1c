//! `--coerce`: a string where the schema asks for a boolean, an integer or a number, and that
//! is exactly `"true"`, `"false"` or a JSON number, converted before validation. The schema
//! decides where (`crate::schema`); this module converts one string by the types allowed there.

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
    /// The type it was read as: `boolean`, `integer` or `number` (for the feedback).
    #[serde(skip)]
    pub read_as: &'static str,
}

impl Coercion {
    /// Where in the answer: the pointer, `/` for the root.
    pub fn at(&self) -> &str {
        match self.pointer.as_str() {
            "" => "/",
            p => p,
        }
    }
}

/// The places of `coercions`, `, `-separated: the first `shown`, then how many more.
pub fn places(coercions: &[Coercion], shown: usize) -> String {
    let mut list: Vec<&str> = coercions.iter().take(shown).map(Coercion::at).collect();
    let more = coercions.len().saturating_sub(shown);
    let more = format!("and {more} more");
    if coercions.len() > shown {
        list.push(&more);
    }
    list.join(", ")
}

/// The types the schema allows where a string stands (a string is not among them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Wanted {
    pub boolean: bool,
    pub integer: bool,
    pub number: bool,
}

impl Wanted {
    /// Only what both allow (two `type` keywords at one place, under `allOf`): an integer is a
    /// number, so `integer` and `number` allow an integer.
    #[must_use]
    pub fn and(self, other: Wanted) -> Wanted {
        Wanted {
            boolean: self.boolean && other.boolean,
            integer: self.integer && (other.integer || other.number)
                || other.integer && self.number,
            number: self.number && other.number,
        }
    }

    /// The type `to` (a conversion of a string by `self`) was read as.
    pub fn read_as(self, to: &Value) -> &'static str {
        match to {
            Value::Bool(_) => "boolean",
            _ if self.number => "number",
            _ => "integer",
        }
    }
}

/// `s` as the boolean or number `wanted` allows, or `None`: a boolean from exactly `true` or
/// `false`; an integer from `-?(0|[1-9][0-9]*)` (no fraction, no exponent, no sign `+`); a
/// number from exactly a JSON number that is finite as a double. Nothing is trimmed; `yes`,
/// `1` for a boolean, `03`, ` 3` and `null` are never converted.
pub fn convert(s: &str, wanted: Wanted) -> Option<Value> {
    if wanted.boolean {
        match s {
            "true" => return Some(Value::Bool(true)),
            "false" => return Some(Value::Bool(false)),
            _ => {}
        }
    }
    let integral = {
        let digits = s.strip_prefix('-').unwrap_or(s);
        !digits.is_empty()
            && digits.bytes().all(|b| b.is_ascii_digit())
            && (digits == "0" || !digits.starts_with('0'))
    };
    let take = (wanted.integer && integral)
        || (wanted.number && crate::brackets::is_json_number(s.as_bytes()));
    if !take {
        return None;
    }
    // Exactly the number written (serde_json keeps its digits: `arbitrary_precision`), but not
    // one a double cannot hold (`1e400`): a reader of the answer would get infinity.
    match crate::json::from_str(s).ok()? {
        Value::Number(n) if n.as_f64().is_some_and(f64::is_finite) => Some(Value::Number(n)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{Wanted, convert};

    const BOOLEAN: Wanted = Wanted {
        boolean: true,
        integer: false,
        number: false,
    };
    const INTEGER: Wanted = Wanted {
        boolean: false,
        integer: true,
        number: false,
    };
    const NUMBER: Wanted = Wanted {
        boolean: false,
        integer: false,
        number: true,
    };

    #[test]
    fn booleans_from_exactly_true_and_false() {
        assert_eq!(convert("true", BOOLEAN), Some(json!(true)));
        assert_eq!(convert("false", BOOLEAN), Some(json!(false)));
        for s in [
            "yes", "no", "True", "FALSE", "1", "0", " true", "true ", "null", "",
        ] {
            assert_eq!(convert(s, BOOLEAN), None, "{s:?}");
        }
        // A boolean string where only a number is allowed stays a string.
        assert_eq!(convert("true", NUMBER), None);
        assert_eq!(convert("3", BOOLEAN), None);
    }

    #[test]
    fn integers_without_fraction_or_exponent() {
        assert_eq!(convert("3", INTEGER), Some(json!(3)));
        assert_eq!(convert("-42", INTEGER), Some(json!(-42)));
        assert_eq!(convert("0", INTEGER), Some(json!(0)));
        let big = "123456789012345678901234567890";
        assert_eq!(
            convert(big, INTEGER).map(|v| v.to_string()),
            Some(big.to_owned()),
            "the digits are kept"
        );
        for s in [
            "1.0", "1e3", "03", "+3", " 3", "3 ", "-", "", "0x10", "3a", "yes", "true",
        ] {
            assert_eq!(convert(s, INTEGER), None, "{s:?}");
        }
    }

    #[test]
    fn numbers_by_json_grammar_and_finite() {
        assert_eq!(convert("2.5", NUMBER), Some(json!(2.5)));
        assert_eq!(convert("-0.25", NUMBER), Some(json!(-0.25)));
        assert_eq!(convert("7", NUMBER), Some(json!(7)));
        // As sojx reads the same number in JSON.
        assert_eq!(convert("1e3", NUMBER), crate::json::from_str("1e3").ok());
        for s in [
            "1e400", "-1e400", ".5", "5.", "03", " 3", "3 ", "+1", "NaN", "Infinity", "1,5", "",
        ] {
            assert_eq!(convert(s, NUMBER), None, "{s:?}");
        }
    }

    #[test]
    fn places_name_the_root_and_cut_the_list() {
        let at = |pointer: &str| super::Coercion {
            pointer: pointer.to_owned(),
            from: "1".to_owned(),
            to: json!(1),
            read_as: "integer",
        };
        assert_eq!(super::places(&[at("")], 20), "/");
        let many = [at("/a"), at("/b~1c"), at("/d")];
        assert_eq!(super::places(&many, 3), "/a, /b~1c, /d");
        assert_eq!(super::places(&many, 2), "/a, /b~1c, and 1 more");
    }

    #[test]
    fn both_types_and_intersections() {
        let either = Wanted {
            boolean: true,
            integer: true,
            number: false,
        };
        assert_eq!(convert("true", either), Some(json!(true)));
        assert_eq!(convert("12", either), Some(json!(12)));
        assert_eq!(convert("1.5", either), None);
        // An integer is a number: `boolean|integer` and `number` allow an integer only.
        assert_eq!(either.and(NUMBER), INTEGER);
        assert_eq!(convert("12", either.and(NUMBER)), Some(json!(12)));
        assert_eq!(convert("true", either.and(NUMBER)), None);
        let any = Wanted {
            boolean: true,
            integer: true,
            number: true,
        };
        assert_eq!(any.and(INTEGER), INTEGER);
        assert_eq!(convert("1.0", any.and(INTEGER)), None);
        assert_eq!(convert("1.0", any), Some(json!(1.0)));
    }
}
