//! The conversation: laid-out lines cached per message, version and width, and only the
//! messages that meet the visible window drawn, so a session of thousands of messages costs a
//! few hash lookups per frame and a streaming reply re-lays-out only its own message.

use std::collections::HashMap;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;

use super::message;
use crate::state::{MessageView, SessionState};

/// Laid-out lines per message.
#[derive(Debug, Default)]
pub struct LayoutCache {
    session: String,
    entries: HashMap<String, Entry>,
    /// Layouts computed (misses) and reused (hits), for tests and benchmarks.
    pub misses: u64,
    pub hits: u64,
}

#[derive(Debug)]
struct Entry {
    version: u64,
    width: u16,
    expanded: bool,
    lines: Vec<Line<'static>>,
}

impl LayoutCache {
    /// The lines of `m` at `width`, laid out again only when the message, the width or the
    /// folding changed.
    pub fn lines(&mut self, m: &MessageView, width: u16, expanded: bool) -> &[Line<'static>] {
        let fresh = self
            .entries
            .get(&m.info.id)
            .is_some_and(|e| e.version == m.version && e.width == width && e.expanded == expanded);
        if fresh {
            self.hits += 1;
        } else {
            self.misses += 1;
            let lines = message::lines(m, width as usize, expanded);
            self.entries.insert(
                m.info.id.clone(),
                Entry {
                    version: m.version,
                    width,
                    expanded,
                    lines,
                },
            );
        }
        self.entries
            .get(&m.info.id)
            .map_or(&[], |e| e.lines.as_slice())
    }

    /// Forgets everything when another session is shown.
    fn switch(&mut self, session: &str) {
        if self.session != session {
            self.session = session.to_string();
            self.entries.clear();
        }
    }
}

/// Draws the bottom of the conversation, `scroll` lines up from its end (held within the
/// conversation), into `area`; returns the farthest it scrolls up.
pub(super) fn draw(
    buf: &mut Buffer,
    area: Rect,
    session: &SessionState,
    cache: &mut LayoutCache,
    expanded: bool,
    scroll: usize,
) -> usize {
    cache.switch(&session.info.id);
    let heights: Vec<usize> = session
        .messages
        .iter()
        .map(|m| cache.lines(m, area.width, expanded).len())
        .collect();
    let total: usize = heights.iter().sum();
    let height = area.height as usize;
    let max_scroll = total.saturating_sub(height);
    let top = total.saturating_sub(height + scroll.min(max_scroll));
    let mut y = 0usize;
    for (m, h) in session.messages.iter().zip(heights) {
        if y + h <= top {
            y += h;
            continue;
        }
        if y >= top + height {
            break;
        }
        let lines = cache.lines(m, area.width, expanded);
        for (i, line) in lines.iter().enumerate() {
            let row = y + i;
            if row < top {
                continue;
            }
            if row >= top + height {
                break;
            }
            buf.set_line(area.x, area.y + (row - top) as u16, line, area.width);
        }
        y += h;
    }
    max_scroll
}
