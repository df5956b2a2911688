//! `strata skills`: every skill the project's instance found, where it came from, whether the
//! model sees it, what discovery warned about, and the folders searched.

use serde_json::json;
use strata_registry::rules::agent_ruleset;
use strata_services::fs::FileKind;
use strata_services::skills;

use super::{consumers, instance};
use crate::args::{Format, SkillsArgs};

pub(super) async fn skills(args: SkillsArgs) -> u8 {
    let (runtime, inst) = match instance::open(args.dir).await {
        Ok(x) => x,
        Err(e) => {
            eprintln!("strata: {e}");
            return 1;
        }
    };
    let code = match list(&inst, args.format).await {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("strata: {e}");
            1
        }
    };
    instance::close(runtime, inst).await;
    code
}

async fn list(inst: &strata_registry::Instance, format: Format) -> Result<(), String> {
    let (found, config, flags, info, fs) =
        strata_graph::resolve::<consumers::SkillsNeeds>(inst.context(), consumers::SKILLS)
            .map_err(|e| e.to_string())?;
    let rules = agent_ruleset("build", &config, &flags, &found).map_err(|e| e.to_string())?;
    let mut sources = Vec::new();
    for (path, source) in skills::sources(&info, &config, &flags) {
        let exists = matches!(fs.stat(&path).await, Ok(Some(m)) if m.kind == FileKind::Dir);
        sources.push((path, source, exists));
    }
    match format {
        Format::Json => {
            let skills: Vec<_> = found
                .all()
                .map(|s| {
                    let denied = skills::denied(&s.name, &rules);
                    json!({
                        "name": s.name,
                        "description": s.description,
                        "location": s.location,
                        "dir": s.dir,
                        "source": s.source.to_string(),
                        "listed": !denied && s.description.is_some(),
                        "denied": denied,
                    })
                })
                .collect();
            let sources: Vec<_> = sources
                .iter()
                .map(|(path, source, exists)| {
                    json!({"path": path, "source": source.to_string(), "exists": exists})
                })
                .collect();
            let out = json!({
                "skills": skills,
                "warnings": found.warnings(),
                "sources": sources,
            });
            println!(
                "{}",
                serde_json::to_string_pretty(&out).map_err(|e| e.to_string())?
            );
        }
        Format::Default => {
            let count = found.all().count();
            if count == 0 {
                println!("No skills found.");
            }
            for s in found.all() {
                println!("{} ({}) {}", s.name, s.source, s.location.display());
                let note = if skills::denied(&s.name, &rules) {
                    "(denied by the `skill` permission: neither listed nor loadable)"
                } else if s.description.is_none() {
                    "(no description: loadable by name, not listed to the model)"
                } else {
                    ""
                };
                if let Some(d) = &s.description {
                    println!("    {d}");
                }
                if !note.is_empty() {
                    println!("    {note}");
                }
            }
            if !found.warnings().is_empty() {
                println!("\nWarnings:");
                for w in found.warnings() {
                    println!("  {w}");
                }
            }
            println!("\nSearched, in order (a later skill of the same name wins):");
            for (path, source, exists) in &sources {
                let missing = if *exists { "" } else { " (absent)" };
                println!("  {source:<12} {}{missing}", path.display());
            }
        }
    }
    Ok(())
}
