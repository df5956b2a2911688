//! `strata auth` and `strata models` run as a user would: keys piped in or typed on a terminal,
//! stored in the data directory readable by the user only and never printed; the models
//! listed are those a key (or a local server) makes callable, or every known one with `--all`.
//! Each command runs with an environment cleared of the machine's own keys.

use std::collections::BTreeSet;
use std::os::unix::fs::PermissionsExt;
use std::process::Command;
use std::time::Duration;

use super::common::{Project, Run, strata_bin};
use super::tty_driver::Tty;

const KEY: &str = "gsk-e2e-secret-0123456789";

/// `strata ARGS` with only the project's variables, `PATH` and `env` set; `input` on stdin.
fn clean(p: &Project, args: &[&str], env: &[(&str, &str)], input: Option<&str>) -> Run {
    let mut cmd = Command::new(strata_bin());
    cmd.args(args).env_clear();
    p.environment(&mut cmd);
    cmd.env("PATH", std::env::var_os("PATH").unwrap_or_default());
    cmd.envs(env.iter().copied());
    p.run(cmd, input)
}

/// The provider ids of the table's block headers (`id (Name): …`).
fn providers_shown(table: &str) -> BTreeSet<String> {
    table
        .lines()
        .filter(|l| !l.starts_with(' ') && l.contains(" ("))
        .map(|l| l.split(' ').next().unwrap().to_string())
        .collect()
}

#[test]
fn a_piped_key_is_stored_privately_listed_without_showing_it_and_removed() {
    let p = Project::new();
    let login = clean(
        &p,
        &["auth", "login", "groq"],
        &[],
        Some(&format!("{KEY}\n")),
    );
    login.expect_code(0);
    let file = p.data.join("auth.json");
    assert!(
        login.stdout.contains(&file.display().to_string()),
        "{login:?}"
    );
    assert!(login.stdout.contains("GROQ_API_KEY"), "{login:?}");
    let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let stored: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(
        stored["groq"],
        serde_json::json!({"type": "api", "key": KEY})
    );

    let list = clean(&p, &["auth", "list"], &[("GROQ_API_KEY", "gsk-env")], None);
    list.expect_code(0);
    assert!(list.stdout.contains("groq: stored by Strata"), "{list:?}");
    assert!(list.stdout.contains("ends in …6789"), "{list:?}");
    assert!(
        list.stdout
            .contains("groq: GROQ_API_KEY is set in the environment"),
        "{list:?}"
    );
    // The stored key makes the provider callable.
    let models = clean(&p, &["models", "groq"], &[], None);
    models.expect_code(0);
    assert!(
        models
            .stdout
            .starts_with("groq (Groq): key from `strata auth login`"),
        "{models:?}"
    );
    for run in [&login, &list, &models] {
        assert!(
            !run.stdout.contains(KEY) && !run.stderr.contains(KEY),
            "{run:?}"
        );
    }

    clean(&p, &["auth", "logout", "groq"], &[], None).expect_code(0);
    let again = clean(&p, &["auth", "logout", "groq"], &[], None);
    again.expect_code(1);
    assert!(again.stderr.contains("no key for `groq`"), "{again:?}");
    let none = clean(&p, &["models", "groq"], &[], None);
    none.expect_code(1);
    assert!(none.stderr.contains("strata auth login groq"), "{none:?}");
}

#[test]
fn a_mistyped_provider_is_refused_with_the_closest_ids_unless_forced() {
    let p = Project::new();
    // Without an id on the command line, it is the first line read.
    let typo = clean(&p, &["auth", "login"], &[], Some("grq\nkey-1\n"));
    typo.expect_code(1);
    assert!(typo.stderr.contains("did you mean `groq`"), "{typo:?}");
    assert!(typo.stderr.contains("--force"), "{typo:?}");
    assert!(!p.data.join("auth.json").exists());
    let forced = clean(
        &p,
        &["auth", "login", "my-box", "--force"],
        &[],
        Some("key-2\n"),
    );
    forced.expect_code(0);
    let list = clean(&p, &["auth", "list"], &[], None);
    assert!(list.stdout.contains("my-box: stored by Strata"), "{list:?}");
    // Too short for its tail to be shown.
    assert!(!list.stdout.contains("ends in"), "{list:?}");
}

#[test]
fn a_key_typed_on_a_terminal_is_not_echoed() {
    let p = Project::new();
    let mut base = Command::new(strata_bin());
    p.environment(&mut base);
    let line = format!("exec '{}' auth login groq", strata_bin().display());
    let mut tty = Tty::spawn(&base, &line);
    let limit = Duration::from_secs(60);
    assert!(tty.wait_for("(not shown)", limit), "{}", tty.plain());
    tty.send(format!("{KEY}\r").as_bytes());
    assert!(tty.wait_for("Stored the key", limit), "{}", tty.plain());
    let status = tty.wait_exit(limit);
    assert!(status.is_some_and(|s| s.success()), "{}", tty.plain());
    assert!(
        !tty.raw().contains(KEY),
        "the key was echoed: {}",
        tty.raw()
    );
    let stored = std::fs::read_to_string(p.data.join("auth.json")).unwrap();
    assert!(stored.contains(KEY));
}

#[test]
fn ctrl_c_at_the_key_prompt_cancels_and_leaves_echo_on() {
    let p = Project::new();
    let mut base = Command::new(strata_bin());
    p.environment(&mut base);
    // The shell goes on after strata and prints the terminal's settings.
    let line = format!(
        "'{}' auth login groq; echo \"exit=$?\"; stty -a",
        strata_bin().display()
    );
    let mut tty = Tty::spawn(&base, &line);
    let limit = Duration::from_secs(60);
    assert!(tty.wait_for("(not shown)", limit), "{}", tty.plain());
    tty.send(b"half-typed\x03");
    let status = tty.wait_exit(limit);
    assert!(status.is_some(), "{}", tty.plain());
    let shown = tty.plain();
    assert!(shown.contains("cancelled at the key prompt"), "{shown}");
    assert!(shown.contains("exit=1"), "{shown}");
    let settings: Vec<&str> = shown.split_whitespace().collect();
    assert!(settings.contains(&"echo"), "echo is still off: {shown}");
    assert!(settings.contains(&"isig"), "signals are still off: {shown}");
    assert!(!p.data.join("auth.json").exists());
}

#[test]
fn models_lists_only_what_can_be_called_now() {
    let p = Project::new();
    let run = clean(&p, &["models"], &[("GROQ_API_KEY", "gsk-env")], None);
    run.expect_code(0);
    let shown = providers_shown(&run.stdout);
    assert!(shown.contains("groq"), "{run:?}");
    assert!(
        !shown.contains("anthropic") && !shown.contains("openai"),
        "{shown:?}"
    );
    // Every other provider listed is a server on this machine that needs no key.
    for header in run
        .stdout
        .lines()
        .filter(|l| !l.starts_with(' ') && l.contains(" ("))
    {
        assert!(
            header.starts_with("groq (Groq): key from GROQ_API_KEY")
                || header.ends_with("no key needed"),
            "{header}"
        );
    }
    assert!(
        run.stdout.contains("groq/llama-3.3-70b-versatile"),
        "{run:?}"
    );
}

#[test]
fn models_all_lists_every_known_provider_with_what_it_still_needs() {
    let p = Project::new();
    let run = clean(&p, &["models", "--all"], &[], None);
    run.expect_code(0);
    let shown = providers_shown(&run.stdout);
    assert!(shown.len() >= 140, "{} providers", shown.len());
    assert!(
        run.stdout.contains(
            "groq (Groq): not usable: no API key for the provider `groq`: set GROQ_API_KEY or \
             run `strata auth login groq`"
        ),
        "{}",
        &run.stdout[..2000.min(run.stdout.len())]
    );
    let json = clean(&p, &["models", "--all", "--format", "json"], &[], None).json();
    let rows = json.as_array().unwrap();
    let providers: BTreeSet<&str> = rows
        .iter()
        .map(|r| r["provider"].as_str().unwrap())
        .collect();
    assert!(providers.len() >= 140, "{}", providers.len());
    assert!(rows.len() >= 5000, "{}", rows.len());
    let sonnet = rows
        .iter()
        .find(|r| r["id"] == "anthropic/claude-sonnet-4-20250514")
        .unwrap();
    assert_eq!(sonnet["context"], 200_000);
    assert_eq!(sonnet["cost"]["cache_write"], 3.75);
    assert_eq!(sonnet["usable"], false);
    for key in ["name", "output", "reasoning"] {
        assert!(!sonnet[key].is_null(), "{key}: {sonnet}");
    }
}

#[test]
fn models_of_one_provider_with_its_key_set() {
    let p = Project::new();
    let run = clean(
        &p,
        &["models", "groq"],
        &[("GROQ_API_KEY", "gsk-env")],
        None,
    );
    run.expect_code(0);
    insta::assert_snapshot!("models_groq", run.stdout);
}
