//! The fan-out task behind [`Hub`](super::hub::Hub). It takes the store's live channel in
//! order: a commit moves the point up to which stored events are read back and sent; a text
//! delta is sent once every event stored before it (its session's last, `TextDelta::gseq`)
//! has gone out, and before anything committed after it. So a client gets each text part's
//! deltas between the part's start and its completion, and never has to guess which are late.
//!
//! The fan-out never reads past the last commit it has taken from the channel, except to a store
//! end it read before taking everything waiting in the channel (after the channel lagged, and
//! before a live-only event or a new subscriber): no delta still waiting can be behind that end.

use std::sync::Arc;

use strata_agent::store::{Live, Store, TextDelta};
use strata_protocol::wire::ServerEvent;
use tokio::sync::broadcast::{self, error::RecvError, error::TryRecvError};
use tokio::sync::{mpsc, oneshot, watch};
use tokio_util::sync::CancellationToken;

use super::convert::Converter;
use super::frame::Frame;
use super::progress::Reader;

/// Stored events read per query when catching up or replaying.
pub(super) const PAGE: usize = 512;

/// Which frames a subscriber wants.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventFilter {
    /// `/global/event`: every project.
    All,
    /// `/event`: one project directory (plus the server's own frames).
    Directory(String),
}

impl EventFilter {
    pub fn wants(&self, frame: &Frame) -> bool {
        match (self, &frame.directory) {
            (EventFilter::All, _) | (_, None) => true,
            (EventFilter::Directory(d), Some(fd)) => d == fd,
        }
    }
}

pub(super) enum Command {
    Live(Box<Frame>),
    Subscribe {
        filter: EventFilter,
        queue: mpsc::Sender<Arc<Frame>>,
        reader: Arc<Reader>,
        registered: oneshot::Sender<i64>,
    },
}

pub(super) struct Client {
    pub(super) filter: EventFilter,
    pub(super) queue: mpsc::Sender<Arc<Frame>>,
    pub(super) reader: Arc<Reader>,
}

/// One thing to do for a run of live items, in order.
#[derive(Debug, PartialEq)]
enum Step {
    /// Send the stored events up to this global number.
    CatchUp(i64),
    Delta(TextDelta),
}

/// The steps for `items` taken from the live channel: commits in a row become one catch-up to
/// the last of them, and each delta comes after a catch-up to the events stored before it.
fn plan(items: Vec<Live>) -> Vec<Step> {
    let mut steps = Vec::new();
    let mut upto: Option<i64> = None;
    for item in items {
        match item {
            Live::Stored(stored) => upto = upto.max(Some(stored.gseq)),
            Live::Delta(delta) => {
                let before = upto.take().unwrap_or(0).max(delta.gseq);
                steps.push(Step::CatchUp(before));
                steps.push(Step::Delta(*delta));
            }
        }
    }
    steps.extend(upto.map(Step::CatchUp));
    steps
}

pub(super) struct Task {
    pub(super) store: Store,
    pub(super) live: broadcast::Receiver<Live>,
    pub(super) converter: Converter,
    pub(super) clients: Vec<Client>,
    /// The global number of the last stored event sent.
    pub(super) last: i64,
    pub(super) delivered: watch::Sender<i64>,
}

impl Task {
    pub(super) async fn run(
        mut self,
        mut commands: mpsc::UnboundedReceiver<Command>,
        stop: CancellationToken,
    ) {
        loop {
            tokio::select! {
                () = stop.cancelled() => break,
                item = self.live.recv() => match item {
                    Ok(item) => self.take_waiting(vec![item], None),
                    Err(RecvError::Lagged(missed)) => self.take_waiting(vec![], Some(missed)),
                    Err(RecvError::Closed) => break,
                },
                command = commands.recv() => {
                    let Some(command) = command else { break };
                    self.settle();
                    match command {
                        Command::Live(frame) => self.send(Arc::new(*frame)),
                        Command::Subscribe { filter, queue, reader, registered } => {
                            // What came before registration is the subscriber's to replay.
                            reader.pushed(self.last);
                            self.clients.push(Client { filter, queue, reader });
                            let _ = registered.send(self.last);
                        }
                    }
                }
            }
        }
    }

    /// Sends everything stored so far, and the deltas that came before it: what a live-only
    /// event or a new subscriber must come after.
    fn settle(&mut self) {
        // As after a lag: the end is read first, so no delta still waiting is behind it.
        let end = self.store.global_last().ok();
        self.take_waiting(vec![], None);
        if let Some(end) = end {
            self.catch_up_to(end);
        }
    }

    /// Takes `items` and every item waiting in the live channel, in order, and sends what
    /// they call for. `lagged`: the channel lost that many items before these.
    fn take_waiting(&mut self, mut items: Vec<Live>, mut lagged: Option<u64>) {
        let mut end = None;
        loop {
            if let Some(missed) = lagged.take() {
                // Every event committed before `end` is read had its note sent, so once the
                // notes still waiting are taken, reading up to `end` overtakes no delta.
                tracing::warn!(
                    missed,
                    "the event fan-out fell behind the store; streamed text it missed is lost"
                );
                end = end.max(self.store.global_last().ok());
            }
            match self.live.try_recv() {
                Ok(item) => items.push(item),
                Err(TryRecvError::Lagged(missed)) => lagged = Some(missed),
                Err(TryRecvError::Empty | TryRecvError::Closed) => break,
            }
        }
        for step in plan(items) {
            match step {
                Step::CatchUp(gseq) => self.catch_up_to(gseq),
                Step::Delta(delta) => self.send_delta(delta),
            }
        }
        if let Some(end) = end {
            self.catch_up_to(end);
        }
    }

    /// Sends the stored events after the last one sent, up to global number `target`.
    fn catch_up_to(&mut self, target: i64) {
        while self.last < target {
            let page = match self.store.global_events_between(self.last, target, PAGE) {
                Ok(p) => p,
                Err(e) => {
                    tracing::error!(error = %e, "the event fan-out could not read the store");
                    return;
                }
            };
            if page.is_empty() {
                // Nothing stored up to `target` is left to read.
                break;
            }
            for stored in &page {
                for frame in self.converter.frames(stored) {
                    self.send(Arc::new(frame));
                }
                self.last = stored.gseq;
            }
        }
        self.delivered.send_replace(self.last);
    }

    fn send_delta(&mut self, delta: TextDelta) {
        // A session gone from the store has nobody left to stream to.
        let Some(directory) = self.converter.directory(&delta.session_id) else {
            return;
        };
        let event = ServerEvent::PartDelta {
            session_id: delta.session_id,
            message_id: delta.message_id,
            part_id: delta.part_id,
            field: "text".into(),
            delta: delta.delta,
        };
        self.send(Arc::new(Frame::live(Some(directory), event)));
    }

    fn send(&mut self, frame: Arc<Frame>) {
        self.clients.retain(|client| {
            if !client.filter.wants(&frame) {
                return !client.queue.is_closed();
            }
            match client.queue.try_send(frame.clone()) {
                Ok(()) => {
                    if let Some(cursor) = frame.cursor {
                        client.reader.pushed(cursor);
                    }
                    true
                }
                Err(mpsc::error::TrySendError::Full(_)) => {
                    tracing::warn!("an event subscriber fell too far behind and was disconnected");
                    false
                }
                Err(mpsc::error::TrySendError::Closed(_)) => false,
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use strata_agent::store::{Event, GlobalEvent, Role, SUBSCRIBER_BUFFER};

    use super::super::hub::CLIENT_QUEUE;
    use super::super::progress::Readers;
    use super::*;

    /// A fan-out over `store` with one subscriber of everything, not yet running: the test
    /// says when it takes the channel.
    fn fan_out(store: &Store) -> (Task, mpsc::Receiver<Arc<Frame>>) {
        let live = store.subscribe();
        let last = store.global_last().unwrap();
        let (queue, frames) = mpsc::channel(CLIENT_QUEUE * 2);
        let client = Client {
            filter: EventFilter::All,
            queue,
            reader: Readers::default().add(last),
        };
        let task = Task {
            store: store.clone(),
            live,
            converter: Converter::new(store.clone()),
            clients: vec![client],
            last,
            delivered: watch::channel(last).0,
        };
        (task, frames)
    }

    /// The frames sent so far, as `cursor type text`.
    fn sent(frames: &mut mpsc::Receiver<Arc<Frame>>) -> Vec<String> {
        let mut out = Vec::new();
        while let Ok(frame) = frames.try_recv() {
            let v = serde_json::to_value(&frame.envelope).unwrap();
            let p = &v["properties"];
            let text = p["delta"].as_str().or(p["part"]["text"].as_str());
            let cursor = frame.cursor.map_or("-".into(), |c| c.to_string());
            out.push(format!(
                "{cursor} {} {}",
                v["type"].as_str().unwrap(),
                text.unwrap_or("")
            ));
        }
        out
    }

    /// A session with an assistant message, in a store in a temporary folder.
    fn session() -> (tempfile::TempDir, Store, String, String) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        let s = store.create_session(dir.path(), None).unwrap();
        let m = store
            .append_message(&s.id, Role::Assistant, json!({}))
            .unwrap();
        (dir, store, s.id, m.id)
    }

    /// A text part streamed in two deltas and completed, all committed at once.
    fn stream_part(store: &Store, sid: &str, mid: &str) {
        let text = |t: &str| json!({"type": "text", "text": t});
        let part = store.upsert_part(sid, mid, None, "text", text("")).unwrap();
        store.stream_text(sid, mid, &part.id, "Lo").unwrap();
        store.stream_text(sid, mid, &part.id, "ad").unwrap();
        store
            .upsert_part(sid, mid, Some(&part.id), "text", text("Load"))
            .unwrap();
    }

    #[test]
    fn deltas_committed_before_the_completion_go_out_before_it() {
        let (_dir, store, sid, mid) = session();
        let (mut task, mut frames) = fan_out(&store);
        // The whole part is in the store before the fan-out wakes up: reading the store to its
        // end first would send the completion ahead of the deltas.
        stream_part(&store, &sid, &mid);
        task.take_waiting(vec![], None);
        assert_eq!(
            sent(&mut frames),
            [
                "3 message.part.updated ",
                "- message.part.delta Lo",
                "- message.part.delta ad",
                "4 message.part.updated Load"
            ]
        );
    }

    #[test]
    fn after_the_channel_lagged_every_stored_event_goes_out_once_in_order() {
        let (_dir, store, sid, mid) = session();
        let (mut task, mut frames) = fan_out(&store);
        let status = json!({"sessionID": sid, "status": {"type": "busy"}});
        // More commits than the channel holds: the oldest notes are lost.
        for _ in 0..SUBSCRIBER_BUFFER + 10 {
            store
                .record_event(&sid, "session.status", status.clone())
                .unwrap();
        }
        stream_part(&store, &sid, &mid);
        task.take_waiting(vec![], None);
        let got = sent(&mut frames);
        let cursors: Vec<i64> = got
            .iter()
            .filter_map(|g| g.split(' ').next()?.parse().ok())
            .collect();
        let last = store.global_last().unwrap();
        assert_eq!(
            cursors,
            (3..=last).collect::<Vec<_>>(),
            "no gap, none twice"
        );
        assert_eq!(task.last, last);
        let tail: Vec<&str> = got.iter().rev().take(4).rev().map(String::as_str).collect();
        let (start, end) = (last - 1, last);
        assert_eq!(
            tail,
            [
                format!("{start} message.part.updated "),
                "- message.part.delta Lo".into(),
                "- message.part.delta ad".into(),
                format!("{end} message.part.updated Load"),
            ]
        );
    }

    #[test]
    fn settling_also_sends_what_another_connection_committed() {
        let (dir, store, sid, mid) = session();
        let (mut task, mut frames) = fan_out(&store);
        stream_part(&store, &sid, &mid);
        // Another connection (as another process would) commits without a note in the channel.
        let other = Store::open_in(dir.path()).unwrap();
        let idle = json!({"sessionID": sid, "status": {"type": "idle"}});
        other.record_event(&sid, "session.status", idle).unwrap();
        task.settle();
        assert_eq!(
            sent(&mut frames),
            [
                "3 message.part.updated ",
                "- message.part.delta Lo",
                "- message.part.delta ad",
                "4 message.part.updated Load",
                "5 session.status ",
                "5 session.idle "
            ]
        );
    }

    fn stored(gseq: i64) -> Live {
        Live::Stored(Box::new(GlobalEvent {
            gseq,
            event: Event {
                session_id: "ses_a".into(),
                seq: gseq,
                kind: "message.part.updated".into(),
                data: serde_json::Value::Null,
                created_ms: 1,
            },
        }))
    }

    fn delta(text: &str, gseq: i64) -> TextDelta {
        TextDelta {
            session_id: "ses_a".into(),
            message_id: "msg_a".into(),
            part_id: "prt_a".into(),
            delta: text.into(),
            seq: gseq,
            gseq,
        }
    }

    #[test]
    fn a_delta_goes_out_between_the_commits_it_came_between() {
        let items = vec![
            stored(1),
            stored(2),
            Live::Delta(Box::new(delta("Lo", 2))),
            Live::Delta(Box::new(delta("ad", 2))),
            stored(3),
        ];
        assert_eq!(
            plan(items),
            vec![
                Step::CatchUp(2),
                Step::Delta(delta("Lo", 2)),
                Step::CatchUp(2),
                Step::Delta(delta("ad", 2)),
                Step::CatchUp(3),
            ],
            "the completion (3) is read only after both deltas"
        );
    }

    #[test]
    fn a_delta_whose_commits_were_missed_first_catches_up_to_its_own_event() {
        // After a lag the commit notes before the delta are gone; its own number remains.
        assert_eq!(
            plan(vec![Live::Delta(Box::new(delta("Lo", 7))), stored(8)]),
            vec![
                Step::CatchUp(7),
                Step::Delta(delta("Lo", 7)),
                Step::CatchUp(8)
            ]
        );
        assert_eq!(plan(vec![]), vec![]);
        assert_eq!(plan(vec![stored(4), stored(3)]), vec![Step::CatchUp(4)]);
    }
}
