//! `strata tool NAME 'JSON'`: one tool, once, through the full wrapper, as a one-shot session.
//! Read-before-edit is off here (FileTime built unchecked): a person at the command line knows
//! what they edit.

use serde_json::json;
use strata_registry::rules::agent_ruleset;
use strata_services::file_time::FileTime;
use strata_tools::ToolCx;

use super::{consumers, instance};
use crate::args::{Format, ToolArgs};
use crate::ask::{AskMode, spawn_question_responder, spawn_responder};

/// How the arguments look, for the error about invalid ones.
const EXAMPLE: &str = r#"'{"filePath":"README.md"}'"#;

pub(super) async fn tool(args: ToolArgs) -> u8 {
    if serde_json::from_str::<serde_json::Value>(&args.args).is_err() {
        eprintln!(
            "strata: the arguments are not valid JSON: {}\nPass them as one quoted JSON object, e.g. {EXAMPLE}.",
            args.args
        );
        return 2;
    }
    let mut graph = strata_registry::production();
    if let Err(e) = graph.replace::<FileTime>(FileTime::node_unchecked()) {
        eprintln!("strata: {e}");
        return 1;
    }
    let (runtime, inst) =
        match instance::open_with(args.dir.clone(), graph, &[consumers::tool()]).await {
            Ok(x) => x,
            Err(e) => {
                eprintln!("strata: {e}");
                return 1;
            }
        };
    let code = run_once(&inst, &args).await;
    instance::close(runtime, inst).await;
    code
}

async fn run_once(inst: &strata_registry::Instance, args: &ToolArgs) -> u8 {
    let (registry, permission, config, flags, question, skills) =
        match strata_graph::resolve::<consumers::ToolNeeds>(inst.context(), consumers::TOOL) {
            Ok(services) => services,
            Err(e) => {
                eprintln!("strata: {e}");
                return 1;
            }
        };
    let Some(tool) = registry.get(&args.name) else {
        eprintln!(
            "strata: there is no tool named `{}`. Available: {}",
            args.name,
            registry.ids().join(", ")
        );
        return 2;
    };
    let ruleset = match agent_ruleset("build", &config, &flags, &skills) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("strata: {e}");
            return 1;
        }
    };
    let responder = spawn_responder(permission.clone(), AskMode::from_flags(args.yes, false));
    let answerer = spawn_question_responder(question);
    let session = format!("ses_cli_{}", std::process::id());
    let cx = ToolCx::builder(session)
        .agent("build")
        .permission(permission, ruleset)
        .build();
    let result = tool.call(args.args.clone(), cx).await;
    responder.abort();
    answerer.abort();
    match (result, args.format) {
        (Ok(r), Format::Json) => {
            println!("{}", json!(r));
            0
        }
        (Ok(r), Format::Default) => {
            println!("{}", r.output);
            for a in &r.attachments {
                eprintln!(
                    "(attachment: {}, {} bytes as a data URL)",
                    a.mime,
                    a.url.len()
                );
            }
            0
        }
        (Err(e), Format::Json) => {
            println!("{}", json!({"error": e.to_string()}));
            1
        }
        (Err(e), Format::Default) => {
            eprintln!("{e}");
            1
        }
    }
}
