//! `Body<T>`: a JSON body whose decoding errors name the field (`parts[0].text: missing
//! field`), answered as a 400 `BadRequest`. An empty body reads as `{}`. Every body the
//! document declares is an object, so any other JSON is refused (serde would otherwise read a
//! struct from an array, field by field: schemathesis found `[null, null]` accepted).

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use serde::de::DeserializeOwned;

use super::error::ApiFailure;

/// A decoded JSON body.
#[derive(Debug, Clone)]
pub struct Body<T>(pub T);

impl<S, T> FromRequest<S> for Body<T>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = ApiFailure;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let bytes = Bytes::from_request(req, state).await.map_err(|e| {
            ApiFailure::new(
                e.status(),
                "BadRequest",
                format!("the request body could not be read: {e}"),
            )
        })?;
        let text: &[u8] = if bytes.iter().all(u8::is_ascii_whitespace) {
            b"{}"
        } else {
            &bytes
        };
        if !is_object_text(text) {
            return Err(ApiFailure::bad_request(
                "body: expected a JSON object (`{…}`), as the route's schema in `GET /doc` says",
            ));
        }
        let de = &mut serde_json::Deserializer::from_slice(text);
        serde_path_to_error::deserialize(de).map(Body).map_err(|e| {
            let path = e.path().to_string();
            let field = if path == "." {
                "body".to_string()
            } else {
                path
            };
            ApiFailure::bad_request(format!("{field}: {}", e.inner()))
        })
    }
}

/// Whether the body's JSON text starts as an object (its first non-blank byte is `{`).
fn is_object_text(text: &[u8]) -> bool {
    text.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{')
}

#[cfg(test)]
mod tests {
    use super::is_object_text;

    #[test]
    fn only_an_object_is_a_body() {
        assert!(is_object_text(b" \n{\"a\":1}"));
        for other in [&b"[null, null]"[..], b"true", b"\"x\"", b"1", b""] {
            assert!(!is_object_text(other), "{other:?}");
        }
    }
}
