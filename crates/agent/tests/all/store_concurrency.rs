//! Writers on separate connections (as two processes would be) share one gap-free sequence.

use std::path::Path;
use std::sync::{Arc, Barrier};

use serde_json::json;
use strata_agent::store::{Role, Store};

#[test]
fn concurrent_writers_on_two_connections_get_gap_free_sequences() {
    const PER_WRITER: usize = 60;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("strata.db");
    let first = Store::open(&path).unwrap();
    let s = first.create_session(Path::new("/p"), None).unwrap();
    let other = first.create_session(Path::new("/p"), None).unwrap();
    let start = Arc::new(Barrier::new(2));

    let writers: Vec<_> = (0..2)
        .map(|w| {
            let path = path.clone();
            let sid = s.id.clone();
            let other_id = other.id.clone();
            let start = start.clone();
            std::thread::spawn(move || {
                // Each thread has its own connection.
                let store = Store::open(&path).unwrap();
                start.wait();
                let mut seqs = Vec::new();
                for i in 0..PER_WRITER {
                    match i % 3 {
                        0 => {
                            let m = store
                                .append_message(&sid, Role::User, json!({"w": w, "i": i}))
                                .unwrap();
                            store
                                .upsert_part(&sid, &m.id, None, "text", json!({"i": i}))
                                .unwrap();
                        }
                        1 => seqs.push(
                            store
                                .record_event(&sid, "writer.tick", json!({"w": w, "i": i}))
                                .unwrap()
                                .seq,
                        ),
                        _ => {
                            store
                                .record_event(&other_id, "writer.tick", json!({}))
                                .unwrap();
                        }
                    }
                }
                seqs
            })
        })
        .collect();
    let mut tick_seqs: Vec<i64> = writers
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect();

    let events = first.events_since(&s.id, 0).unwrap();
    let seqs: Vec<i64> = events.iter().map(|e| e.seq).collect();
    // Per writer: 20 messages × 2 events + 20 ticks, plus the creation event.
    let expected = 1 + 2 * (PER_WRITER / 3 * 3);
    assert_eq!(seqs, (1..=expected as i64).collect::<Vec<_>>());
    tick_seqs.sort_unstable();
    tick_seqs.dedup();
    assert_eq!(
        tick_seqs.len(),
        2 * PER_WRITER / 3,
        "returned seqs are unique"
    );

    let other_seqs: Vec<i64> = first
        .events_since(&other.id, 0)
        .unwrap()
        .iter()
        .map(|e| e.seq)
        .collect();
    assert_eq!(
        other_seqs,
        (1..=(1 + 2 * PER_WRITER / 3) as i64).collect::<Vec<_>>(),
        "each session counts on its own"
    );

    let messages = first.messages(&s.id).unwrap();
    assert_eq!(messages.len(), 2 * PER_WRITER / 3);
    assert!(
        messages
            .iter()
            .all(|(_, parts)| parts.len() == 1 && parts[0].seq == 1)
    );
}

#[test]
fn integrity_check_passes_a_sound_file_and_fails_a_broken_one_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("strata.db");
    let store = Store::open(&path).unwrap();
    let s = store.create_session(Path::new("/p"), None).unwrap();
    for i in 0..400 {
        store
            .append_message(&s.id, Role::User, json!({"text": "x".repeat(200), "i": i}))
            .unwrap();
    }
    assert_eq!(store.integrity_check().unwrap(), Vec::<String>::new());
    drop(store);

    // Zero the last page: a table's leaf that the b-tree still points at.
    let mut bytes = std::fs::read(&path).unwrap();
    let page = u16::from_be_bytes([bytes[16], bytes[17]]) as usize;
    let last = bytes.len() - page;
    bytes[last..].fill(0);
    std::fs::write(&path, &bytes).unwrap();
    let problems = match Store::open(&path) {
        Ok(store) => store
            .integrity_check()
            .unwrap_or_else(|e| vec![e.to_string()]),
        Err(e) => vec![e.to_string()],
    };
    eprintln!("{problems:?}");
    assert!(!problems.is_empty(), "a zeroed page went unnoticed");
}
