#![allow(clippy::unwrap_used)]
mod common;
mod e2e_run_support;
use common::Project;
use e2e_run_support::*;
use strata_testkit::model_server::{ModelServer, Turn, call};

fn five() -> Vec<Turn> {
    vec![
        Turn::tool_call("c1", "glob", r#"{"pattern":"**/*.rs"}"#),
        Turn::tool_call("c2", "read", r#"{"filePath":"src/lib.rs"}"#),
        Turn::ToolCalls(vec![
            call("c3", "grep", r#"{"pattern":"fn one"}"#),
            call("c4", "read", r#"{"filePath":"README.md"}"#),
        ]),
        Turn::tool_call("c5", "grep", r#"{"pattern":"demo"}"#),
        Turn::text("There is one function, `one`, in src/lib.rs."),
    ]
}

#[test]
fn scratch_measure() {
    let p = Project::new();
    p.file("src/lib.rs", "pub fn one() -> u32 { 1 }\n");
    p.file("README.md", "# demo\n");
    for bin in [std::env::var("STRATA_MEASURE_BIN").unwrap()] {
        let server = ModelServer::start(five());
        let mut cmd = std::process::Command::new("/usr/bin/time");
        cmd.arg("-v").arg(&bin).args(["run", "--model", MODEL, "what functions are there?"]);
        cmd.current_dir(&p.dir).env("STRATA_DATA_DIR", &p.data).env("STRATA_CONFIG_DIR", &p.config)
            .env("HOME", &p.home).env("OPENAI_BASE_URL", server.url());
        let out = cmd.output().unwrap();
        println!("STDOUT:\n{}", String::from_utf8_lossy(&out.stdout));
        println!("STDERR:\n{}", String::from_utf8_lossy(&out.stderr));
    }
    let server = ModelServer::start(vec![
        Turn::TextAndToolCalls("Checking the env.".into(), vec![call("c1", "read", r#"{"filePath":".env"}"#)]),
        Turn::text("done"),
    ]);
    p.file(".env", "X=1\n");
    let r = on_tty(&p, &server, &["run", "--model", MODEL, "read .env"], "a\n");
    println!("TTY:\n{:?}", r.stdout);
}
