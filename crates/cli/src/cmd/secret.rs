//! Reading answers for `strata auth login`: from the terminal (`/dev/tty`, a key with echo
//! turned off) when stdin is one, else line by line from stdin, so scripts and tests can pipe
//! the provider id and the key in.

use std::fs::File;
use std::io::{BufRead, IsTerminal, Read, Write};

use nix::sys::termios::{
    LocalFlags, SetArg, SpecialCharacterIndices as Cc, Termios, tcgetattr, tcsetattr,
};

/// Where answers come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Source {
    Terminal,
    Stdin,
}

impl Source {
    /// The terminal when stdin is one, else stdin.
    pub(super) fn detect() -> Source {
        if std::io::stdin().is_terminal() {
            Source::Terminal
        } else {
            Source::Stdin
        }
    }

    /// One answer to `prompt`, trimmed; `hidden` turns echo off on a terminal.
    pub(super) fn ask(self, prompt: &str, hidden: bool) -> Result<String, String> {
        let line = match self {
            Source::Stdin => {
                let mut line = String::new();
                std::io::stdin()
                    .lock()
                    .read_line(&mut line)
                    .map_err(|e| format!("cannot read stdin: {e}"))?;
                line
            }
            Source::Terminal => from_tty(prompt, hidden)?,
        };
        Ok(line.trim().to_string())
    }
}

fn from_tty(prompt: &str, hidden: bool) -> Result<String, String> {
    let failed = |e: std::io::Error| format!("cannot use the terminal (/dev/tty): {e}");
    let tty = File::options()
        .read(true)
        .write(true)
        .open("/dev/tty")
        .map_err(failed)?;
    // Echo goes off before the prompt shows, so nothing typed after it is ever echoed.
    let guard = if hidden {
        Some(EchoOff::new(&tty)?)
    } else {
        None
    };
    let mut out = &tty;
    out.write_all(prompt.as_bytes()).map_err(failed)?;
    out.flush().map_err(failed)?;
    let interrupt = guard.as_ref().map(|g| g.interrupt);
    let read = read_line(&tty, interrupt);
    drop(guard);
    let line = read.map_err(failed)?;
    if interrupt.is_some_and(|c| line.contains(&c)) {
        return Err("cancelled at the key prompt; nothing was stored".into());
    }
    String::from_utf8(line).map_err(|_| "the answer is not valid UTF-8; type it again".into())
}

/// One line from the terminal: up to a new line, the end of input, or `interrupt`, which ends
/// a line too while [`EchoOff`] holds (a line-at-a-time terminal hands over one line per read).
fn read_line(mut tty: &File, interrupt: Option<u8>) -> std::io::Result<Vec<u8>> {
    let mut line = Vec::new();
    let mut chunk = [0u8; 1024];
    loop {
        let n = tty.read(&mut chunk)?;
        let got = &chunk[..n];
        line.extend_from_slice(got);
        if n == 0 || got.ends_with(b"\n") || interrupt.is_some_and(|c| got.contains(&c)) {
            return Ok(line);
        }
    }
}

/// Echo off on the terminal until dropped, which restores the settings found.
///
/// The interrupt key (Ctrl+C) sends no signal meanwhile: a signal would end the process with
/// echo still off, leaving the user's shell blind. It ends the line instead, and the answer is
/// taken as cancelled.
struct EchoOff<'a> {
    tty: &'a File,
    saved: Termios,
    /// The terminal's interrupt character.
    interrupt: u8,
}

impl<'a> EchoOff<'a> {
    fn new(tty: &'a File) -> Result<Self, String> {
        let failed = |e: nix::Error| format!("cannot turn echo off on the terminal: {e}");
        let saved = tcgetattr(tty).map_err(failed)?;
        let mut quiet = saved.clone();
        quiet.local_flags.remove(LocalFlags::ECHO);
        // Enter still shows as a new line, so the user sees the answer was taken.
        quiet.local_flags.insert(LocalFlags::ECHONL);
        quiet.local_flags.remove(LocalFlags::ISIG);
        let interrupt = saved.control_chars[Cc::VINTR as usize];
        quiet.control_chars[Cc::VEOL as usize] = interrupt;
        tcsetattr(tty, SetArg::TCSANOW, &quiet).map_err(failed)?;
        Ok(Self {
            tty,
            saved,
            interrupt,
        })
    }
}

impl std::fmt::Debug for EchoOff<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EchoOff").finish_non_exhaustive()
    }
}

impl Drop for EchoOff<'_> {
    fn drop(&mut self) {
        let _ = tcsetattr(self.tty, SetArg::TCSANOW, &self.saved);
    }
}
