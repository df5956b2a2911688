//! The doom-loop guard: a model that calls the same tool with byte-identical input three times
//! in a row is probably stuck, so the fourth identical call needs the user's permission
//! (`doom_loop`, spec §0.5) before it runs.

use std::collections::VecDeque;

/// Identical calls in a row that are let through before the next one is questioned.
pub const DOOM_LOOP_THRESHOLD: usize = 3;

/// Remembers the most recent calls of a run. Pure: no I/O.
#[derive(Debug, Default, Clone)]
pub struct DoomGuard {
    recent: VecDeque<(String, String)>,
}

impl DoomGuard {
    pub fn new() -> Self {
        Self::default()
    }

    /// Records a call about to run and says whether it must be questioned first: true when
    /// the previous [`DOOM_LOOP_THRESHOLD`] calls were this tool with this exact input.
    pub fn observe(&mut self, tool: &str, input: &str) -> bool {
        let repeated = self.recent.len() == DOOM_LOOP_THRESHOLD
            && self.recent.iter().all(|(t, i)| t == tool && i == input);
        if self.recent.len() == DOOM_LOOP_THRESHOLD {
            self.recent.pop_front();
        }
        self.recent.push_back((tool.to_string(), input.to_string()));
        repeated
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fourth_identical_call_is_questioned_and_so_is_every_one_after() {
        let mut g = DoomGuard::new();
        assert!(!g.observe("read", "{\"filePath\":\"a\"}"));
        assert!(!g.observe("read", "{\"filePath\":\"a\"}"));
        assert!(!g.observe("read", "{\"filePath\":\"a\"}"));
        assert!(g.observe("read", "{\"filePath\":\"a\"}"));
        assert!(g.observe("read", "{\"filePath\":\"a\"}"));
    }

    #[test]
    fn a_different_tool_or_input_breaks_the_run() {
        let mut g = DoomGuard::new();
        for _ in 0..3 {
            assert!(!g.observe("grep", "{\"pattern\":\"x\"}"));
        }
        // Same tool, input differing by one byte: not identical.
        assert!(!g.observe("grep", "{\"pattern\":\"x\" }"));
        assert!(!g.observe("grep", "{\"pattern\":\"x\"}"));
        assert!(!g.observe("glob", "{\"pattern\":\"x\"}"));
        assert!(!g.observe("grep", "{\"pattern\":\"x\"}"));
    }
}
