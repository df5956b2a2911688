//! The project a request is about: `?directory=`, else the `x-opencode-directory` header
//! (percent-encoded by opencode's SDK), else the server's `--dir`.

use std::path::PathBuf;

use axum::extract::FromRequestParts;
use axum::http::request::Parts;

use super::AppState;
use super::error::ApiFailure;

/// The request's project directory.
#[derive(Debug, Clone)]
pub struct Directory(pub PathBuf);

impl FromRequestParts<AppState> for Directory {
    type Rejection = ApiFailure;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let from_query = parts.uri.query().and_then(|q| {
            q.split('&').find_map(|pair| {
                let (k, v) = pair.split_once('=')?;
                (k == "directory").then(|| percent_decode(&v.replace('+', " ")))
            })
        });
        let from_header = || {
            parts
                .headers
                .get("x-opencode-directory")
                .and_then(|v| v.to_str().ok())
                .map(percent_decode)
        };
        let dir = from_query
            .or_else(from_header)
            .filter(|d| !d.is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(|| state.core.default_dir().to_path_buf());
        Ok(Directory(dir))
    }
}

/// Decodes `%XX` escapes (invalid ones are kept as written).
pub fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Some(b) = std::str::from_utf8(&bytes[i + 1..i + 3])
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::percent_decode;

    #[test]
    fn escapes_are_decoded_and_bad_ones_kept() {
        assert_eq!(percent_decode("%2Ftmp%2Fa%20b"), "/tmp/a b");
        assert_eq!(percent_decode("/x%zz%4"), "/x%zz%4");
        assert_eq!(percent_decode("%C3%A9"), "é");
    }
}
