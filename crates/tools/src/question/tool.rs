//! The `question` tool itself: hand the questions to the [`Question`] service and turn the
//! answers into one sentence for the model.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use strata_services::permission::ToolRef;
use strata_services::question::{
    Answer, AskQuestions, Question, QuestionError, QuestionInfo, QuestionOption,
};

use crate::contract::{Effects, Tool, ToolCx, ToolError, ToolResult};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct QuestionParams {
    /// The questions to put to the user.
    pub questions: Vec<QuestionItem>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct QuestionItem {
    /// The full question, as the user should read it.
    pub question: String,
    /// A very short label for the question (30 characters at most).
    pub header: String,
    /// The choices offered.
    pub options: Vec<QuestionOptionItem>,
    /// Whether the user may pick more than one option.
    pub multiple: Option<bool>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct QuestionOptionItem {
    /// The choice itself, in one to five words.
    pub label: String,
    /// What choosing it means.
    pub description: String,
}

#[derive(Debug)]
pub struct QuestionTool {
    question: Question,
}

impl Tool for QuestionTool {
    const ID: &'static str = "question";
    const EFFECTS: Effects = Effects {
        read_only: true,
        destructive: false,
        concurrency_safe: false,
        open_world: false,
    };
    type Params = QuestionParams;
    type Deps = (Question,);

    fn init((question,): Self::Deps) -> Self {
        QuestionTool { question }
    }

    fn description(&self) -> String {
        include_str!("description.md").to_string()
    }

    async fn execute(&self, p: QuestionParams, cx: ToolCx) -> Result<ToolResult, ToolError> {
        if p.questions.is_empty() {
            return Err(ToolError::model(
                "`questions` is empty. Send at least one question with its options.",
            ));
        }
        let questions: Vec<QuestionInfo> = p
            .questions
            .into_iter()
            .map(|q| QuestionInfo {
                question: q.question,
                header: q.header,
                options: q
                    .options
                    .into_iter()
                    .map(|o| QuestionOption {
                        label: o.label,
                        description: o.description,
                    })
                    .collect(),
                multiple: Some(q.multiple.unwrap_or(false)),
                custom: None,
            })
            .collect();
        let answers = ask(&self.question, &cx, questions.clone()).await?;
        let n = questions.len();
        let title = if n == 1 {
            "Asked 1 question".to_string()
        } else {
            format!("Asked {n} questions")
        };
        Ok(ToolResult::new(title, render_answers(&questions, &answers))
            .meta("answers", json!(answers)))
    }
}

/// Puts `questions` to the user for the call in `cx` and waits for the answers, one list per
/// question. A dismissal or a cancelled turn ends the call as such.
pub(crate) async fn ask(
    question: &Question,
    cx: &ToolCx,
    questions: Vec<QuestionInfo>,
) -> Result<Vec<Answer>, ToolError> {
    let ask = AskQuestions {
        session_id: cx.session_id.clone(),
        questions,
        tool: Some(ToolRef {
            message_id: cx.message_id.clone(),
            call_id: cx.call_id.clone(),
        }),
    };
    question
        .ask(ask, cx.abort.clone())
        .await
        .map_err(|e| match e {
            QuestionError::Rejected => ToolError::Dismissed(e.to_string()),
            QuestionError::Cancelled => ToolError::Cancelled,
            QuestionError::Disposed | QuestionError::NotFound { .. } => {
                ToolError::fatal(e.to_string())
            }
        })
}

/// The model-facing sentence: each question with the labels chosen for it.
pub fn render_answers(questions: &[QuestionInfo], answers: &[Answer]) -> String {
    let pairs: Vec<String> = questions
        .iter()
        .enumerate()
        .map(|(i, q)| {
            let chosen = answers
                .get(i)
                .filter(|a| !a.is_empty())
                .map_or_else(|| "(no answer)".to_string(), |a| a.join(", "));
            format!("\"{}\"=\"{chosen}\"", q.question)
        })
        .collect();
    format!(
        "The user answered your questions: {}. Go on with these answers in mind.",
        pairs.join(", ")
    )
}
