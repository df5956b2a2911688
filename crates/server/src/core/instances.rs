//! One instance per project directory, built from the graph's instance tier on first use and
//! disposed on shutdown. Each instance's permission and question requests are forwarded to the
//! hub as live events.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use strata_agent::session::LoopServices;
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

#[derive(Debug, Default)]
pub(crate) struct Instances {
    map: Mutex<HashMap<PathBuf, Arc<InstanceEntry>>>,
}

impl Instances {
    pub(crate) async fn get_or_build(
        &self,
        runtime: &Runtime,
        dir: &Path,
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
        if let Some(entry) = map.get(&key) {
            return Ok(entry.clone());
        }
        let failed = |detail: String| CoreError::Instance {
            dir: key.display().to_string(),
            detail,
        };
        let instance = runtime
            .instance(&key)
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

    /// The instance already built for the canonical directory `dir`, without waiting: `None`
    /// when there is none yet or another request holds the map while it builds one.
    pub(crate) fn built(&self, dir: &Path) -> Option<Arc<InstanceEntry>> {
        self.map.try_lock().ok()?.get(dir).cloned()
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
