//! The interpreter alone (no services): results, the tool bridge, limits, cancellation and
//! confinement.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use super::script::{Entry, Finder, Host, Limits, Outcome, run};

fn entries() -> Vec<Entry> {
    vec![
        ("srv".into(), "echo".into(), "srv_echo".into()),
        (String::new(), "read".into(), "read".into()),
    ]
}

fn finder() -> Finder {
    Box::new(|q: &str| serde_json::json!([{"call": format!("tools.srv.{q}")}]).to_string())
}

fn echo_host() -> Host {
    Box::new(|id: &str, input: String| {
        if input.contains("boom") {
            Err(format!("{id} failed"))
        } else {
            Ok(format!("{id} got {input}"))
        }
    })
}

fn go(code: &str, limits: Limits) -> (Outcome, Vec<String>) {
    let mut logs = Vec::new();
    let out = run(
        code,
        &entries(),
        (echo_host(), finder()),
        limits,
        Arc::new(AtomicBool::new(false)),
        &mut logs,
    );
    (out, logs)
}

#[test]
fn values_come_back_as_text_json_or_undefined_with_logs() {
    let d = Limits::default();
    assert_eq!(go("return 'plain'", d).0, Outcome::Done("plain".into()));
    assert_eq!(
        go("return {a: [1]}", d).0,
        Outcome::Done("{\n  \"a\": [\n    1\n  ]\n}".into())
    );
    let (out, logs) = go("console.log('x', {y: 1}); const z = await 2;", d);
    assert_eq!(out, Outcome::Done("undefined".into()));
    assert_eq!(logs, ["x {\"y\":1}"]);
}

#[test]
fn tools_are_called_through_the_host_and_errors_can_be_caught() {
    let d = Limits::default();
    let (out, _) = go("return await tools.srv.echo({message: 'hi'})", d);
    assert_eq!(
        out,
        Outcome::Done("srv_echo got {\"message\":\"hi\"}".into())
    );
    let code = "try { tools.srv.echo({boom: 1}); } catch (e) { return 'caught: ' + e.message }";
    assert_eq!(
        go(code, d).0,
        Outcome::Done("caught: srv_echo failed".into())
    );
    let Outcome::Threw(msg) = go("tools.srv.echo({boom: 1})", d).0 else {
        panic!("an uncaught tool error fails the script")
    };
    assert!(msg.contains("srv_echo failed"), "{msg}");
}

#[test]
fn built_in_tools_sit_at_the_top_and_search_is_a_function() {
    let d = Limits::default();
    let (out, _) = go("return tools.read({filePath: 'a'})", d);
    assert_eq!(out, Outcome::Done("read got {\"filePath\":\"a\"}".into()));
    let (out, _) = go("return search('echo')[0].call", d);
    assert_eq!(out, Outcome::Done("tools.srv.echo".into()));
}

#[test]
fn an_endless_loop_stops_at_the_operation_limit() {
    let limits = Limits {
        ticks: 50,
        ..Limits::default()
    };
    // Catching the interrupt does not help: the script is stopped.
    let code = "while (true) { try { while (true) {} } catch (e) {} }";
    assert_eq!(go(code, limits).0, Outcome::OpLimit);
}

#[test]
fn allocating_past_the_memory_limit_stops_the_script() {
    let limits = Limits {
        memory: 8 << 20,
        ..Limits::default()
    };
    let code = "const a = []; while (true) { a.push('x'.repeat(1 << 16) + a.length); }";
    assert_eq!(go(code, limits).0, Outcome::MemoryLimit);
}

#[test]
fn cancellation_stops_a_running_script() {
    let flag = Arc::new(AtomicBool::new(false));
    let setter = flag.clone();
    let t = std::thread::spawn(move || {
        let mut logs = Vec::new();
        run(
            "while (true) {}",
            &entries(),
            (echo_host(), finder()),
            Limits {
                ticks: u64::MAX,
                ..Limits::default()
            },
            setter,
            &mut logs,
        )
    });
    flag.store(true, std::sync::atomic::Ordering::Relaxed);
    assert_eq!(t.join().unwrap(), Outcome::Cancelled);
}

#[test]
fn the_sandbox_has_no_file_system_network_or_process_access() {
    let d = Limits::default();
    let code = "return [typeof require, typeof process, typeof std, typeof os, typeof fetch, \
                typeof XMLHttpRequest, typeof Deno, typeof Bun].join(',')";
    assert_eq!(
        go(code, d).0,
        Outcome::Done(
            "undefined,undefined,undefined,undefined,undefined,undefined,undefined,undefined"
                .into()
        )
    );
    let Outcome::Threw(msg) = go("await import('std'); return 'loaded'", d).0 else {
        panic!("importing a module must fail")
    };
    assert!(!msg.is_empty());
}
