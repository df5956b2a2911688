//! `strata run`: the agent loop on one message in a project, rendered as it happens.
//!
//! The agent comes from `--agent` (default `build`; an unknown name is a usage error listing
//! the agents). The model comes from `--model`, else the agent's, else the config's `model`,
//! else the default for the first API key set (see `default_model`); the provider from the
//! environment (`OPENAI_BASE_URL`, `OPENAI_API_KEY`, …) and the config's `provider` map. The
//! session is new, the directory's last one (`--continue`) or a given one (`--session`).
//! Exit codes: 0 the model finished, 1 the run failed or stopped (a model error, a refused
//! permission, a dismissed question, the step budget), 2 usage errors, 130 cancelled with
//! Ctrl-C, 143 by SIGTERM, 129 by SIGHUP. Questions are put to the user on a terminal with the
//! default format, or to a program with `--format json --answers stdin` (asks are JSON lines on
//! stdout, replies JSON lines on stdin); other runs deny the `question` permission, so the model
//! is not offered the tool. `--command server:prompt args…` runs an MCP prompt as the message
//! (its arguments from the words, in order or as `name=value`).

use strata_agent::session::{
    LoopServices, Model, RunOptions, RunOutcome, RunReport, Runner, SessionTarget, open_session,
    small_model,
};
use strata_registry::rules::non_interactive_rules;
use strata_registry::{AgentInfo, Instance, Runtime};
use strata_services::mcp::{Mcp, PromptError};
use strata_services::question::Question;
use tokio_util::sync::CancellationToken;

use strata_services::process::sandbox::Sandbox;

use super::instance::project_dir;
use crate::args::{Answers, Format, RunArgs};
use crate::render::prompt::AskMode;
use crate::render::{self, Frontend};

/// Exit code of a run cancelled with Ctrl-C (128 + SIGINT).
const CANCELLED: u8 = 130;

pub(super) async fn run(args: RunArgs) -> u8 {
    let message = args.message.join(" ");
    if args.command.is_none() && message.trim().is_empty() {
        eprintln!(
            "strata: the message is empty; say what the agent should do, e.g. `strata run \"fix the failing test\"`"
        );
        return 2;
    }
    if let Some(usage) = answers_usage(&args) {
        eprintln!("strata: {usage}");
        return 2;
    }
    let dir = match project_dir(args.dir.clone()) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("strata: {e}");
            return 2;
        }
    };
    let dir = match &args.worktree {
        Some(name) => match super::worktree::enter(&dir, name).await {
            Ok(d) => d,
            Err(e) => {
                eprintln!("strata: {e}");
                return if message_taken(&args) { 2 } else { 1 };
            }
        },
        None => dir,
    };
    let graph = super::instance::with_sandbox(strata_agent::production(), args.sandbox.as_deref());
    let runtime = match Runtime::start_for(graph, &super::consumers::all()).await {
        Ok(r) => r,
        Err(e) => {
            eprintln!("strata: {e}");
            return 1;
        }
    };
    let code = match runtime.instance(&dir).await {
        Ok(instance) => {
            super::mcp::warn_failed(&instance);
            let code = run_in(&instance, &args, &message).await;
            instance.dispose().await;
            code
        }
        Err(e) => {
            eprintln!("strata: {e}");
            1
        }
    };
    runtime.shutdown().await;
    code
}

/// Why `--answers` cannot be used as given (local and `--attach` runs alike).
pub(super) fn answers_usage(args: &RunArgs) -> Option<&'static str> {
    (args.answers.is_some() && args.format != Format::Json).then_some(
        "--answers stdin needs --format json: the asks it answers are printed as JSON lines",
    )
}

/// Whether `--worktree` probably swallowed the message's first word (`strata run --worktree
/// fix the bug`): then the name is refused and the hint says how to write it.
fn message_taken(args: &RunArgs) -> bool {
    let taken = args
        .worktree
        .as_deref()
        .is_some_and(|n| !n.is_empty() && strata_services::worktree::invalid_reason(n).is_some());
    if taken {
        eprintln!(
            "strata: to let Strata name the worktree, put --worktree after the message or write \
             `--worktree=NAME`"
        );
    }
    taken
}

/// Why the run stops before it starts: the exit code and what to print.
struct Stop(u8, String);

impl Stop {
    fn usage(e: impl std::fmt::Display) -> Self {
        Stop(2, format!("strata: {e}"))
    }

    fn failed(e: impl std::fmt::Display) -> Self {
        Stop(1, format!("strata: {e}"))
    }

    fn missing_service(e: impl std::fmt::Display) -> Self {
        Stop(
            1,
            format!("strata: {e}; run `strata debug graph` to see the services"),
        )
    }
}

async fn run_in(instance: &Instance, args: &RunArgs, message: &str) -> u8 {
    let prepared = match prepare(instance, args) {
        Ok(run) => run,
        Err(Stop(code, message)) => {
            eprintln!("{message}");
            return code;
        }
    };
    let message = match &args.command {
        None => message.to_string(),
        Some(command) => match expand(instance, command, &args.message).await {
            Ok(text) => text,
            Err(Stop(code, message)) => {
                eprintln!("{message}");
                return code;
            }
        },
    };
    drive(prepared, args, &message).await
}

/// The text of `--command server:prompt words…`: the MCP prompt with its arguments filled
/// from `words`. An unknown prompt or arguments that do not fit are usage errors.
async fn expand(instance: &Instance, command: &str, words: &[String]) -> Result<String, Stop> {
    let mcp = instance.get::<Mcp>().map_err(Stop::missing_service)?;
    let cancel = CancellationToken::new();
    match mcp.expand_prompt(command, words, &cancel).await {
        Ok(text) => Ok(text),
        Err(e @ (PromptError::Unknown { .. } | PromptError::Usage(_))) => {
            Err(Stop::usage(format!("--command: {e}")))
        }
        Err(PromptError::Mcp(e)) => Err(Stop::failed(e)),
    }
}

/// What a run needs once its agent, model and session are settled.
struct Prepared {
    services: LoopServices,
    question: Question,
    agent: AgentInfo,
    model: Model,
    session_id: String,
}

/// Settles the services, agent, model and session, warning about what is off on the way.
fn prepare(instance: &Instance, args: &RunArgs) -> Result<Prepared, Stop> {
    let services = LoopServices::from_context(instance.context()).map_err(Stop::missing_service)?;
    super::config::print_warnings(&services.config);
    for warning in services.hooks.warnings() {
        eprintln!("strata: warning: {warning}");
    }
    super::hooks::offer_trust(&services.hooks);
    let sandbox = instance.get::<Sandbox>().map_err(Stop::missing_service)?;
    eprintln!("strata: {}", sandbox.status_line());
    super::agents::warn_broken(&services.agents);
    let agent =
        super::agents::choose(&services.agents, args.agent.as_deref()).map_err(Stop::usage)?;
    let model = choose_model(&services, args, &agent)?;
    let target = match (&args.session, args.r#continue) {
        (Some(id), _) => SessionTarget::Id(id.clone()),
        (None, true) => SessionTarget::Continue,
        (None, false) => SessionTarget::New,
    };
    let session =
        open_session(&services.store, &services.info.directory, &target).map_err(Stop::failed)?;
    let question = instance.get::<Question>().map_err(Stop::missing_service)?;
    Ok(Prepared {
        services,
        question,
        agent,
        model,
        session_id: session.id,
    })
}

/// `--model` first, then the agent's own model, then the config's, then a key's default;
/// resolved through the instance's providers.
fn choose_model(services: &LoopServices, args: &RunArgs, agent: &AgentInfo) -> Result<Model, Stop> {
    let chosen = (args.model.clone())
        .or_else(|| agent.model.clone())
        .or_else(|| services.config.model.clone());
    let model_id = match chosen {
        Some(m) => m,
        None => {
            let (key, model) = super::default_model::pick(|key: &str| std::env::var(key).ok())
                .ok_or_else(|| Stop(2, super::default_model::none_chosen()))?;
            eprintln!("strata: using {model} ({key} is set; pass --model to choose another)");
            model.to_string()
        }
    };
    let resolved = services
        .resolver()
        .resolve(&model_id)
        .map_err(Stop::usage)?;
    for warning in &resolved.warnings {
        eprintln!("strata: warning: {warning}");
    }
    Ok(Model::resolved(model_id, resolved))
}

/// Runs the loop with its front-end, cancels it on a signal, and gives the exit code.
async fn drive(run: Prepared, args: &RunArgs, message: &str) -> u8 {
    let Prepared {
        services,
        question,
        agent,
        model,
        session_id,
    } = run;
    // Questions need a person at a terminal, or a program replying on stdin.
    let on_stdin = args.answers == Some(Answers::Stdin);
    let interactive = args.format == Format::Default && render::question::interactive();
    let cancel = CancellationToken::new();
    let (sink, events) = tokio::sync::mpsc::unbounded_channel();
    let frontend = Frontend {
        format: args.format,
        mode: AskMode::from_flags(args.yes, on_stdin),
        session_id: session_id.clone(),
        permission: services.permission.clone(),
        asks: services.permission.subscribe(),
        questions: question.subscribe(),
        question,
        interactive,
        cancel: cancel.clone(),
        store: services.store.clone(),
        replies: on_stdin.then(render::read_stdin),
        waiting: render::Waiting::default(),
    };
    let frontend = tokio::spawn(frontend.drive(events));
    let options = RunOptions {
        agent: agent.name.clone(),
        max_steps: args.max_steps,
        variant: args.variant.clone(),
        // Without anyone to answer, `question` is denied and so not offered.
        session_rules: if interactive || on_stdin {
            Vec::new()
        } else {
            non_interactive_rules()
        },
        small_model: small_model::resolve(&services.config, &services.resolver()),
        ..RunOptions::default()
    };
    let runner = Runner::new(services, model, options);
    let run = runner.run(&session_id, message, cancel.clone(), Some(sink));
    tokio::pin!(run);
    // SIGTERM and SIGHUP cancel like Ctrl-C, so the tool's process group is stopped too.
    let (result, signal) = tokio::select! {
        result = &mut run => (result, None),
        signal = crate::signals::interrupted() => {
            cancel.cancel();
            (run.await, Some(signal))
        }
    };
    // The loop dropped its sender: the front-end drains what is left and ends.
    let _ = frontend.await;
    // Claude Code's reason when a non-interactive run ends.
    if let Err(e) = runner.end_session(&session_id, "other").await {
        eprintln!("strata: the SessionEnd hooks were not recorded: {e}");
    }
    match result {
        Ok(report) => match (outcome_code(&report, args.format), signal) {
            (CANCELLED, Some(signal)) => signal.exit_code(),
            (code, _) => code,
        },
        Err(e) => {
            eprintln!("strata: {e}");
            1
        }
    }
}

fn outcome_code(report: &RunReport, format: Format) -> u8 {
    let quiet = format == Format::Json;
    match &report.outcome {
        RunOutcome::Completed => 0,
        // Already shown as an error event.
        RunOutcome::Failed { .. } | RunOutcome::StepLimit { .. } => 1,
        RunOutcome::Stopped { reason } => {
            if !quiet {
                let first = reason.lines().next().unwrap_or_default();
                eprintln!("strata: the run stopped: {first}");
            }
            1
        }
        RunOutcome::Cancelled => {
            if !quiet {
                eprintln!(
                    "strata: cancelled; resume with `strata run --session {} …`",
                    report.session_id
                );
            }
            CANCELLED
        }
    }
}
