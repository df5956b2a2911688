//! `GET /session/:id/message`, as opencode answers it: with `?limit=N`, the newest N messages
//! (before the cursor `before=` when given), oldest first, and when older ones exist the
//! cursor for them in `X-Next-Cursor` and a `Link: <…>; rel="next"`; without a limit, every
//! message, streamed a chunk at a time so a long session is never held whole in memory.

use axum::body::{Body, Bytes};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use futures::stream;
use serde::Deserialize;

use crate::core::MessageReader;
use crate::http::AppState;
use crate::http::error::ApiFailure;

/// `?limit=&before=`: the last N messages, before a cursor from `X-Next-Cursor`.
#[derive(Debug, Default, Deserialize)]
pub struct ListQuery {
    #[serde(default)]
    pub limit: Option<usize>,
    #[serde(default)]
    pub before: Option<String>,
}

pub async fn list(
    State(s): State<AppState>,
    Path(id): Path<String>,
    Query(q): Query<ListQuery>,
) -> Result<Response, ApiFailure> {
    if q.limit.is_none() && q.before.is_none() {
        let reader = s.core.message_reader(&id)?;
        return Ok(streamed(reader));
    }
    let limit = q.limit.unwrap_or(usize::MAX);
    let core = s.core.clone();
    let page = tokio::task::spawn_blocking(move || {
        core.message_page(&id, limit, q.before.as_deref())
            .map(|page| (page, id))
    })
    .await
    .map_err(|e| ApiFailure::from(crate::core::CoreError::Internal(e.to_string())))??;
    let (page, id) = page;
    let mut response = axum::Json(page.messages).into_response();
    if let Some(cursor) = page.next {
        let h = response.headers_mut();
        let link = format!("</session/{id}/message?limit={limit}&before={cursor}>; rel=\"next\"");
        // Ids and numbers only: always a valid header value.
        if let (Ok(cursor), Ok(link)) =
            (HeaderValue::from_str(&cursor), HeaderValue::from_str(&link))
        {
            h.insert("x-next-cursor", cursor);
            h.insert(header::LINK, link);
        }
    }
    Ok(response)
}

struct Streaming {
    reader: Option<MessageReader>,
    first: bool,
}

/// The whole list, a chunk of messages read (on a blocking thread) and sent at a time.
fn streamed(reader: MessageReader) -> Response {
    let state = Streaming {
        reader: Some(reader),
        first: true,
    };
    let body = stream::unfold(state, |mut st| async move {
        let mut reader = st.reader.take()?;
        let read = tokio::task::spawn_blocking(move || {
            let chunk = reader.next_chunk_json();
            (reader, chunk)
        })
        .await;
        let (reader, chunk) = match read {
            Ok(done) => done,
            Err(e) => return Some((Err(format!("reading messages stopped: {e}")), st)),
        };
        let (bytes, more) = match chunk {
            Ok(Some(mut chunk)) => {
                // `[` before the first chunk, `,` between chunks; `]` after the last.
                chunk.insert(0, if st.first { b'[' } else { b',' });
                (Bytes::from(chunk), true)
            }
            Ok(None) if st.first => (Bytes::from_static(b"[]"), false),
            Ok(None) => (Bytes::from_static(b"]"), false),
            // Headers are sent: the answer can only be cut short, which the client sees.
            Err(e) => return Some((Err(format!("reading messages failed: {e}")), st)),
        };
        st.first = false;
        if more {
            st.reader = Some(reader);
        }
        Some((Ok::<_, String>(bytes), st))
    });
    let mut response = Response::new(Body::from_stream(body));
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}
