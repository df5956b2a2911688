//! Signals to a child's whole process group, and whether any member is still alive.

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

/// A process group id that is safe to signal: always positive, so never "our own group" (0)
/// or "every process" (-1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Group(Pid);

impl Group {
    /// `None` for ids that would address more than the child's group.
    pub(crate) fn new(pgid: u32) -> Option<Self> {
        let raw = i32::try_from(pgid).ok().filter(|p| *p > 1)?;
        Some(Self(Pid::from_raw(raw)))
    }

    pub(crate) fn id(self) -> i32 {
        self.0.as_raw()
    }

    /// Sends `signal` to every member; a group already gone is not an error.
    pub(crate) fn signal(self, signal: Signal) {
        let _ = killpg(self.0, signal);
    }

    /// Whether a member that has not yet exited remains. Zombies waiting for a parent that
    /// never reaps them do not count: they hold no resources a caller cares about.
    pub(crate) fn alive(self) -> bool {
        if cfg!(target_os = "linux")
            && let Some(members) = live_members(self.id())
        {
            return !members.is_empty();
        }
        killpg(self.0, None).is_ok()
    }
}

/// Pids of the non-zombie processes whose process group is `pgid`, from `/proc`; `None` when
/// `/proc` cannot be read.
pub fn live_members(pgid: i32) -> Option<Vec<i32>> {
    let entries = std::fs::read_dir("/proc").ok()?;
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<i32>().ok())
        else {
            continue;
        };
        // The process may exit between the listing and this read; skip it then.
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        if let Some((state, pgrp)) = parse_stat(&stat)
            && pgrp == pgid
            && state != 'Z'
            && state != 'X'
        {
            out.push(pid);
        }
    }
    Some(out)
}

/// State and process group from a `/proc/<pid>/stat` line. The command name is in
/// parentheses and may itself contain spaces or parentheses, so parse after the last `)`.
fn parse_stat(stat: &str) -> Option<(char, i32)> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let _ppid = fields.next()?;
    let pgrp = fields.next()?.parse().ok()?;
    Some((state, pgrp))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_stat_reads_state_and_group_past_odd_names() {
        let line = "4242 (we ird) name)) S 1 4240 4240 0 -1 4194304";
        assert_eq!(parse_stat(line), Some(('S', 4240)));
        assert_eq!(parse_stat("garbage"), None);
    }

    #[test]
    fn dangerous_group_ids_are_refused() {
        assert!(Group::new(0).is_none());
        assert!(Group::new(1).is_none());
        assert!(Group::new(u32::MAX).is_none());
        assert_eq!(Group::new(1234).map(Group::id), Some(1234));
    }
}
