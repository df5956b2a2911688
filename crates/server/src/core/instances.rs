//! One instance per project directory, built from the graph's instance tier on first use and
//! disposed on shutdown; and one per [`Overlay`] key, for a front-end whose session needs its
//! own services in place of global ones (an ACP session's editor file system). Each instance's
//! permission and question requests are forwarded to the hub as live events.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use strata_agent::session::LoopServices;
use strata_graph::Context;
use strata_protocol::wire::ServerEvent;
use strata_registry::{Instance, Runtime};
use strata_services::question::Question;
use tokio::sync::Mutex;
use tokio::sync::broadcast::error::RecvError;
use tokio::task::JoinHandle;

use super::CoreError;
use super::asks::{permission_event, question_event};
use super::hub::{Frame, Hub};

/// One project's services, as the server uses them.
#[derive(Debug)]
pub struct InstanceEntry {
    /// The canonical project directory (what sessions record and `/event` filters by).
    pub directory: String,
    pub instance: Instance,
    pub services: LoopServices,
    pub question: Question,
    forwarders: Vec<JoinHandle<()>>,
}

/// Services an instance is built with in place of the global ones of the same type. Instances
/// are shared by key: every session bound to one key uses one instance, and an instance
/// without an overlay is never given to a session bound to one.
#[derive(Debug, Clone)]
pub struct Overlay {
    /// Unique to what the services serve (e.g. one ACP connection's session).
    pub key: String,
    pub services: Context,
}

/// A canonical project directory and the overlay key its instance was built with.
type Key = (PathBuf, Option<String>);

#[derive(Debug, Default)]
pub(crate) struct Instances {
    map: Mutex<HashMap<Key, Arc<InstanceEntry>>>,
}

impl Instances {
    pub(crate) async fn get_or_build(
        &self,
        runtime: &Runtime,
        dir: &Path,
        overlay: Option<&Overlay>,
        hub: &Hub,
    ) -> Result<Arc<InstanceEntry>, CoreError> {
        let key = std::fs::canonicalize(dir).map_err(|e| {
            CoreError::BadRequest(format!(
                "the project directory {} cannot be used: {e}; pass an existing directory in \
             `?directory=` or the x-opencode-directory header",
                dir.display()
            ))
        })?;
        // Held across the build so two requests for a new directory build it once.
        let mut map = self.map.lock().await;
        let key = (key, overlay.map(|o| o.key.clone()));
        if let Some(entry) = map.get(&key) {
            return Ok(entry.clone());
        }
        let failed = |detail: String| CoreError::Instance {
            dir: key.0.display().to_string(),
            detail,
        };
        let overrides = overlay.map(|o| o.services.clone()).unwrap_or_default();
        let instance = runtime
            .instance_with(&key.0, &overrides)
            .await
            .map_err(|e| failed(e.to_string()))?;
        let services =
            LoopServices::from_context(instance.context()).map_err(|e| failed(e.to_string()))?;
        let question = instance
            .get::<Question>()
            .map_err(|e| failed(e.to_string()))?;
        let directory = services.info.directory.to_string_lossy().into_owned();
        let forwarders = vec![
            forward_permissions(&services, hub.clone(), directory.clone()),
            forward_questions(&question, hub.clone(), directory.clone()),
        ];
        let entry = Arc::new(InstanceEntry {
            directory,
            instance,
            services,
            question,
            forwarders,
        });
        map.insert(key, entry.clone());
        Ok(entry)
    }

    /// The instance already built for the canonical directory `dir` (without an overlay),
    /// without waiting: `None` when there is none yet or another request holds the map while it
    /// builds one.
    pub(crate) fn built(&self, dir: &Path) -> Option<Arc<InstanceEntry>> {
        self.map
            .try_lock()
            .ok()?
            .get(&(dir.to_path_buf(), None))
            .cloned()
    }

    /// Every instance built so far.
    pub(crate) async fn all(&self) -> Vec<Arc<InstanceEntry>> {
        self.map.lock().await.values().cloned().collect()
    }

    pub(crate) async fn dispose_all(&self, hub: &Hub) {
        let entries: Vec<_> = self.map.lock().await.drain().map(|(_, e)| e).collect();
        for entry in entries {
            entry.instance.dispose().await;
            for f in &entry.forwarders {
                f.abort();
            }
            hub.publish(Frame::live(
                None,
                ServerEvent::InstanceDisposed {
                    directory: entry.directory.clone(),
                },
            ));
        }
    }
}

fn forward_permissions(services: &LoopServices, hub: Hub, directory: String) -> JoinHandle<()> {
    let mut rx = services.permission.subscribe();
    tokio::spawn(async move {
        loop {
            let event = match rx.recv().await {
                Ok(e) => e,
                Err(RecvError::Lagged(n)) => {
                    tracing::warn!(missed = n, "permission events were missed");
                    continue;
                }
                Err(RecvError::Closed) => break,
            };
            let event = permission_event(event);
            hub.publish(Frame::live(Some(directory.clone()), event));
        }
    })
}

fn forward_questions(question: &Question, hub: Hub, directory: String) -> JoinHandle<()> {
    let mut rx = question.subscribe();
    tokio::spawn(async move {
        loop {
            let event = match rx.recv().await {
                Ok(e) => e,
                Err(RecvError::Lagged(_)) => continue,
                Err(RecvError::Closed) => break,
            };
            let event = question_event(event);
            hub.publish(Frame::live(Some(directory.clone()), event));
        }
    })
}
