//! Opt-in lenient decoding for a parameter: models sometimes send `"7"` for `7`. Built-in
//! tools stay strict; a tool that wants leniency names a helper here in `deserialize_with`.

use serde::Deserialize;
use serde::de::{Deserializer, Error, Unexpected};
use serde_json::Value;

/// An optional integer that may arrive as a JSON number or as a string of digits.
pub fn opt_u64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    match Option::<Value>::deserialize(d)? {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n.as_u64().map(Some).ok_or_else(|| {
            D::Error::custom(format!("expected a whole number of 0 or more, got {n}"))
        }),
        Some(Value::String(s)) => {
            s.trim().parse::<u64>().map(Some).map_err(|_| {
                D::Error::invalid_value(Unexpected::Str(&s), &"a whole number such as 7")
            })
        }
        Some(other) => Err(D::Error::custom(format!(
            "expected a whole number, got {other}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use crate::layers::decode::decode_args;

    #[derive(Debug, Deserialize)]
    struct P {
        #[serde(default, deserialize_with = "super::opt_u64")]
        n: Option<u64>,
        strict: Option<u64>,
    }

    #[test]
    fn lenient_field_takes_a_numeric_string() {
        let p: P = decode_args("t", r#"{"n": "7"}"#).unwrap();
        assert_eq!(p.n, Some(7));
        let p: P = decode_args("t", r#"{"n": 8, "strict": null}"#).unwrap();
        assert_eq!((p.n, p.strict), (Some(8), None));
        let p: P = decode_args("t", r#"{}"#).unwrap();
        assert_eq!(p.n, None);
    }

    #[test]
    fn strict_fields_stay_strict_and_errors_name_the_field() {
        let e = decode_args::<P>("t", r#"{"strict": "7"}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("field `strict`"), "{e}");
        let e = decode_args::<P>("t", r#"{"n": "seven"}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("field `n`"), "{e}");
        let e = decode_args::<P>("t", r#"{"n": 1"#).unwrap_err().to_string();
        assert!(e.contains("not valid JSON"), "{e}");
    }
}
