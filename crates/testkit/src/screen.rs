//! Reading what a program drew on a pseudo-terminal: [`plain`] drops the escape sequences so
//! a test can look for words on the screen.

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
