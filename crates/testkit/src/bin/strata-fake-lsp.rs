//! `strata-fake-lsp SCRIPT.json`: the scripted language server of
//! [`strata_testkit::fake_lsp`], on stdin and stdout.

use std::process::ExitCode;

use strata_testkit::fake_lsp::{Script, serve};

fn main() -> ExitCode {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: strata-fake-lsp SCRIPT.json (see strata_testkit::fake_lsp::Script)");
        return ExitCode::from(2);
    };
    let script: Script = match std::fs::read(&path)
        .map_err(|e| e.to_string())
        .and_then(|bytes| serde_json::from_slice(&bytes).map_err(|e| e.to_string()))
    {
        Ok(script) => script,
        Err(e) => {
            eprintln!("strata-fake-lsp: cannot use script {}: {e}", path.display());
            return ExitCode::from(2);
        }
    };
    match serve(script, std::io::stdin().lock(), std::io::stdout().lock()) {
        Ok(Some(code)) => ExitCode::from(code),
        // Scripted to hang: it stays until it is killed.
        Ok(None) => loop {
            std::thread::park();
        },
        Err(e) => {
            eprintln!("strata-fake-lsp: {e}");
            ExitCode::from(1)
        }
    }
}
