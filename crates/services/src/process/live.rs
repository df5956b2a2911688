//! The live spawner: tokio processes in their own group, stdin closed unless asked for,
//! output piped.

use std::io;
use std::path::Path;
use std::process::Stdio;

use async_trait::async_trait;

use super::group::Group;
use super::{Child, CommandSpec, ProcessError, SpawnApi};

pub(crate) struct LiveSpawner;

async fn is_dir(path: &Path) -> bool {
    tokio::fs::metadata(path)
        .await
        .map(|m| m.is_dir())
        .unwrap_or(false)
}

#[async_trait]
impl SpawnApi for LiveSpawner {
    async fn spawn(&self, spec: CommandSpec) -> Result<Child, ProcessError> {
        let command = spec.render();
        let cwd = spec.get_cwd().map(Path::to_path_buf);
        // Checked first because a missing cwd and a missing program fail alike (ENOENT).
        if let Some(dir) = &cwd
            && !is_dir(dir).await
        {
            return Err(ProcessError::CwdMissing {
                command,
                cwd: dir.clone(),
            });
        }

        let mut cmd = tokio::process::Command::new(spec.program());
        cmd.args(spec.get_args())
            .stdin(if spec.has_stdin() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        if let Some(dir) = &cwd {
            cmd.current_dir(dir);
        }
        if let Some(policy) = spec.get_sandbox() {
            for name in policy.scrubbed_env() {
                cmd.env_remove(name);
            }
            policy.install(&mut cmd);
        }
        // After the scrub, so a variable the caller sets on purpose is kept.
        for (key, value) in spec.get_env() {
            cmd.env(key, value);
        }

        let child = match cmd.spawn() {
            Ok(child) => child,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                // The cwd may have vanished since the check above.
                return Err(match &cwd {
                    Some(dir) if !is_dir(dir).await => ProcessError::CwdMissing {
                        command,
                        cwd: dir.clone(),
                    },
                    _ => ProcessError::NotFound {
                        command,
                        program: spec.program().to_string_lossy().into_owned(),
                    },
                });
            }
            Err(source) => {
                return Err(ProcessError::Spawn {
                    command,
                    cwd,
                    source,
                });
            }
        };
        let Some(group) = child.id().and_then(Group::new) else {
            // A fresh child always has a pid; without one there is no group to manage.
            return Err(ProcessError::Spawn {
                command,
                cwd,
                source: io::Error::other("the started process reported no usable process id"),
            });
        };
        Ok(Child::start(child, group, command, spec.get_kill_grace()))
    }
}
