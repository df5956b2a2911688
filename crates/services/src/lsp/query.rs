//! Requests the `lsp` tool makes (spec §16): one method sent to every server for a file, the
//! results gathered, and the two-step call-hierarchy queries.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use super::client::{Client, file_uri};
use super::{Lsp, LspError};

/// How long one query may take; a server still indexing a large project can be slow.
pub const QUERY_TIMEOUT: Duration = Duration::from_secs(30);

/// Which calls of a call-hierarchy item to list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Calls {
    Incoming,
    Outgoing,
}

impl Lsp {
    /// Opens `path` in its servers and sends `method` with `params` to each; array results
    /// are concatenated and empty ones dropped. `Ok(None)` when no server handles the file.
    pub async fn query(
        &self,
        path: &Path,
        method: &str,
        params: Value,
    ) -> Result<Option<Vec<Value>>, LspError> {
        let Some(clients) = self.opened(path).await? else {
            return Ok(None);
        };
        let mut out = Vec::new();
        for client in clients {
            let result = client
                .request(method, params.clone(), QUERY_TIMEOUT)
                .await?;
            gather(result, &mut out);
        }
        Ok(Some(out))
    }

    /// The calls into or out of the symbol at `position` (zero-based): the item is prepared
    /// by each server and asked about on the same server.
    pub async fn calls(
        &self,
        path: &Path,
        position: Value,
        which: Calls,
    ) -> Result<Option<Vec<Value>>, LspError> {
        let Some(clients) = self.opened(path).await? else {
            return Ok(None);
        };
        let method = match which {
            Calls::Incoming => "callHierarchy/incomingCalls",
            Calls::Outgoing => "callHierarchy/outgoingCalls",
        };
        let prepare = json!({"textDocument": {"uri": file_uri(path)}, "position": position});
        let mut out = Vec::new();
        for client in clients {
            let mut items = Vec::new();
            let prepared = client
                .request(
                    "textDocument/prepareCallHierarchy",
                    prepare.clone(),
                    QUERY_TIMEOUT,
                )
                .await?;
            gather(prepared, &mut items);
            for item in items {
                let result = client
                    .request(method, json!({"item": item}), QUERY_TIMEOUT)
                    .await?;
                gather(result, &mut out);
            }
        }
        Ok(Some(out))
    }

    /// The file's servers with its current text sent, or `None` when no server handles it.
    async fn opened(&self, path: &Path) -> Result<Option<Vec<Arc<Client>>>, LspError> {
        if !self.touch_file(path, false).await? {
            return Ok(None);
        }
        Ok(Some(self.clients_for(path).await?))
    }
}

/// Adds a result to `out`: each element of an array, or the value itself; nulls dropped.
fn gather(result: Value, out: &mut Vec<Value>) {
    match result {
        Value::Null => {}
        Value::Array(items) => out.extend(items.into_iter().filter(|v| !v.is_null())),
        other => out.push(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_are_flattened_and_nulls_dropped() {
        let mut out = Vec::new();
        gather(json!([{"a": 1}, null]), &mut out);
        gather(Value::Null, &mut out);
        gather(json!({"contents": "x"}), &mut out);
        gather(json!([]), &mut out);
        assert_eq!(out, vec![json!({"a": 1}), json!({"contents": "x"})]);
    }
}
