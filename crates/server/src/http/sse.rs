//! The SSE writer: `data: <json>` frames as opencode sends them, plus an `id:` line with the
//! cursor on stored events (so `Last-Event-ID` resumes), `server.connected` first and
//! `server.heartbeat` every 10 s. The stream ends when the hub drops a subscriber that fell
//! too far behind; the client reconnects with its last id.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::Response;
use futures::stream;
use strata_protocol::wire::{GlobalEnvelope, ServerEvent};
use tokio::time::{Instant, Interval, MissedTickBehavior, interval_at};

use crate::core::{Frame, Subscription};

/// Time between heartbeats.
pub const HEARTBEAT: Duration = Duration::from_secs(10);

/// Which envelope a stream writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// `/event`: `{id, type, properties}`.
    Instance,
    /// `/global/event`: `{directory?, payload: {id, type, properties}}`.
    Global,
}

/// The cursor a reconnecting client sends (`Last-Event-ID`).
pub fn last_event_id(headers: &HeaderMap) -> Option<i64> {
    headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse().ok())
}

fn encode(frame: &Frame, shape: Shape) -> Bytes {
    let json = match shape {
        Shape::Instance => serde_json::to_string(&frame.envelope),
        Shape::Global => serde_json::to_string(&GlobalEnvelope {
            directory: frame.directory.clone(),
            project: None,
            payload: frame.envelope.clone(),
        }),
    }
    .unwrap_or_default();
    let mut out = String::with_capacity(json.len() + 32);
    if let Some(cursor) = frame.cursor {
        out.push_str(&format!("id: {cursor}\n"));
    }
    out.push_str("data: ");
    out.push_str(&json);
    out.push_str("\n\n");
    Bytes::from(out)
}

struct State {
    sub: Subscription,
    shape: Shape,
    heartbeat: Interval,
    connected: bool,
}

/// The streaming response for a subscription.
pub fn response(sub: Subscription, shape: Shape) -> Response {
    let mut heartbeat = interval_at(Instant::now() + HEARTBEAT, HEARTBEAT);
    heartbeat.set_missed_tick_behavior(MissedTickBehavior::Delay);
    let state = State {
        sub,
        shape,
        heartbeat,
        connected: false,
    };
    let body = stream::unfold(state, |mut st| async move {
        if !st.connected {
            st.connected = true;
            let frame = Frame::live(None, ServerEvent::ServerConnected {});
            let bytes = encode(&frame, st.shape);
            return Some((Ok::<_, Infallible>(bytes), st));
        }
        let frame: Arc<Frame> = tokio::select! {
            frame = st.sub.next() => frame?,
            _ = st.heartbeat.tick() => Arc::new(Frame::live(None, ServerEvent::ServerHeartbeat {})),
        };
        let bytes = encode(&frame, st.shape);
        Some((Ok(bytes), st))
    });
    let mut response = Response::new(Body::from_stream(body));
    let h = response.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("no-cache, no-transform"),
    );
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    h.insert(
        "x-content-type-options",
        HeaderValue::from_static("nosniff"),
    );
    response
}
