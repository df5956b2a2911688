//! The prompt editor: multi-line text with a cursor, pasted text kept whole, and a history of
//! sent prompts walked with Up and Down from the first and last line.

/// The text being typed.
#[derive(Debug, Default, Clone)]
pub struct Input {
    text: String,
    /// Byte offset of the cursor, always on a char boundary.
    cursor: usize,
    history: Vec<String>,
    /// Position while walking the history (`history.len()` = the draft).
    walk: usize,
    draft: String,
}

impl Input {
    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// (line, column in chars) of the cursor.
    pub fn cursor_pos(&self) -> (usize, usize) {
        let before = &self.text[..self.cursor];
        let line = before.matches('\n').count();
        let col = before.rsplit('\n').next().unwrap_or("").chars().count();
        (line, col)
    }

    pub fn insert(&mut self, c: char) {
        self.text.insert(self.cursor, c);
        self.cursor += c.len_utf8();
    }

    /// Inserts pasted text at the cursor (line endings normalized, tabs kept).
    pub fn paste(&mut self, text: &str) {
        let text = text.replace("\r\n", "\n").replace('\r', "\n");
        self.text.insert_str(self.cursor, &text);
        self.cursor += text.len();
    }

    pub fn newline(&mut self) {
        self.insert('\n');
    }

    pub fn backspace(&mut self) {
        if let Some(c) = self.text[..self.cursor].chars().next_back() {
            self.cursor -= c.len_utf8();
            self.text.remove(self.cursor);
        }
    }

    pub fn delete(&mut self) {
        if self.cursor < self.text.len() {
            self.text.remove(self.cursor);
        }
    }

    pub fn left(&mut self) {
        if let Some(c) = self.text[..self.cursor].chars().next_back() {
            self.cursor -= c.len_utf8();
        }
    }

    pub fn right(&mut self) {
        if let Some(c) = self.text[self.cursor..].chars().next() {
            self.cursor += c.len_utf8();
        }
    }

    pub fn home(&mut self) {
        self.cursor = self.text[..self.cursor].rfind('\n').map_or(0, |i| i + 1);
    }

    pub fn end(&mut self) {
        self.cursor += self.text[self.cursor..]
            .find('\n')
            .unwrap_or(self.text.len() - self.cursor);
    }

    /// Deletes the word before the cursor.
    pub fn delete_word(&mut self) {
        let before = &self.text[..self.cursor];
        let trimmed = before.trim_end();
        let start = trimmed.rfind(char::is_whitespace).map_or(0, |i| {
            i + trimmed[i..].chars().next().map_or(1, char::len_utf8)
        });
        self.text.replace_range(start..self.cursor, "");
        self.cursor = start;
    }

    /// Deletes from the start of the line to the cursor.
    pub fn delete_to_line_start(&mut self) {
        let start = self.text[..self.cursor].rfind('\n').map_or(0, |i| i + 1);
        self.text.replace_range(start..self.cursor, "");
        self.cursor = start;
    }

    pub fn clear(&mut self) {
        self.text.clear();
        self.cursor = 0;
        self.walk = self.history.len();
    }

    /// Moves up a line; on the first line, recalls the previous prompt. False when there is
    /// nowhere to go.
    pub fn up(&mut self) -> bool {
        let (line, col) = self.cursor_pos();
        if line > 0 {
            self.move_to_line(line - 1, col);
            return true;
        }
        if self.walk == 0 {
            return false;
        }
        if self.walk == self.history.len() {
            self.draft = self.text.clone();
        }
        self.walk -= 1;
        self.set(self.history[self.walk].clone());
        true
    }

    /// Moves down a line; on the last line, walks forward through the history to the draft.
    pub fn down(&mut self) -> bool {
        let (line, col) = self.cursor_pos();
        if line < self.text.matches('\n').count() {
            self.move_to_line(line + 1, col);
            return true;
        }
        if self.walk >= self.history.len() {
            return false;
        }
        self.walk += 1;
        let text = match self.history.get(self.walk) {
            Some(h) => h.clone(),
            None => std::mem::take(&mut self.draft),
        };
        self.set(text);
        true
    }

    /// Takes the text out to send it, remembering it in the history.
    pub fn take(&mut self) -> String {
        let text = std::mem::take(&mut self.text);
        if !text.trim().is_empty() && self.history.last() != Some(&text) {
            self.history.push(text.clone());
        }
        self.clear();
        text
    }

    fn set(&mut self, text: String) {
        self.text = text;
        self.cursor = self.text.len();
    }

    fn move_to_line(&mut self, line: usize, col: usize) {
        let mut offset = 0;
        for (i, l) in self.text.split('\n').enumerate() {
            if i == line {
                let c = l.char_indices().nth(col).map_or(l.len(), |(b, _)| b);
                self.cursor = offset + c;
                return;
            }
            offset += l.len() + 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_history_and_words() {
        let mut i = Input::default();
        i.paste("ab\r\ncd");
        assert_eq!(i.text(), "ab\ncd");
        assert_eq!(i.cursor_pos(), (1, 2));
        assert!(i.up());
        assert_eq!(i.cursor_pos(), (0, 2));
        assert_eq!(i.take(), "ab\ncd");
        i.paste("draft");
        assert!(i.up());
        assert_eq!(i.text(), "ab\ncd");
        assert!(i.down());
        assert_eq!(i.text(), "draft");
        assert!(!i.down());
        i.paste(" two words");
        i.delete_word();
        assert_eq!(i.text(), "draft two ");
        i.delete_to_line_start();
        assert_eq!(i.text(), "");
    }
}
