//! What each command resolves from an instance, declared once. Every command starts its
//! runtime validated against all of them, so a graph that lacks a service fails at start with
//! the service and the command that needs it named.

use strata_agent::session::LoopServices;
use strata_graph::Consumer;
use strata_registry::ToolRegistry;
use strata_services::config::Config;
use strata_services::flags::RuntimeFlags;
use strata_services::fs::FsUtil;
use strata_services::instance::InstanceInfo;
use strata_services::permission::Permission;
use strata_services::question::Question;
use strata_services::skills::Skills;

/// `strata tool`: one tool, once, with its asks answered at the terminal.
pub(super) type ToolNeeds = (
    ToolRegistry,
    Permission,
    Config,
    RuntimeFlags,
    Question,
    Skills,
);
pub(super) const TOOL: &str = "strata tool";

/// `strata tools`: the surface a model would see.
pub(super) type ToolsNeeds = (ToolRegistry, Config, RuntimeFlags, Skills);
pub(super) const TOOLS: &str = "strata tools";

/// `strata skills`: the skills found and where they were looked for.
pub(super) type SkillsNeeds = (Skills, Config, RuntimeFlags, InstanceInfo, FsUtil);
pub(super) const SKILLS: &str = "strata skills";

/// `strata tool`'s declaration: it runs on the registry's graph, without the agent.
pub(super) fn tool() -> Consumer {
    Consumer::of::<ToolNeeds>(TOOL)
}

/// Every consumer of an instance in this binary.
pub(super) fn all() -> Vec<Consumer> {
    vec![
        Consumer::of::<LoopServices>(LoopServices::CONSUMER),
        tool(),
        Consumer::of::<ToolsNeeds>(TOOLS),
        Consumer::of::<SkillsNeeds>(SKILLS),
        Consumer::of::<strata_mcpserver::Needs>(strata_mcpserver::CONSUMER),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_production_graph_serves_every_command() {
        let graph = strata_agent::production();
        let seed = strata_graph::Available::of::<strata_services::instance::InstanceSeed>(
            strata_graph::Tier::Instance,
        );
        if let Err(report) = graph.validate_for(&[seed], &all()) {
            panic!("{report}");
        }
    }

    #[test]
    fn the_tool_command_is_served_by_the_registry_graph_alone() {
        let seed = strata_graph::Available::of::<strata_services::instance::InstanceSeed>(
            strata_graph::Tier::Instance,
        );
        if let Err(report) = strata_registry::production().validate_for(&[seed], &[tool()]) {
            panic!("{report}");
        }
    }

    #[test]
    fn a_graph_without_a_service_names_each_command_that_needs_it() {
        let mut graph = strata_graph::Graph::new();
        for node in strata_agent::production().nodes() {
            if node.key() != "Skills" {
                graph.add(node.clone());
            }
        }
        let report = match graph.validate_for(&[], &all()) {
            Ok(()) => panic!("Skills was removed"),
            Err(r) => r.to_string(),
        };
        for name in [LoopServices::CONSUMER, TOOL, TOOLS, SKILLS] {
            assert!(
                report.contains(&format!("`{name}` resolves `Skills`")),
                "{name} is not named:\n{report}"
            );
        }
    }
}
