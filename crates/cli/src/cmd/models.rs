//! `strata models [provider] [--all]`: the models Strata can call now (a provider with a key,
//! or one whose base URL needs none), or every known one with what each provider still needs.
//! Only this command and `strata auth` load the model catalogue at start.

use strata_agent::provider::resolve::ListedProvider;
use strata_agent::session::LoopServices;

use super::{instance, models_view};
use crate::args::{Format, ModelsArgs};

pub(super) async fn models(args: ModelsArgs) -> u8 {
    let (runtime, inst) = match instance::open(args.dir.clone()).await {
        Ok(x) => x,
        Err(e) => {
            eprintln!("strata: {e}");
            return 1;
        }
    };
    let code = match LoopServices::from_context(inst.context()) {
        Ok(services) => show(&services, &args),
        Err(e) => {
            eprintln!("strata: {e}");
            1
        }
    };
    instance::close(runtime, inst).await;
    code
}

fn show(services: &LoopServices, args: &ModelsArgs) -> u8 {
    let resolver = services.resolver();
    let mut listed = resolver.list();
    if let Some(id) = &args.provider {
        if !resolver.knows(id) {
            eprintln!("strata: {}", unknown(id, &resolver.closest_ids(id, 3)));
            return 1;
        }
        if !resolver.allowed(id) {
            eprintln!(
                "strata: the provider `{id}` is turned off by the config's `enabled_providers` \
                 or `disabled_providers`; change those to use it"
            );
            return 1;
        }
        listed.retain(|p| &p.id == id);
    }
    if !args.all {
        let named_but_unusable = match (&args.provider, listed.first()) {
            (Some(_), Some(p)) => p.problem.clone(),
            _ => None,
        };
        if let Some(problem) = named_but_unusable {
            eprintln!("strata: {problem}");
            return 1;
        }
        listed.retain(ListedProvider::usable);
    }
    match args.format {
        Format::Json => println!("{}", models_view::json_rows(&listed)),
        Format::Default if listed.is_empty() => eprintln!(
            "No provider can be called yet: set a provider's key variable (e.g. \
             ANTHROPIC_API_KEY) or run `strata auth login <provider>`; `strata models --all` \
             lists every known provider and what it needs."
        ),
        Format::Default => print!("{}", models_view::table(&listed)),
    }
    0
}

/// The refusal of an id neither the config nor the catalogue knows.
pub(super) fn unknown(id: &str, close: &[String]) -> String {
    let hint = if close.is_empty() {
        String::new()
    } else {
        let names: Vec<String> = close.iter().map(|c| format!("`{c}`")).collect();
        format!(" (did you mean {}?)", names.join(", "))
    };
    format!("unknown provider `{id}`{hint}; `strata models --all` lists the known ones")
}
