//! The `question` tool: put questions to the user and wait for the answers (spec §11).

mod tool;

pub(crate) use tool::ask;
pub use tool::{QuestionItem, QuestionOptionItem, QuestionParams, QuestionTool, render_answers};
