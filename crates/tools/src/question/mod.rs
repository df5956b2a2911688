//! The `question` tool: put questions to the user and wait for the answers (spec §11).

mod tool;

pub use tool::{QuestionItem, QuestionOptionItem, QuestionParams, QuestionTool, render_answers};
