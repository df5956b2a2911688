//! `strata tools`: the tool surface a model sees, with each tool's schema. By default the
//! surface of a run without a terminal (no `question`); `--interactive` shows a terminal run's.
//! `--agent NAME` shows that agent's surface (default `build`): tools its rules deny for `*`
//! are left out. Each tool has its state: `loaded` (its schema is sent) or `deferred` (only
//! its name, until `tool_search` loads it), for a new session of that model.

use serde_json::json;
use strata_registry::rules::{non_interactive_rules, ruleset_of};
use strata_registry::{AgentInfo, Deferral, SurfaceSpec, ToolState};

use super::{consumers, instance};
use crate::args::{Format, ToolsArgs};

pub(super) async fn tools(args: ToolsArgs) -> u8 {
    let (runtime, inst) = match instance::open(args.dir.clone()).await {
        Ok(x) => x,
        Err(e) => {
            eprintln!("strata: {e}");
            return 1;
        }
    };
    let agent = super::agents::of(&inst)
        .and_then(|agents| super::agents::choose(&agents, args.agent.as_deref()));
    let code = match agent {
        Err(e) => {
            eprintln!("strata: {e}");
            2
        }
        Ok(agent) => match list(&inst, &args, &agent) {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("strata: {e}");
                1
            }
        },
    };
    instance::close(runtime, inst).await;
    code
}

fn list(
    inst: &strata_registry::Instance,
    args: &ToolsArgs,
    agent: &AgentInfo,
) -> Result<(), String> {
    let (model, format) = (args.model.as_str(), args.format);
    let (registry, config, flags, skills) =
        strata_graph::resolve::<consumers::ToolsNeeds>(inst.context(), consumers::TOOLS)
            .map_err(|e| e.to_string())?;
    let mut ruleset = ruleset_of(agent, &config, &flags, &skills).map_err(|e| e.to_string())?;
    if !args.interactive {
        ruleset.extend(non_interactive_rules());
    }
    let spec = SurfaceSpec {
        model: model.to_string(),
        plan_mode: false,
        ruleset,
        flags: flags.enabled(),
        backends: registry.configured_backends(&config, &flags),
    };
    // A fresh session's split (spec §24): nothing loaded through `tool_search` yet. Only MCP
    // tools are ever deferred, so without MCP servers the catalogue is not read (start-up).
    let window = if config.mcp.is_empty() {
        strata_agent::provider::resolve::UNKNOWN_MODEL_CONTEXT
    } else {
        strata_agent::catalogue::settings(model, &config.provider, None).map_or(
            strata_agent::provider::resolve::UNKNOWN_MODEL_CONTEXT,
            |s| strata_agent::session::deferred::context_window(&s),
        )
    };
    let deferral = Deferral {
        context_window: window,
        loaded: Vec::new(),
    };
    let layout = registry.layout(&spec, &deferral);
    let states = layout.states();
    match format {
        Format::Json => {
            let tools: Vec<_> = states
                .iter()
                .map(|(t, state)| {
                    json!({
                        "id": t.id,
                        "description": t.description,
                        "parameters": *t.schema,
                        "effects": t.effects,
                        "state": state,
                    })
                })
                .collect();
            let out = json!({
                "model": model,
                "loaded": layout.tools.len(),
                "deferred": layout.deferred.len(),
                "tools": tools,
            });
            println!(
                "{}",
                serde_json::to_string_pretty(&out).map_err(|e| e.to_string())?
            );
        }
        Format::Default => {
            for (t, state) in states {
                let first = t.description.lines().next().unwrap_or_default();
                let mark = if state == ToolState::Deferred {
                    " (deferred)"
                } else {
                    ""
                };
                println!("{:<12} {first}{mark}", t.id);
            }
        }
    }
    Ok(())
}
