//! Answering the agent's questions on a terminal: each question with its numbered options;
//! the user types a number, several numbers when the question allows `multiple`, or an answer
//! of their own. An empty line (or the end of input) dismisses the questions.
//!
//! Only runs with a terminal on stdin get here: the others deny the `question` permission, so
//! the model is never offered the tool (see [`interactive`]).

use std::io::{BufRead, IsTerminal, Write};

use strata_services::question::{Answer, QuestionInfo, QuestionRequest};
use tokio::sync::oneshot;

use super::terminal::spawn_prompt;

/// Whether a person can answer on this process's terminal (stdin and stderr both are one).
pub(crate) fn interactive() -> bool {
    std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
}

/// What is printed when a question arrives with no terminal to ask on.
pub(crate) fn refusal(req: &QuestionRequest) -> String {
    let n = req.questions.len();
    format!(
        "strata: the agent asked {n} question{} and there is no terminal to answer on; \
         dismissing {}",
        if n == 1 { "" } else { "s" },
        if n == 1 { "it" } else { "them" }
    )
}

/// Starts the prompt on its own thread (see [`spawn_prompt`]) and returns the channel of the
/// answers, `None` when dismissed.
pub(crate) fn ask_on_terminal(req: &QuestionRequest) -> oneshot::Receiver<Option<Vec<Answer>>> {
    let req = req.clone();
    // No thread, no prompt: the receiver sees a closed channel and the caller dismisses.
    spawn_prompt(
        "question-prompt",
        "strata: could not start the question prompt; dismissing the question",
        move |input, err| prompt(&req, input, err),
    )
}

/// Asks every question of `req` on `err`, reading from `input`: the answers in order, or
/// `None` when the user dismissed them.
pub(crate) fn prompt(
    req: &QuestionRequest,
    input: &mut dyn BufRead,
    err: &mut dyn Write,
) -> Option<Vec<Answer>> {
    let total = req.questions.len();
    let mut answers = Vec::with_capacity(total);
    for (i, q) in req.questions.iter().enumerate() {
        show(q, i + 1, total, err);
        answers.push(read_answer(q, input, err)?);
    }
    Some(answers)
}

fn show(q: &QuestionInfo, index: usize, total: usize, err: &mut dyn Write) {
    let header = if q.header.trim().is_empty() {
        String::new()
    } else {
        format!(" · {}", q.header.trim())
    };
    let _ = writeln!(err, "\nQuestion {index}/{total}{header}");
    let _ = writeln!(err, "{}", q.question);
    for (n, o) in q.options.iter().enumerate() {
        if o.description.trim().is_empty() {
            let _ = writeln!(err, "  {}. {}", n + 1, o.label);
        } else {
            let _ = writeln!(err, "  {}. {} — {}", n + 1, o.label, o.description.trim());
        }
    }
}

fn read_answer(q: &QuestionInfo, input: &mut dyn BufRead, err: &mut dyn Write) -> Option<Answer> {
    let how = match (q.options.is_empty(), q.is_multiple()) {
        (true, _) => "Type your answer",
        (false, false) => "Type a number, or your own answer",
        (false, true) => "Type one or more numbers (e.g. 1,3), or your own answer",
    };
    loop {
        let _ = write!(err, "{how} (Enter alone dismisses): ");
        let _ = err.flush();
        let mut line = String::new();
        match input.read_line(&mut line) {
            Ok(0) | Err(_) => return None,
            Ok(_) => {}
        }
        let line = line.trim();
        if line.is_empty() {
            return None;
        }
        match choose(q, line) {
            Ok(answer) => return Some(answer),
            Err(problem) => {
                let _ = writeln!(err, "{problem}");
            }
        }
    }
}

/// The answer `line` gives to `q`: the labels of the numbers typed, or the text itself when
/// it is not a list of numbers. An out-of-range number, or several for a single-choice
/// question, is a problem to show before asking again.
fn choose(q: &QuestionInfo, line: &str) -> Result<Answer, String> {
    let tokens: Vec<&str> = line
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|t| !t.is_empty())
        .collect();
    let numbers: Option<Vec<usize>> = tokens.iter().map(|t| t.parse().ok()).collect();
    let Some(numbers) = numbers.filter(|_| !q.options.is_empty()) else {
        return Ok(vec![line.to_string()]);
    };
    let count = q.options.len();
    if numbers.iter().any(|&n| n == 0 || n > count) {
        return Err(format!("Choose numbers between 1 and {count}."));
    }
    if !q.is_multiple() && numbers.len() > 1 {
        return Err("This question takes one choice: type a single number.".to_string());
    }
    let mut labels: Answer = Vec::new();
    for n in numbers {
        let label = &q.options[n - 1].label;
        if !labels.contains(label) {
            labels.push(label.clone());
        }
    }
    Ok(labels)
}

#[cfg(test)]
mod tests {
    use strata_services::question::QuestionOption;

    use super::*;

    fn question(text: &str, labels: &[&str], multiple: bool) -> QuestionInfo {
        QuestionInfo {
            question: text.into(),
            header: "Pick".into(),
            options: labels
                .iter()
                .map(|l| QuestionOption {
                    label: l.to_string(),
                    description: format!("{l} it is"),
                })
                .collect(),
            multiple: Some(multiple),
            custom: None,
        }
    }

    fn req() -> QuestionRequest {
        QuestionRequest {
            id: "que_1".into(),
            session_id: "ses_1".into(),
            questions: vec![
                question("Which colour?", &["Red", "Blue"], false),
                question("Which sizes?", &["S", "M", "L"], true),
            ],
            tool: None,
        }
    }

    fn answer(typed: &str) -> (Option<Vec<Answer>>, String) {
        let mut err = Vec::new();
        let got = prompt(&req(), &mut typed.as_bytes(), &mut err);
        (got, String::from_utf8(err).unwrap())
    }

    fn labels(list: &[&[&str]]) -> Vec<Answer> {
        list.iter()
            .map(|a| a.iter().map(|s| s.to_string()).collect())
            .collect()
    }

    #[test]
    fn numbers_pick_labels_and_several_only_where_multiple() {
        let (got, shown) = answer("2\n1, 3 3\n");
        assert_eq!(got, Some(labels(&[&["Blue"], &["S", "L"]])));
        assert!(
            shown.contains("Question 1/2 · Pick\nWhich colour?\n  1. Red — Red it is\n  2. Blue")
        );
        assert!(shown.contains("Question 2/2"), "{shown}");
        let (got, shown) = answer("1 2\n9\n1\n2\n");
        assert_eq!(got, Some(labels(&[&["Red"], &["M"]])));
        assert!(shown.contains("one choice"), "{shown}");
        assert!(shown.contains("between 1 and 2"), "{shown}");
    }

    #[test]
    fn other_text_is_a_free_answer_and_an_empty_line_dismisses() {
        let (got, _) = answer("  Green, please \n2\n");
        assert_eq!(got, Some(labels(&[&["Green, please"], &["M"]])));
        assert_eq!(answer("1\n\n").0, None, "an empty line dismisses");
        assert_eq!(answer("1\n").0, None, "the end of input dismisses");
        let free = QuestionRequest {
            questions: vec![question("Name?", &[], false)],
            ..req()
        };
        let mut err = Vec::new();
        let got = prompt(&free, &mut "42\n".as_bytes(), &mut err);
        assert_eq!(got, Some(labels(&[&["42"]])), "no options: any text");
        assert!(refusal(&req()).contains("2 questions"));
    }
}
