//! The bounds of one tool program (spec §17), shown in the tool's description, and the record
//! of the calls it completed, which the error of a program stopped at a bound lists.

use std::time::Duration;

/// The most tool calls one program may make.
pub const MAX_CALLS: usize = 32;

/// How far one program may go.
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    pub calls: usize,
    pub wall: Duration,
    /// Bytes the interpreter may allocate.
    pub memory: usize,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            calls: MAX_CALLS,
            wall: strata_services::config::tool_surface::DEFAULT_EXECUTE_TIMEOUT,
            memory: super::script::Limits::default().memory,
        }
    }
}

impl Bounds {
    /// The sentence of the description that states the bounds.
    pub fn describe(&self) -> String {
        format!(
            "Bounds: at most {} tool calls per program, {} of wall time and {} MiB of memory. A \
             program that passes one is stopped, and the error lists the calls it completed.",
            self.calls,
            seconds(self.wall),
            self.memory >> 20
        )
    }
}

fn seconds(d: Duration) -> String {
    let ms = d.as_millis();
    if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

/// Why a program was stopped from outside the interpreter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    Cancelled,
    WallTime,
    Calls,
}

/// The calls a program made, in order, as one line each.
#[derive(Debug, Clone, Default)]
pub struct Completed(Vec<String>);

impl Completed {
    /// Records a finished call of `tool` with `input` (JSON text) and how it ended.
    pub fn push(&mut self, tool: &str, input: &str, result: &Result<String, String>) {
        let how = match result {
            Ok(_) => "ok".to_string(),
            Err(e) => format!("error: {}", first_line(e, 80)),
        };
        self.0
            .push(format!("{tool} {}: {how}", first_line(input, 100)));
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The numbered list, or a line saying there were none.
    pub fn render(&self) -> String {
        if self.0.is_empty() {
            return "It had completed no tool call.".into();
        }
        let lines: Vec<String> = self
            .0
            .iter()
            .enumerate()
            .map(|(i, l)| format!("{}. {l}", i + 1))
            .collect();
        format!("Tool calls it completed:\n{}", lines.join("\n"))
    }
}

/// The first line of `text`, cut to `max` characters with `…`.
fn first_line(text: &str, max: usize) -> String {
    let line = text.lines().next().unwrap_or_default();
    if line.chars().count() <= max {
        return line.to_string();
    }
    let cut: String = line.chars().take(max).collect();
    format!("{cut}…")
}

/// The error text of a program stopped at a bound.
pub fn stopped(why: Stop, bounds: &Bounds, done: &Completed) -> String {
    let head = match why {
        Stop::Calls => format!(
            "The program was stopped when it tried call {} past its limit of {} tool calls. \
             Make fewer calls per program (split the work into several programs).",
            bounds.calls + 1,
            bounds.calls
        ),
        Stop::WallTime => format!(
            "The program was stopped after {} of wall time, its limit. Do less per program, or \
             split the work into several programs.",
            seconds(bounds.wall)
        ),
        Stop::Cancelled => "The program was cancelled.".into(),
    };
    format!("{head}\n{}", done.render())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_description_states_every_bound() {
        let b = Bounds {
            calls: 32,
            wall: Duration::from_secs(30),
            memory: 64 << 20,
        };
        assert_eq!(
            b.describe(),
            "Bounds: at most 32 tool calls per program, 30 s of wall time and 64 MiB of memory. \
             A program that passes one is stopped, and the error lists the calls it completed."
        );
        let half = Bounds {
            wall: Duration::from_millis(1500),
            ..b
        };
        assert!(half.describe().contains("1.5 s of wall time"));
    }

    #[test]
    fn a_stopped_program_lists_what_it_completed() {
        let mut done = Completed::default();
        assert_eq!(done.render(), "It had completed no tool call.");
        done.push("read", r#"{"filePath":"a.txt"}"#, &Ok("x".into()));
        done.push(
            "grep",
            r#"{"pattern":"x"}"#,
            &Err("bad pattern\nmore".into()),
        );
        let text = stopped(Stop::Calls, &Bounds::default(), &done);
        assert!(
            text.starts_with("The program was stopped when it tried call 33"),
            "{text}"
        );
        assert!(text.ends_with(
            "Tool calls it completed:\n1. read {\"filePath\":\"a.txt\"}: ok\n2. grep \
             {\"pattern\":\"x\"}: error: bad pattern"
        ));
        let long = "x".repeat(300);
        done.push("read", &long, &Ok(String::new()));
        assert!(done.render().contains(&format!("{}…: ok", "x".repeat(100))));
    }
}
