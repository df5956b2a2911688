//! Load: 50 sessions each run a scripted 5-step turn at the same time while 20 clients read
//! `/global/event` over real HTTP on 127.0.0.1. Every client must get every stored event of
//! every session exactly once, in the store's order, with gapless per-session `seq`s, and the
//! same live items in the same order as every other client; and each answer streamed whole,
//! every delta before its part's completion. Timings are not asserted here:
//! `bench/serve_load.sh` measures them (see `load_bench`).

use std::time::{Duration, Instant};

use strata_protocol::wire::GlobalEnvelope;
use strata_server::core::convert::Converter;

use super::fixture::{Server, server};
use super::load_deltas;
use super::load_drive::{self, STEPS, Target};

const SESSIONS: usize = 50;
const CLIENTS: usize = 20;
/// Generous: a debug build on two shared cores.
const LIMIT: Duration = Duration::from_secs(120);

/// A server on a loopback listener, its serving task and the load's target.
async fn serve() -> (Server, tokio::task::JoinHandle<std::io::Result<()>>, Target) {
    let s = server(vec![])
        .file("a.txt", "hello\n")
        .file("b.txt", "world\n")
        .start()
        .await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let app = s.app.clone();
    let serving = tokio::spawn(async move { axum::serve(listener, app).await });
    let target = Target {
        url,
        dir: s.dir.to_string_lossy().into_owned(),
        model: (
            super::fixture::MODEL.0.to_string(),
            super::fixture::MODEL.1.to_string(),
        ),
    };
    (s, serving, target)
}

/// A load small enough for every CI run: each client must get every answer streamed whole,
/// each delta before its part's completion and in order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_turns_stream_every_delta_before_its_part_completes_at_five_clients() {
    let (s, serving, target) = serve().await;
    let _asked = load_drive::script(&s.model);
    let run = load_drive::run(&target, 10, 5, LIMIT).await;
    load_drive::same_everywhere(&run).unwrap();
    if let Err(e) = load_deltas::check_streaming(&run) {
        panic!("{e} ({:?})", load_deltas::streaming(&run));
    }
    serving.abort();
    s.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_turns_reach_twenty_clients_complete_and_in_order() {
    let (s, serving, target) = serve().await;
    let asked = load_drive::script(&s.model);
    let began = Instant::now();
    let run = load_drive::run(&target, SESSIONS, CLIENTS, LIMIT).await;
    let f = load_drive::figures(&run, &s.model.ends(), &asked.lock().unwrap());
    eprintln!(
        "load: {SESSIONS} turns, {CLIENTS} clients, {:?} ({:.1} turns/s, {} items each; not asserted)",
        began.elapsed(),
        f.turns_per_second,
        f.items
    );
    let streamed = load_deltas::streaming(&run);
    eprintln!(
        "load: {:.2}% of the deltas before their part's completion ({streamed:?})",
        streamed.share() * 100.0
    );

    load_drive::same_everywhere(&run).unwrap();
    load_drive::check_sessions(&target, &run).await.unwrap();
    assert_eq!(
        asked.lock().unwrap().len(),
        SESSIONS * STEPS,
        "one model request per step"
    );

    // The stored items each client got are exactly the store's events, converted, in order.
    let store = s.core.store();
    let mut converter = Converter::new(store.clone());
    let expected: Vec<(i64, String)> = store
        .global_events_after(0, usize::MAX >> 1)
        .unwrap()
        .iter()
        .flat_map(|stored| converter.frames(stored))
        .map(|f| {
            let envelope = GlobalEnvelope {
                directory: f.directory,
                project: None,
                payload: f.envelope,
            };
            (f.cursor.unwrap(), serde_json::to_string(&envelope).unwrap())
        })
        .collect();
    let got: Vec<(i64, String)> = run.clients[0]
        .iter()
        .filter_map(|g| g.cursor.map(|c| (c, g.raw.clone())))
        .collect();
    assert_eq!(
        got.len(),
        expected.len(),
        "stored items delivered vs in the store"
    );
    if let Some(n) = (0..got.len()).find(|&n| got[n] != expected[n]) {
        panic!("item {n}: got {:?}, stored {:?}", got[n], expected[n]);
    }
    // Cursors never go back; each session's seqs run 1, 2, 3, … without a gap.
    let mut last_cursor = 0;
    let mut seqs: std::collections::HashMap<String, i64> = Default::default();
    for g in run.clients[0].iter() {
        let Some(cursor) = g.cursor else {
            assert!(g.payload.get("seq").is_none(), "{}", g.raw);
            continue;
        };
        assert!(cursor >= last_cursor, "cursor {cursor} after {last_cursor}");
        let seq = g.payload["seq"].as_i64().unwrap();
        let sid = g.session().unwrap().to_string();
        let prev = seqs.entry(sid).or_insert(0);
        // Two items of one stored event (`session.status` idle and `session.idle`) share it.
        let repeat = cursor == last_cursor && seq == *prev;
        assert!(
            repeat || seq == *prev + 1,
            "{}: seq {seq} after {prev}",
            g.raw
        );
        *prev = seq;
        last_cursor = cursor;
    }
    assert_eq!(seqs.len(), SESSIONS);
    // Each answer streamed whole at every client, every delta before its part's completion.
    load_deltas::check_streaming(&run).unwrap();
    serving.abort();
    s.shutdown().await;
}
