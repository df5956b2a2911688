//! The sandbox on the real kernel: each escape is tried with the policy on (it must fail) and
//! off (the same command must succeed), and everyday commands must keep working inside.
//!
//! When the kernel lacks Landlock or seccomp each test prints one skip line. Tools from the
//! machine (python3, curl) are skipped with one line when absent, unless
//! `STRATA_TEST_REQUIRE_EXTERNAL=1` makes them required.

use std::io::{Read, Write};
use std::net::{TcpListener, UdpSocket};
use std::path::{Path, PathBuf};
use std::time::Duration;

use strata_services::config::SandboxMode;
use strata_services::process::sandbox::{RootsInput, SandboxPolicy, Support, writable_roots};
use strata_services::process::{ChildProcessSpawner, CommandSpec, Output};

const LIMIT: Duration = Duration::from_secs(30);

/// A project and a directory beside it, both outside every temp directory, so that writing to
/// the second is an escape.
struct Rig {
    _root: tempfile::TempDir,
    project: PathBuf,
    outside: PathBuf,
    on: SandboxPolicy,
}

impl Rig {
    fn new(network: bool) -> Option<Rig> {
        Self::with_mode(SandboxMode::WorkspaceWrite, network)
    }

    fn with_mode(mode: SandboxMode, network: bool) -> Option<Rig> {
        let support = Support::probe();
        if !support.enforceable() {
            println!(
                "skipped: {} (the sandbox cannot be enforced here)",
                support.missing_reason()
            );
            return None;
        }
        let root = tempfile::Builder::new()
            .prefix("sandbox-")
            .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .unwrap();
        let base = std::fs::canonicalize(root.path()).unwrap();
        let temp = std::env::temp_dir();
        assert!(
            !base.starts_with(&temp) && !base.starts_with("/tmp"),
            "the test's outside directory must not be in a temp directory ({})",
            base.display()
        );
        let project = base.join("project");
        let outside = base.join("outside");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        let roots = writable_roots(&RootsInput {
            mode,
            project: &project,
            temp: &temp,
            extra: &[],
            home: &base,
        });
        let on = SandboxPolicy::build(mode, network, roots, Vec::new()).unwrap();
        Some(Rig {
            _root: root,
            project,
            outside,
            on,
        })
    }

    async fn run(&self, sandboxed: bool, script: &str) -> Output {
        let mut spec = CommandSpec::shell("/bin/bash", script).cwd(&self.project);
        if sandboxed {
            spec = spec.sandbox(self.on.clone());
        }
        ChildProcessSpawner::live().run(spec, LIMIT).await.unwrap()
    }

    /// `script` must fail to create `target` inside the sandbox and create it outside.
    async fn escape(&self, script: &str, target: &Path) {
        let inside = self.run(true, script).await;
        assert!(
            !target.exists(),
            "the sandbox let `{script}` write {}: {inside:?}",
            target.display()
        );
        assert!(
            !inside.success(),
            "`{script}` should fail in the sandbox: {inside:?}"
        );
        let free = self.run(false, script).await;
        assert!(
            free.success(),
            "`{script}` should work without the sandbox: {free:?}"
        );
        assert!(
            target.exists(),
            "`{script}` wrote nothing without the sandbox"
        );
    }
}

fn require_external() -> bool {
    std::env::var("STRATA_TEST_REQUIRE_EXTERNAL").is_ok_and(|v| v == "1")
}

/// The machine's program `name`, or `None` after one skip line (a panic when required).
fn external(candidates: &[&str]) -> Option<String> {
    let found = candidates.iter().find(|c| Path::new(c).exists());
    match found {
        Some(p) => Some(p.to_string()),
        None if require_external() => panic!("{candidates:?} is required but missing"),
        None => {
            println!("skipped: none of {candidates:?} is installed");
            None
        }
    }
}

#[tokio::test]
async fn writes_outside_the_project_are_refused_by_every_route() {
    let Some(rig) = Rig::new(true) else { return };
    let out = rig.outside.display().to_string();
    rig.escape(
        &format!("echo x > {out}/abs.txt"),
        &rig.outside.join("abs.txt"),
    )
    .await;
    rig.escape(
        "echo x > ../outside/dotdot.txt",
        &rig.outside.join("dotdot.txt"),
    )
    .await;
    std::os::unix::fs::symlink(&rig.outside, rig.project.join("link")).unwrap();
    rig.escape("echo x > link/sym.txt", &rig.outside.join("sym.txt"))
        .await;
    rig.escape(
        &format!("echo x > /proc/self/root{out}/proc.txt"),
        &rig.outside.join("proc.txt"),
    )
    .await;
    rig.escape(
        &format!("sh -c 'sh -c \"echo x > {out}/grandchild.txt\"'"),
        &rig.outside.join("grandchild.txt"),
    )
    .await;
    rig.escape(
        &format!("(echo x > {out}/bg.txt) & wait $!"),
        &rig.outside.join("bg.txt"),
    )
    .await;
}

#[tokio::test]
async fn rename_and_hard_link_out_of_the_project_are_refused() {
    let Some(rig) = Rig::new(true) else { return };
    let out = rig.outside.display().to_string();
    for name in ["mv.txt", "ln.txt"] {
        std::fs::write(rig.project.join(name), "inside").unwrap();
    }
    rig.escape(
        &format!("ln ln.txt {out}/ln.txt"),
        &rig.outside.join("ln.txt"),
    )
    .await;
    rig.escape(
        &format!("mv mv.txt {out}/mv.txt"),
        &rig.outside.join("mv.txt"),
    )
    .await;
}

#[tokio::test]
async fn everyday_commands_still_work_inside() {
    let Some(rig) = Rig::new(false) else { return };
    let git = "git init -q . && git add -A && git -c user.name=t -c user.email=t@t \
               commit -q --allow-empty -m first && git status --short";
    let script = format!(
        "set -e; {git}; mkdir -p target/debug && echo o > target/debug/out; \
         f=$(mktemp) && echo t > \"$f\" && rm \"$f\"; echo abc | tr a z | grep zbc; \
         echo gone > /dev/null; ls /etc > /dev/null; echo done"
    );
    let o = rig.run(true, &script).await;
    assert!(o.success(), "{o:?}");
    assert!(
        o.stdout_text().contains("zbc") && o.stdout_text().ends_with("done\n"),
        "{o:?}"
    );
    assert!(rig.project.join("target/debug/out").exists());
    let log = rig.run(true, "git log --oneline | wc -l").await;
    assert_eq!(log.stdout_text().trim(), "1", "{log:?}");
}

#[tokio::test]
async fn read_only_refuses_the_project_but_keeps_temp() {
    let Some(rig) = Rig::with_mode(SandboxMode::ReadOnly, true) else {
        return;
    };
    let inside = rig.run(true, "echo x > in-project.txt").await;
    assert!(
        !inside.success() && !rig.project.join("in-project.txt").exists(),
        "{inside:?}"
    );
    assert!(
        inside.stderr_text().contains("Permission denied"),
        "{inside:?}"
    );
    let tmp = rig
        .run(true, "f=$(mktemp) && echo t > \"$f\" && rm \"$f\"")
        .await;
    assert!(tmp.success(), "{tmp:?}");
}

#[tokio::test]
async fn network_off_refuses_tcp_and_udp_to_loopback() {
    let Some(rig) = Rig::new(false) else { return };
    let tcp = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = tcp.local_addr().unwrap().port();
    let connect = format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected");
    let inside = rig.run(true, &connect).await;
    assert!(!inside.success(), "TCP connect in the sandbox: {inside:?}");
    let free = rig.run(false, &connect).await;
    assert!(
        free.success() && free.stdout_text().contains("connected"),
        "{free:?}"
    );

    let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
    udp.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let uport = udp.local_addr().unwrap().port();
    let send = format!("echo ping > /dev/udp/127.0.0.1/{uport}");
    let inside = rig.run(true, &send).await;
    assert!(!inside.success(), "UDP send in the sandbox: {inside:?}");
    let free = rig.run(false, &send).await;
    assert!(free.success(), "{free:?}");
    let mut buf = [0u8; 16];
    let n = udp.recv(&mut buf).unwrap();
    assert_eq!(
        &buf[..n],
        b"ping\n",
        "only the unsandboxed datagram arrives"
    );
}

#[tokio::test]
async fn network_off_refuses_curl() {
    let Some(rig) = Rig::new(false) else { return };
    let Some(curl) = external(&["/usr/bin/curl", "/usr/local/bin/curl"]) else {
        return;
    };
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    // Answers one request: only the unsandboxed curl gets here.
    let server = std::thread::spawn(move || {
        let (mut conn, _) = listener.accept().unwrap();
        let mut buf = [0u8; 1024];
        let _ = conn.read(&mut buf);
        conn.write_all(b"HTTP/1.0 200 OK\r\ncontent-length: 5\r\n\r\nhello")
            .unwrap();
    });
    let cmd = format!("{curl} -sS --max-time 10 http://127.0.0.1:{port}/");
    let inside = rig.run(true, &cmd).await;
    assert!(!inside.success(), "curl in the sandbox: {inside:?}");
    let free = rig.run(false, &cmd).await;
    assert_eq!(free.stdout_text(), "hello", "{free:?}");
    server.join().unwrap();
}

#[tokio::test]
async fn network_off_keeps_unix_sockets() {
    let Some(rig) = Rig::new(false) else { return };
    let Some(py) = external(&["/usr/bin/python3"]) else {
        return;
    };
    let script = format!(
        "{py} -c \"import socket,os\ns=socket.socket(socket.AF_UNIX)\ns.bind('u.sock')\ns.listen(1)\n\
         c=socket.socket(socket.AF_UNIX)\nc.connect('u.sock')\nprint('unix ok')\""
    );
    let o = rig.run(true, &script).await;
    assert!(o.success() && o.stdout_text().contains("unix ok"), "{o:?}");
}

/// A python3 snippet printing the return value and errno of a raw call.
fn syscall_script(py: &str, body: &str) -> String {
    format!(
        "{py} -c \"import ctypes,os\nlibc=ctypes.CDLL(None,use_errno=True)\n{body}\n\
         print(r, ctypes.get_errno())\""
    )
}

#[tokio::test]
async fn ptrace_and_io_uring_are_refused() {
    let Some(rig) = Rig::new(true) else { return };
    let Some(py) = external(&["/usr/bin/python3"]) else {
        return;
    };
    // PTRACE_ATTACH (16) to a sibling started by the same shell.
    let attach = syscall_script(
        &py,
        "pid=int(os.environ['SIB'])\nr=libc.ptrace(16,pid,0,0)\nimport time; time.sleep(0.1)\n\
         libc.ptrace(17,pid,0,0)",
    );
    let ptrace = format!("sleep 30 & export SIB=$!; {attach}; kill $SIB");
    let inside = rig.run(true, &ptrace).await;
    assert_eq!(
        inside.stdout_text().trim(),
        "-1 1",
        "EPERM in the sandbox: {inside:?}"
    );
    let free = rig.run(false, &ptrace).await;
    assert!(free.stdout_text().starts_with("0 "), "{free:?}");

    // io_uring_setup(8, params): 425 on x86_64 and aarch64 alike.
    let ring = syscall_script(
        &py,
        "p=ctypes.create_string_buffer(120)\nr=libc.syscall(425,8,p)",
    );
    let inside = rig.run(true, &ring).await;
    assert_eq!(
        inside.stdout_text().trim(),
        "-1 1",
        "EPERM in the sandbox: {inside:?}"
    );
    let free = rig.run(false, &ring).await;
    let fd: i64 = free
        .stdout_text()
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(fd >= 0, "io_uring works without the sandbox: {free:?}");
}

#[tokio::test]
async fn formatters_run_inside_the_instance_sandbox() {
    use strata_services::config::SandboxConfig;
    use strata_services::format::{Formatter, FormatterDef};
    use strata_services::process::sandbox::{Sandbox, SandboxInputs};

    let Some(rig) = Rig::new(true) else { return };
    let escape = rig.outside.join("formatter.txt");
    let file = rig.project.join("a.txt");
    std::fs::write(&file, "written\n").unwrap();
    let def = FormatterDef {
        name: "sneaky".into(),
        command: vec![
            "sh".into(),
            "-c".into(),
            format!("echo formatted >> \"$0\"; echo x > {}", escape.display()),
            "$FILE".into(),
        ],
        extensions: vec!["txt".into()],
    };
    let temp = std::env::temp_dir();
    let inputs = SandboxInputs {
        config: &SandboxConfig::default(),
        flag_mode: None,
        project: &rig.project,
        temp: &temp,
        home: &rig.project,
    };
    let sandbox = Sandbox::resolve(&inputs, Support::probe()).unwrap();
    let formatter = Formatter::new(rig.project.clone(), ChildProcessSpawner::live(), vec![def])
        .in_sandbox(sandbox);
    formatter.format(&file).await;
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "written\nformatted\n"
    );
    assert!(!escape.exists(), "the formatter wrote outside the project");
}
