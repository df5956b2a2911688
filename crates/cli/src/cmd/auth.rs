//! `strata auth login|list|logout`: API keys kept in `<data dir>/auth.json` (readable by the
//! user only). A key variable in the environment wins over a stored key; opencode's own
//! `auth.json` is read too, never written. Keys are never printed, at most their last four
//! characters.

use strata_agent::provider::Credentials;
use strata_agent::provider::credentials::KeyOrigin;
use strata_agent::provider::resolve::Resolver;
use strata_agent::session::LoopServices;
use strata_services::flags::RuntimeFlags;

use super::instance;
use super::models::unknown;
use super::secret::Source;
use crate::args::AuthCommand;

pub(super) async fn auth(command: AuthCommand) -> u8 {
    let (dir, provider, force) = match command {
        AuthCommand::Logout { provider } => return report(logout(&provider)),
        AuthCommand::Login {
            provider,
            force,
            dir,
        } => (dir, Some(provider), force),
        AuthCommand::List { dir } => (dir, None, false),
    };
    let (runtime, inst) = match instance::open(dir).await {
        Ok(x) => x,
        Err(e) => {
            eprintln!("strata: {e}");
            return 1;
        }
    };
    let result = LoopServices::from_context(inst.context())
        .map_err(|e| e.to_string())
        .and_then(|services| match provider {
            Some(id) => login(&services, id, force),
            None => {
                list(&services);
                Ok(())
            }
        });
    instance::close(runtime, inst).await;
    report(result)
}

fn report(result: Result<(), String>) -> u8 {
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("strata: {e}");
            1
        }
    }
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

fn credentials(flags: &RuntimeFlags) -> Credentials {
    Credentials::standard(&flags.data_dir, &flags.home_dir, &env)
}

fn login(services: &LoopServices, provider: Option<String>, force: bool) -> Result<(), String> {
    let resolver = services.resolver();
    let source = Source::detect();
    let id = match provider {
        Some(id) => id,
        None => source.ask("Provider id (e.g. anthropic, openai, groq): ", false)?,
    };
    if id.is_empty() {
        return Err("no provider id was given; nothing was stored".into());
    }
    if !force && !resolver.knows(&id) {
        return Err(format!(
            "{}; pass --force to store a key for a provider you declare yourself in the config",
            unknown(&id, &resolver.closest_ids(&id, 3))
        ));
    }
    let key = source.ask(&format!("API key for {id} (not shown): "), true)?;
    if key.is_empty() {
        return Err(format!("no key was given for `{id}`; nothing was stored"));
    }
    let creds = credentials(&services.flags);
    creds.set(&id, &key)?;
    let file = creds.file().map(|f| f.display().to_string());
    println!("Stored the key for `{id}` in {}.", file.unwrap_or_default());
    let names = env_names(&resolver, &id);
    if !names.is_empty() {
        println!("{} wins over it when set.", names.join(" or "));
    }
    if let Some(set) = names.iter().find(|n| env(n).is_some()) {
        println!("{set} is set in this environment, so that is the key used now.");
    }
    Ok(())
}

/// The environment variables provider `id`'s key may come from.
fn env_names(resolver: &Resolver<'_>, id: &str) -> Vec<String> {
    resolver
        .list()
        .into_iter()
        .find(|p| p.id == id)
        .map(|p| p.env)
        .unwrap_or_default()
}

fn list(services: &LoopServices) {
    let creds = credentials(&services.flags);
    let stored = creds.list();
    let mut lines = Vec::new();
    for (id, origin) in &stored {
        let whose = match origin {
            KeyOrigin::Strata => format!(
                "stored by Strata ({})",
                creds
                    .file()
                    .map(|f| f.display().to_string())
                    .unwrap_or_default()
            ),
            KeyOrigin::Opencode => "stored by opencode (its auth.json, read only)".to_string(),
        };
        let tail = creds.key(id).map(|(k, _)| key_tail(&k)).unwrap_or_default();
        lines.push(format!("{id}: {whose}{tail}"));
    }
    for p in services.resolver().list() {
        for name in p.env.iter().filter(|n| env(n).is_some()) {
            lines.push(format!("{}: {name} is set in the environment", p.id));
        }
    }
    if lines.is_empty() {
        println!(
            "No keys are stored and no provider key variable is set; run `strata auth login \
             <provider>` to store one."
        );
    }
    for line in lines {
        println!("{line}");
    }
}

fn logout(provider: &str) -> Result<(), String> {
    let creds = credentials(&RuntimeFlags::from_env());
    let file = creds
        .file()
        .map(|f| f.display().to_string())
        .unwrap_or_default();
    let removed = creds.remove(provider)?;
    let opencode_has_one = matches!(creds.key(provider), Some((_, KeyOrigin::Opencode)));
    let note = if opencode_has_one {
        " opencode's auth.json still holds a key for it, which Strata reads too; remove it there \
         with opencode."
    } else {
        ""
    };
    if !removed {
        return Err(format!(
            "no key for `{provider}` is stored in {file}; `strata auth list` shows the stored \
             ones.{note}"
        ));
    }
    println!("Removed the key for `{provider}` from {file}.{note}");
    Ok(())
}

/// `, ends in …wxyz`: the last four characters of a key long enough that they give little
/// away; nothing for a short one.
fn key_tail(key: &str) -> String {
    let chars: Vec<char> = key.chars().collect();
    if chars.len() < 12 {
        return String::new();
    }
    let tail: String = chars[chars.len() - 4..].iter().collect();
    format!(", ends in …{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_last_four_characters_of_a_long_key_are_shown() {
        assert_eq!(key_tail("gsk-0123456789abcd"), ", ends in …abcd");
        assert_eq!(key_tail("short-key"), "");
    }
}
