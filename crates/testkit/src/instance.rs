//! `TestInstance`: a real project in a temporary directory, built from the production graph.
//!
//! Only the clock and the data/config directories (so tests never touch the user's) are
//! replaced; every service is the production implementation.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use futures::FutureExt;
use serde_json::Value;
use strata_graph::{Graph, Node, Service, Tier};
use strata_registry::{Instance, Runtime, ToolRegistry};
use strata_services::clock::{Clock, TestClock};
use strata_services::config::Config;
use strata_services::flags::RuntimeFlags;
use strata_services::permission::{Permission, PermissionEvent, Reply, Request, Ruleset};
use strata_services::skills::Skills;
use strata_tools::contract::ToolCxBuilder;
use strata_tools::{ToolCx, ToolError, ToolResult};

/// How the test instance answers permission asks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplyMode {
    /// Allow this ask only (the default).
    Once,
    Always,
    Reject(Option<String>),
    /// Leave asks pending; the test answers them.
    Manual,
}

type FlagsEdit = Box<dyn FnOnce(&mut RuntimeFlags) + Send>;

/// Builds a [`TestInstance`].
#[derive(Default)]
pub struct TestInstanceBuilder {
    git: bool,
    files: Vec<(PathBuf, Vec<u8>)>,
    outside: Vec<(PathBuf, Vec<u8>)>,
    config: Option<Value>,
    clock: Option<SystemTime>,
    flags: Option<FlagsEdit>,
    graph: Option<Graph>,
}

impl std::fmt::Debug for TestInstanceBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestInstanceBuilder")
            .field("git", &self.git)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl TestInstanceBuilder {
    /// `git init` with a first commit of the files. Needs `git`: start the test with
    /// `require_external!("git", "apt-get install git")`.
    pub fn git(mut self, yes: bool) -> Self {
        self.git = yes;
        self
    }

    pub fn file(mut self, rel: impl Into<PathBuf>, content: impl AsRef<[u8]>) -> Self {
        self.files.push((rel.into(), content.as_ref().to_vec()));
        self
    }

    /// A file outside the project, relative to the temporary root that holds `project`,
    /// `data`, `config` and `home` (the home directory of the instance's RuntimeFlags), e.g.
    /// `home/.claude/skills/x/SKILL.md`. Written before the instance starts.
    pub fn outside_file(mut self, rel: impl Into<PathBuf>, content: impl AsRef<[u8]>) -> Self {
        self.outside.push((rel.into(), content.as_ref().to_vec()));
        self
    }

    /// The project's `strata.json`.
    pub fn config(mut self, config: Value) -> Self {
        self.config = Some(config);
        self
    }

    /// A manual clock starting at `start` instead of the live one.
    pub fn manual_clock(mut self, start: SystemTime) -> Self {
        self.clock = Some(start);
        self
    }

    /// Adjusts runtime flags (e.g. the bash default timeout) before the build.
    pub fn flags(mut self, f: impl FnOnce(&mut RuntimeFlags) + Send + 'static) -> Self {
        self.flags = Some(Box::new(f));
        self
    }

    /// Builds from `graph` instead of the registry's production graph, e.g. the agent's, which
    /// adds the session store (the clock, flags and directories are still replaced).
    pub fn graph(mut self, graph: Graph) -> Self {
        self.graph = Some(graph);
        self
    }

    /// Builds the instance. Panics with the reason when it cannot (this is test code).
    pub async fn build(self) -> TestInstance {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let root = tempfile::Builder::new()
            .prefix("strata-test-")
            .tempdir()
            .expect("create a temporary project directory");
        let project = root.path().join("project");
        let data = root.path().join("data");
        let config_dir = root.path().join("config");
        let home = root.path().join("home");
        for d in [&project, &data, &config_dir, &home] {
            std::fs::create_dir_all(d).expect("create test directories");
        }
        let project_files = self.files.iter().map(|(rel, c)| (project.join(rel), c));
        let outside_files = self
            .outside
            .iter()
            .map(|(rel, c)| (root.path().join(rel), c));
        for (path, content) in project_files.chain(outside_files) {
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).expect("create parent directories");
            }
            std::fs::write(&path, content).expect("write a test file");
        }
        if let Some(config) = &self.config {
            std::fs::write(project.join("strata.json"), config.to_string())
                .expect("write strata.json");
        }
        if self.git {
            git_init(&project);
        }
        let project = std::fs::canonicalize(&project).expect("canonicalize the project dir");

        let mut flags = RuntimeFlags::for_dirs(&data, &config_dir);
        flags.home_dir = home;
        if let Some(f) = self.flags {
            f(&mut flags);
        }
        let mut graph = self.graph.unwrap_or_else(strata_registry::production);
        graph
            .replace::<RuntimeFlags>(Node::value(Tier::Global, flags))
            .expect("the production graph has RuntimeFlags");
        let test_clock = self.clock.map(|start| {
            let (clock, handle) = Clock::manual(start);
            graph
                .replace::<Clock>(Node::value(Tier::Global, clock))
                .expect("the production graph has a Clock");
            handle
        });
        let runtime = Runtime::start(graph)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        let instance = runtime
            .instance(&project)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        let t = TestInstance {
            inner: Arc::new(Inner {
                _root: root,
                project,
                runtime,
                instance,
                clock: test_clock,
                asked: Mutex::new(Vec::new()),
                mode: Mutex::new(ReplyMode::Once),
            }),
        };
        t.spawn_responder();
        t
    }

    /// Builds the instance, runs `body`, and disposes the instance even if `body` panics.
    pub async fn run<F, Fut>(self, body: F)
    where
        F: FnOnce(TestInstance) -> Fut,
        Fut: Future<Output = ()>,
    {
        let t = self.build().await;
        let result = AssertUnwindSafe(body(t.clone())).catch_unwind().await;
        t.dispose().await;
        if let Err(panic) = result {
            std::panic::resume_unwind(panic);
        }
    }
}

fn git_init(dir: &Path) {
    let run = |args: &[&str]| {
        let status = std::process::Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_AUTHOR_NAME", "Strata Test")
            .env("GIT_AUTHOR_EMAIL", "test@example.invalid")
            .env("GIT_COMMITTER_NAME", "Strata Test")
            .env("GIT_COMMITTER_EMAIL", "test@example.invalid")
            .output()
            .expect("run git (install git to run these tests)");
        assert!(status.status.success(), "git {args:?} failed: {status:?}");
    };
    run(&["init", "-q", "-b", "main"]);
    run(&["add", "-A"]);
    run(&["commit", "-q", "--allow-empty", "-m", "first"]);
}

struct Inner {
    _root: tempfile::TempDir,
    project: PathBuf,
    runtime: Runtime,
    instance: Instance,
    clock: Option<TestClock>,
    asked: Mutex<Vec<Request>>,
    mode: Mutex<ReplyMode>,
}

/// A project instance for one test. Cheap to clone.
#[derive(Clone)]
pub struct TestInstance {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for TestInstance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestInstance")
            .field("project", &self.inner.project)
            .finish_non_exhaustive()
    }
}

impl TestInstance {
    pub fn builder() -> TestInstanceBuilder {
        TestInstanceBuilder::default()
    }

    /// The project directory (a real, canonical path).
    pub fn dir(&self) -> &Path {
        &self.inner.project
    }

    /// A path inside the project.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.inner.project.join(rel)
    }

    pub fn get<S: Service>(&self) -> S {
        self.inner
            .instance
            .get::<S>()
            .unwrap_or_else(|m| panic!("{m}"))
    }

    /// Every service of the instance (both tiers and the seed), to inspect the wiring.
    pub fn context(&self) -> &strata_graph::Context {
        self.inner.instance.context()
    }

    /// The manual clock, when the builder asked for one.
    pub fn clock(&self) -> &TestClock {
        self.inner
            .clock
            .as_ref()
            .expect("build the instance with .manual_clock(start) to get a TestClock")
    }

    /// The build agent's rules for this instance (defaults, then the project config).
    pub fn ruleset(&self) -> Ruleset {
        strata_registry::rules::agent_ruleset(
            "build",
            &self.get::<Config>(),
            &self.get::<RuntimeFlags>(),
            &self.get::<Skills>(),
        )
        .unwrap_or_else(|e| panic!("{e}"))
    }

    /// A call context bound to this instance's Permission and the build agent's rules.
    pub fn cx(&self) -> ToolCxBuilder {
        ToolCx::builder("ses_test")
            .message("msg_test")
            .call("call_test")
            .permission(self.get::<Permission>(), self.ruleset())
    }

    /// Runs a tool through the full wrapper with [`cx`](Self::cx).
    pub async fn call(&self, tool: &str, args: Value) -> Result<ToolResult, ToolError> {
        self.call_with(tool, args, self.cx().build()).await
    }

    /// Runs a tool through the full wrapper with JSON arguments and a call context of the test's
    /// making.
    pub async fn call_with(
        &self,
        tool: &str,
        args: Value,
        cx: ToolCx,
    ) -> Result<ToolResult, ToolError> {
        self.call_raw(tool, args.to_string(), cx).await
    }

    /// Runs a tool through the full wrapper with raw argument text, which need not be JSON
    /// (to test decoding).
    pub async fn call_raw(
        &self,
        tool: &str,
        input: impl Into<String>,
        cx: ToolCx,
    ) -> Result<ToolResult, ToolError> {
        let registry = self.get::<ToolRegistry>();
        let t = registry
            .get(tool)
            .unwrap_or_else(|| panic!("no tool `{tool}`; registered: {:?}", registry.ids()));
        t.call(input, cx).await
    }

    /// Every permission request asked so far, in order.
    pub fn asked(&self) -> Vec<Request> {
        self.inner.asked.lock().expect("asked lock").clone()
    }

    /// The asks for one permission.
    pub fn asked_for(&self, permission: &str) -> Vec<Request> {
        self.asked()
            .into_iter()
            .filter(|r| r.permission == permission)
            .collect()
    }

    pub fn reply_mode(&self, mode: ReplyMode) {
        *self.inner.mode.lock().expect("mode lock") = mode;
    }

    fn spawn_responder(&self) {
        let permission = self.get::<Permission>();
        let mut events = permission.subscribe();
        let weak = Arc::downgrade(&self.inner);
        tokio::spawn(async move {
            while let Ok(event) = events.recv().await {
                let PermissionEvent::Asked(req) = event else {
                    continue;
                };
                let Some(inner) = weak.upgrade() else {
                    break;
                };
                inner.asked.lock().expect("asked lock").push(req.clone());
                let reply = match &*inner.mode.lock().expect("mode lock") {
                    ReplyMode::Once => Some(Reply::Once),
                    ReplyMode::Always => Some(Reply::Always),
                    ReplyMode::Reject(f) => Some(Reply::Reject {
                        feedback: f.clone(),
                    }),
                    ReplyMode::Manual => None,
                };
                if let Some(reply) = reply {
                    let _ = permission.reply(&req.id, reply);
                }
            }
        });
    }

    /// Disposes the instance, then the global tier.
    pub async fn dispose(&self) {
        self.inner.instance.dispose().await;
        self.inner.runtime.shutdown().await;
    }

    /// Waits up to `limit` for the ask count of `permission` to reach `n`.
    pub async fn wait_for_asks(&self, permission: &str, n: usize, limit: Duration) -> Vec<Request> {
        crate::poll::poll_with_timeout(&format!("{n} `{permission}` asks"), limit, || {
            let asks = self.asked_for(permission);
            async move { (asks.len() >= n).then_some(asks) }
        })
        .await
    }
}
