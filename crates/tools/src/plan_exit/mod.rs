//! The `plan_exit` tool: the plan agent asks the user whether the plan is done and the build
//! agent should take over (spec §12). The loop performs the switch when the call succeeds.

mod tool;

pub use tool::{PlanExit, PlanExitParams, YES, approval_message, question_for};
