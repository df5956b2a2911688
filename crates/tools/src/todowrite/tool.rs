//! The `todowrite` tool itself: ask, replace the list through [`Todos`], echo it back.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use strata_services::todo::{Todo, Todos};

use crate::contract::{Ask, Effects, Tool, ToolCx, ToolError, ToolResult};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct TodoWriteParams {
    /// The complete, updated todo list. It replaces the current one.
    pub todos: Vec<TodoItem>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct TodoItem {
    /// What to do, as a short concrete action.
    pub content: String,
    /// One of: pending, in_progress, completed, cancelled.
    pub status: String,
    /// One of: high, medium, low.
    pub priority: String,
}

#[derive(Debug)]
pub struct TodoWrite {
    todos: Todos,
}

impl Tool for TodoWrite {
    const ID: &'static str = "todowrite";
    const EFFECTS: Effects = Effects {
        read_only: false,
        destructive: false,
        concurrency_safe: false,
        open_world: false,
    };
    type Params = TodoWriteParams;
    type Deps = (Todos,);

    fn init((todos,): Self::Deps) -> Self {
        TodoWrite { todos }
    }

    fn description(&self) -> String {
        include_str!("description.md").to_string()
    }

    async fn execute(&self, p: TodoWriteParams, cx: ToolCx) -> Result<ToolResult, ToolError> {
        cx.ask(Ask::new(
            Self::PERMISSION,
            vec!["*".into()],
            vec!["*".into()],
        ))
        .await?;
        let todos: Vec<Todo> = p
            .todos
            .into_iter()
            .map(|t| Todo {
                content: t.content,
                status: t.status,
                priority: t.priority,
            })
            .collect();
        let open = todos.iter().filter(|t| t.status != "completed").count();
        let list = json!(todos);
        let output = serde_json::to_string_pretty(&list)
            .map_err(|e| ToolError::fatal(format!("could not render the todo list: {e}")))?;
        self.todos
            .replace(&cx.session_id, todos)
            .map_err(|e| ToolError::fatal(format!("{e}. The list was left as it was.")))?;
        let mut result = ToolResult::new(format!("{open} todos"), output).meta("todos", list);
        if self.todos.is_throwaway() {
            // Outside a stored session the list lives only as long as this process.
            result = result.meta("throwaway", Value::Bool(true));
        }
        Ok(result)
    }
}
