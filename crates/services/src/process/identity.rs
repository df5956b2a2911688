//! Who a process is, across time: its pid, its start time (from `/proc/<pid>/stat`, so a
//! reused pid is told apart) and the boot it belongs to (so a pid from before a power cut is
//! never mistaken for a live one). Used to tell whether the owner of a stored run still lives
//! and to end process groups left behind by one that does not.

use nix::sys::signal::Signal;

use super::group::Group;

/// A process, identified so that pid reuse and reboots are detected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessIdentity {
    pub pid: u32,
    /// Field 22 of `/proc/<pid>/stat`: clock ticks after boot when the process started.
    pub start_ticks: u64,
    /// `/proc/sys/kernel/random/boot_id`, empty when it cannot be read.
    pub boot_id: String,
}

impl ProcessIdentity {
    /// This process; `None` where `/proc` cannot be read (then nothing is recorded).
    pub fn current() -> Option<Self> {
        Self::of(std::process::id())
    }

    /// A running process (zombies included), `None` when there is none with that pid.
    pub fn of(pid: u32) -> Option<Self> {
        Some(Self {
            pid,
            start_ticks: start_ticks(pid)?,
            boot_id: boot_id(),
        })
    }

    /// Whether this very process is still running: same boot, same pid, same start time.
    pub fn is_alive(&self) -> bool {
        Self::of(self.pid).is_some_and(|now| now == *self)
    }
}

fn boot_id() -> String {
    std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

fn start_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_start_ticks(&stat)
}

/// Field 22 (starttime) of a stat line; the command name in parentheses may hold spaces, so
/// fields are counted after the last `)` (where field 3 begins).
fn parse_start_ticks(stat: &str) -> Option<u64> {
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// Ends (SIGKILL) the process group `pgid` that a process which no longer runs started, whose
/// leader started at `leader_start_ticks` during boot `boot_id`. Nothing is signalled when the
/// boot changed (the group died with it) or when `pgid` now names a different process (the id
/// was reused, so the old group is gone). Returns whether a signal was sent.
pub fn end_orphan_group(pgid: u32, leader_start_ticks: u64, boot: &str) -> bool {
    let Some(group) = Group::new(pgid) else {
        return false;
    };
    if boot_id() != boot {
        return false;
    }
    match start_ticks(pgid) {
        // The leader lives: only the same process is ours.
        Some(ticks) if ticks != leader_start_ticks => return false,
        Some(_) => {}
        // The leader is gone; while any member of its group lives, the id cannot have been
        // handed to a new process, so the members left are the old group's.
        None => {
            if !group.alive() {
                return false;
            }
        }
    }
    group.signal(Signal::SIGKILL);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_ticks_are_read_past_odd_command_names() {
        let line = "77 (a) b (c)) S 1 77 77 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 123456 1000 10";
        assert_eq!(parse_start_ticks(line), Some(123456));
        assert_eq!(parse_start_ticks("77 (short) S 1"), None);
    }

    #[test]
    fn this_process_is_alive_and_a_changed_start_time_is_not() {
        let me = ProcessIdentity::current().unwrap();
        assert!(me.is_alive());
        let other = ProcessIdentity {
            start_ticks: me.start_ticks + 1,
            ..me.clone()
        };
        assert!(!other.is_alive());
        let rebooted = ProcessIdentity {
            boot_id: "another-boot".into(),
            ..me
        };
        assert!(!rebooted.is_alive());
    }
}
