//! Reading what a program drew on a pseudo-terminal: [`record`] keeps its output as it comes,
//! and [`plain`] drops the escape sequences so a test can look for words on the screen.

use std::io::Read;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// Everything `out` yields, copied into a shared buffer by a thread of its own until the end
/// of the stream; join the thread to know the buffer is complete.
pub fn record(mut out: impl Read + Send + 'static) -> (Arc<Mutex<Vec<u8>>>, JoinHandle<()>) {
    let screen = Arc::new(Mutex::new(Vec::new()));
    let sink = screen.clone();
    let reader = std::thread::spawn(move || {
        let mut chunk = [0u8; 8192];
        while let Ok(n) = out.read(&mut chunk) {
            if n == 0 {
                break;
            }
            sink.lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .extend_from_slice(&chunk[..n]);
        }
    });
    (screen, reader)
}

/// The output with CSI, OSC, DCS and APC sequences dropped; a cursor move (CUP, HVP, CHA,
/// CUF, VPA) becomes a space, since it stands where the drawing skipped cells.
pub fn plain(bytes: &[u8]) -> String {
    let s = String::from_utf8_lossy(bytes);
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\x1b' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('[') => {
                let fin = chars.by_ref().find(|c| ('\x40'..='\x7e').contains(c));
                if matches!(fin, Some('H' | 'f' | 'G' | 'C' | 'd')) {
                    out.push(' ');
                }
            }
            // Ended by BEL or by ST (ESC \).
            Some(']' | 'P' | '_') => {
                while let Some(c) = chars.next() {
                    if c == '\x07' {
                        break;
                    }
                    if c == '\x1b' {
                        chars.next();
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::plain;

    #[test]
    fn sequences_go_and_cursor_moves_become_spaces() {
        assert_eq!(plain(b"a\x1b[1;2Hb\x1b[0mc\x1b]0;t\x07"), "a bc");
        assert_eq!(plain(b"x\x1bP+q4d73\x1b\\y\x1b[2Cz"), "xy z");
    }
}
