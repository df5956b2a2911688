//! A program in a pseudo-terminal (`script`) whose other end behaves like a terminal
//! emulator: everything the program writes is kept, and the queries a terminal answers
//! (cursor position, device attributes, version, mode reports, colours, window size, terminal
//! capabilities) get the reply an xterm-like terminal of 120x40 cells would send. Queries that
//! xterm ignores (kitty keyboard flags, notification and text-sizing probes) stay unanswered,
//! as they would in a real xterm. Killed with its process group when dropped.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use strata_testkit::poll_within_blocking;
pub(crate) use strata_testkit::screen::plain;

pub(crate) const COLS: u16 = 120;
pub(crate) const ROWS: u16 = 40;

#[derive(Default)]
struct Shared {
    out: Vec<u8>,
    /// Every query seen, as text, in order (for the failure message and the report).
    queries: Vec<String>,
}

pub(crate) struct Tty {
    child: Child,
    input: Arc<Mutex<ChildStdin>>,
    shared: Arc<Mutex<Shared>>,
    reader: Option<std::thread::JoinHandle<()>>,
}

impl Tty {
    /// Runs `line` (a shell command line) in a pseudo-terminal of [`COLS`]x[`ROWS`], with the
    /// environment and directory of `base`.
    pub(crate) fn spawn(base: &Command, line: &str) -> Tty {
        let mut script = Command::new("script");
        script
            .args(["-qfec", &format!("stty cols {COLS} rows {ROWS}; {line}")])
            .arg("/dev/null");
        for (k, v) in base.get_envs() {
            match v {
                Some(v) => script.env(k, v),
                None => script.env_remove(k),
            };
        }
        if let Some(dir) = base.get_current_dir() {
            script.current_dir(dir);
        }
        let mut child = script
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .unwrap();
        let input = Arc::new(Mutex::new(child.stdin.take().unwrap()));
        let shared = Arc::new(Mutex::new(Shared::default()));
        let mut out = child.stdout.take().unwrap();
        let (sink, replies) = (shared.clone(), input.clone());
        let reader = std::thread::spawn(move || {
            let mut chunk = [0u8; 16384];
            let mut scanned = 0;
            while let Ok(n) = out.read(&mut chunk) {
                if n == 0 {
                    break;
                }
                let mut s = sink.lock().unwrap();
                s.out.extend_from_slice(&chunk[..n]);
                let (answers, seen, next) = answer_queries(&s.out, scanned);
                scanned = next;
                s.queries.extend(seen);
                drop(s);
                if !answers.is_empty() {
                    let mut w = replies.lock().unwrap();
                    let _ = w.write_all(&answers);
                    let _ = w.flush();
                }
            }
        });
        Tty {
            child,
            input,
            shared,
            reader: Some(reader),
        }
    }

    /// Types `bytes` as keys.
    pub(crate) fn send(&self, bytes: &[u8]) {
        let mut w = self.input.lock().unwrap();
        w.write_all(bytes).unwrap();
        w.flush().unwrap();
    }

    /// The output so far with escape sequences removed.
    pub(crate) fn plain(&self) -> String {
        plain(&self.shared.lock().unwrap().out)
    }

    pub(crate) fn raw(&self) -> String {
        String::from_utf8_lossy(&self.shared.lock().unwrap().out).into_owned()
    }

    /// The distinct queries the program sent, in first-seen order.
    pub(crate) fn queries(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for q in &self.shared.lock().unwrap().queries {
            if !out.contains(q) {
                out.push(q.clone());
            }
        }
        out
    }

    /// Waits up to `limit` for `text` on screen. Runs of white space count as one space: a
    /// cursor move inside a line reads as a gap whose width the drawing decides.
    pub(crate) fn wait_for(&self, text: &str, limit: Duration) -> bool {
        let want = squeeze(text);
        poll_within_blocking(limit, || {
            squeeze(&self.plain()).contains(&want).then_some(())
        })
        .is_some()
    }

    /// Waits up to `limit` for the program to exit.
    pub(crate) fn wait_exit(&mut self, limit: Duration) -> Option<ExitStatus> {
        let status = poll_within_blocking(limit, || self.child.try_wait().ok().flatten());
        if status.is_some()
            && let Some(r) = self.reader.take()
        {
            let _ = r.join();
        }
        status
    }
}

impl Drop for Tty {
    fn drop(&mut self) {
        // `script` leads its own process group; the program runs in a session below it and
        // gets SIGHUP when the terminal's master side closes.
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.child.id())])
            .stderr(Stdio::null())
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Answers the complete queries in `buf[from..]`: the replies, the queries seen, and where
/// scanning must resume (an incomplete sequence at the end is scanned again next time).
fn answer_queries(buf: &[u8], from: usize) -> (Vec<u8>, Vec<String>, usize) {
    let mut replies = Vec::new();
    let mut seen = Vec::new();
    let mut i = from;
    while i < buf.len() {
        if buf[i] != 0x1b {
            i += 1;
            continue;
        }
        let Some((len, reply, query)) = sequence(&buf[i..]) else {
            // Incomplete: wait for more output.
            return (replies, seen, i);
        };
        if let Some(q) = query {
            seen.push(q);
        }
        replies.extend_from_slice(reply.as_bytes());
        i += len;
    }
    (replies, seen, i)
}

/// The escape sequence at the start of `s`: its length, the reply (may be empty) and, when
/// it is a query, its printable form. `None` when incomplete.
fn sequence(s: &[u8]) -> Option<(usize, String, Option<String>)> {
    match *s.get(1)? {
        b'[' => {
            let end = s[2..].iter().position(|b| (0x40..=0x7e).contains(b))? + 2;
            let body = String::from_utf8_lossy(&s[2..end]).into_owned();
            let fin = s[end] as char;
            let reply = csi_reply(&body, fin);
            let query = reply.as_ref().map(|_| format!("CSI {body}{fin}"));
            let query = query.or_else(|| (body == "?" && fin == 'u').then(|| "CSI ?u".into()));
            Some((end + 1, reply.unwrap_or_default(), query))
        }
        b']' | b'P' => {
            let (end, st) = string_end(&s[2..])?;
            let body = String::from_utf8_lossy(&s[2..2 + end]).into_owned();
            let terminator = if st == 1 { "\x07" } else { "\x1b\\" };
            let kind = if s[1] == b']' { "OSC" } else { "DCS" };
            let reply = if kind == "OSC" {
                osc_reply(&body).map(|r| format!("\x1b]{r}{terminator}"))
            } else {
                body.strip_prefix("+q")
                    .map(|_| "\x1bP0+r\x1b\\".to_string())
            };
            let query = (body.contains('?') || body.starts_with("+q") || body.contains("1337"))
                .then(|| format!("{kind} {body}"));
            Some((2 + end + st, reply.unwrap_or_default(), query))
        }
        _ => Some((2, String::new(), None)),
    }
}

/// Where a string sequence ends: (its length, the terminator's length), BEL or ESC \.
fn string_end(s: &[u8]) -> Option<(usize, usize)> {
    for (i, b) in s.iter().enumerate() {
        if *b == 0x07 {
            return Some((i, 1));
        }
        if *b == 0x1b {
            return (s.get(i + 1)? == &b'\\').then_some((i, 2));
        }
    }
    None
}

/// xterm's answer to `CSI body fin`, if it is a query.
fn csi_reply(body: &str, fin: char) -> Option<String> {
    let (rows, cols) = (ROWS, COLS);
    match (body, fin) {
        // Cursor position: the tests never rely on where the cursor is.
        ("6", 'n') => Some("\x1b[1;1R".into()),
        ("?6", 'n') => Some("\x1b[?1;1;1R".into()),
        ("5", 'n') => Some("\x1b[0n".into()),
        ("" | "0", 'c') => Some("\x1b[?62;22c".into()),
        (">" | ">0", 'c') => Some("\x1b[>41;390;0c".into()),
        (">" | ">0", 'q') => Some("\x1bP>|XTerm(390)\x1b\\".into()),
        ("14", 't') => Some(format!("\x1b[4;{};{}t", rows * 20, cols * 10)),
        ("16", 't') => Some("\x1b[6;20;10t".into()),
        ("18", 't') => Some(format!("\x1b[8;{rows};{cols}t")),
        (b, 'p') if b.ends_with('$') => {
            // DECRQM: xterm knows focus events, bracketed paste and SGR pixel mouse (reset);
            // the newer modes it does not recognise.
            let mode = b.trim_end_matches('$');
            let state = match mode.trim_start_matches('?') {
                "1004" | "2004" | "1016" | "1000" | "1002" | "1003" | "1006" | "1049" => 2,
                _ => 0,
            };
            Some(format!("\x1b[{mode};{state}$y"))
        }
        _ => None,
    }
}

/// xterm's answer to `OSC body` (without the `OSC` and the terminator), if it is a query.
fn osc_reply(body: &str) -> Option<String> {
    match body {
        // Dynamic colours: the background dark, the others light.
        "11;?" => Some("11;rgb:1111/1111/1111".into()),
        b if b.len() == 4 && b.starts_with('1') && b.ends_with(";?") => {
            Some(format!("{};rgb:dddd/dddd/dddd", &b[..2]))
        }
        b => {
            let n = b.strip_prefix("4;")?.strip_suffix(";?")?;
            let n: u8 = n.parse().ok()?;
            let v = if n == 0 { "0000" } else { "c0c0" };
            Some(format!("4;{n};rgb:{v}/{v}/{v}"))
        }
    }
}

/// `s` with every run of white space made one space.
fn squeeze(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn queries_get_an_xterm_reply_and_an_incomplete_one_waits() {
    let out = b"\x1b[6n\x1b]11;?\x07\x1b[?2026$p\x1b[?u\x1bP+q4d73\x1b\\\x1b]17;?\x1b\\\x1b[";
    let (reply, seen, next) = answer_queries(out, 0);
    assert_eq!(
        String::from_utf8(reply).unwrap(),
        "\x1b[1;1R\x1b]11;rgb:1111/1111/1111\x07\x1b[?2026;0$y\x1bP0+r\x1b\\\x1b]17;rgb:dddd/dddd/dddd\x1b\\"
    );
    assert_eq!(
        seen,
        [
            "CSI 6n",
            "OSC 11;?",
            "CSI ?2026$p",
            "CSI ?u",
            "DCS +q4d73",
            "OSC 17;?"
        ]
    );
    assert_eq!(next, out.len() - 2);
}
