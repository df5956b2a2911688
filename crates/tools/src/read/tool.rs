//! The `read` tool itself (paging, sniffing, instruction files and name order live beside it).

use std::path::{Path, PathBuf};

use futures::StreamExt;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use strata_services::file_time::FileTime;
use strata_services::fs::{FileKind, FsUtil, Metadata, to_slash};
use strata_services::instance::InstanceInfo;
use strata_services::instructions::Instructions;
use strata_services::lsp::Lsp;

use super::page::{DEFAULT_LIMIT, LineSplitter, MAX_BYTES, Next, Pager};
use super::{instructions, natural, sniff};
use crate::common::external::{self, Kind};
use crate::common::filewrite::record_seen;
use crate::contract::{Ask, Attachment, Effects, Tool, ToolCx, ToolError, ToolResult};

const SAMPLE_BYTES: usize = 4096;
const CHUNK: usize = 256 * 1024;
/// Images and PDFs larger than this are refused rather than base64-encoded into memory.
const MAX_ATTACHMENT_BYTES: u64 = 20 * 1024 * 1024;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReadParams {
    /// Path of the file or directory to read. Prefer an absolute path; a relative one is taken
    /// from the project directory.
    pub file_path: String,
    /// 1-based number of the first line (or directory entry) to return. Defaults to 1.
    pub offset: Option<u64>,
    /// How many lines (or entries) to return at most. Defaults to 2000.
    pub limit: Option<u64>,
}

#[derive(Debug)]
pub struct Read {
    info: InstanceInfo,
    fs: FsUtil,
    file_time: FileTime,
    lsp: Lsp,
    /// The instruction files the system prompt holds: never attached again.
    system: Instructions,
    instructions: instructions::Claims,
}

impl Tool for Read {
    const ID: &'static str = "read";
    const EFFECTS: Effects = Effects::READ_ONLY;
    type Params = ReadParams;
    type Deps = (InstanceInfo, FsUtil, FileTime, Lsp, Instructions);

    fn init((info, fs, file_time, lsp, system): Self::Deps) -> Self {
        Read {
            info,
            fs,
            file_time,
            lsp,
            system,
            instructions: instructions::Claims::default(),
        }
    }

    fn description(&self) -> String {
        include_str!("description.md").to_string()
    }

    async fn execute(&self, p: ReadParams, cx: ToolCx) -> Result<ToolResult, ToolError> {
        let path = self.info.resolve(&p.file_path);
        let title = self.info.relative(&path);
        let stat = self.fs.stat(&path).await?;
        let kind = match &stat {
            Some(m) if m.kind == FileKind::Dir => Kind::Directory,
            _ => Kind::File,
        };
        if !cx.bypass_cwd_check {
            external::check(&cx, &self.info, &self.fs, &path, kind).await?;
        }
        cx.ask(Ask::new(
            Self::PERMISSION,
            vec![title.clone()],
            vec!["*".into()],
        ))
        .await?;
        let Some(meta) = stat else {
            return Err(self.not_found(&path).await);
        };
        let offset = p.offset.unwrap_or(1).max(1) as usize;
        let limit = p.limit.unwrap_or(0) as usize;
        if kind == Kind::Directory {
            return self.list(&path, title, offset, limit).await;
        }
        let loaded = self
            .instructions
            .find(&self.info, &self.fs, &self.system, &path, &cx)
            .await;
        let sample = self.fs.read_head(&path, SAMPLE_BYTES).await?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mime = sniff::mime_of(&name, &sample);
        if sniff::ATTACH_MIMES.contains(&mime.as_str()) {
            return self.attach(&path, title, &mime, &meta, &cx).await;
        }
        if sniff::is_binary(&name, &sample) {
            return Err(ToolError::model(format!(
                "{} is a binary file, so it cannot be shown as text. Use another tool that \
                 understands its format, or read a different file.",
                path.display()
            )));
        }
        let (pager, hash) = self.page(&path, offset, limit).await?;
        if pager.offset_out_of_range() {
            return Err(ToolError::model(format!(
                "offset {offset} is past the end of {}, which has {} lines. Use an offset \
                 between 1 and {}.",
                path.display(),
                pager.count,
                pager.count.max(1)
            )));
        }
        self.file_time
            .record_read(&cx.session_id, &path, meta.mtime, meta.len, hash);
        // Spec §1 step 13: the server starts while the model reads.
        self.lsp.warm(&path);
        Ok(render_file(&path, title, &pager, offset, loaded))
    }
}

impl Read {
    async fn not_found(&self, path: &Path) -> ToolError {
        let mut msg = format!("File not found: {}", path.display());
        let suggestions = self.suggest(path).await;
        if !suggestions.is_empty() {
            msg.push_str("\n\nDid you mean one of these?\n");
            msg.push_str(&suggestions.join("\n"));
        }
        ToolError::model(msg)
    }

    /// Up to three entries of the parent whose names contain the base name, or the reverse.
    async fn suggest(&self, path: &Path) -> Vec<String> {
        let (Some(parent), Some(base)) = (path.parent(), path.file_name()) else {
            return Vec::new();
        };
        let base = base.to_string_lossy().to_lowercase();
        let Ok(entries) = self.fs.read_dir(parent).await else {
            return Vec::new();
        };
        let mut names: Vec<_> = entries
            .into_iter()
            .filter(|e| {
                let n = e.name.to_lowercase();
                n.contains(&base) || base.contains(&n)
            })
            .map(|e| e.path.to_string_lossy().into_owned())
            .collect();
        names.sort();
        names.truncate(3);
        names
    }

    async fn list(
        &self,
        path: &Path,
        title: String,
        offset: usize,
        limit: usize,
    ) -> Result<ToolResult, ToolError> {
        let entries = self.fs.read_dir(path).await?;
        let mut names: Vec<String> = entries
            .into_iter()
            .map(|e| match e.kind {
                FileKind::Dir => format!("{}/", e.name),
                _ => e.name,
            })
            .collect();
        names.sort_by(|a, b| natural::natural_cmp(a, b));
        let total = names.len();
        let limit = if limit == 0 { DEFAULT_LIMIT } else { limit };
        let start = (offset - 1).min(total);
        let end = start.saturating_add(limit).min(total);
        let page = &names[start..end];
        let more = end < total;
        let footer = if more {
            format!(
                "(Showing {} of {total} entries. Use offset={} to see more.)",
                page.len(),
                end + 1
            )
        } else {
            format!("({total} entries)")
        };
        let mut body = page.join("\n");
        if !body.is_empty() {
            body.push('\n');
        }
        let output = format!(
            "<path>{}</path>\n<type>directory</type>\n<entries>\n{body}\n{footer}\n</entries>",
            path.display()
        );
        Ok(ToolResult::new(title, output)
            .meta(
                "preview",
                page.iter().take(20).cloned().collect::<Vec<_>>().join("\n"),
            )
            .meta("truncated", more)
            .meta("loaded", json!([]))
            .meta(
                "display",
                json!({"type": "directory", "path": to_slash(path), "entries": page,
                       "offset": offset, "totalEntries": total, "truncated": more}),
            ))
    }

    async fn attach(
        &self,
        path: &Path,
        title: String,
        mime: &str,
        meta: &Metadata,
        cx: &ToolCx,
    ) -> Result<ToolResult, ToolError> {
        let len = meta.len;
        if len > MAX_ATTACHMENT_BYTES {
            return Err(ToolError::model(format!(
                "{} is {len} bytes, more than the {MAX_ATTACHMENT_BYTES}-byte limit for \
                 attachments.",
                path.display()
            )));
        }
        let bytes = self.fs.read(path, MAX_ATTACHMENT_BYTES).await?;
        record_seen(&self.file_time, cx, path, meta, &bytes);
        let what = if mime == "application/pdf" {
            "PDF"
        } else {
            "Image"
        };
        let filename = path.file_name().map(|n| n.to_string_lossy().into_owned());
        Ok(
            ToolResult::new(title, format!("{what} read and attached to this message."))
                .meta("preview", format!("{what} read and attached."))
                .meta("truncated", false)
                .meta("loaded", json!([]))
                .attach(Attachment::from_bytes(mime, &bytes, filename)),
        )
    }

    /// Streams the file into a page; stops reading once the page is full.
    async fn page(
        &self,
        path: &Path,
        offset: usize,
        limit: usize,
    ) -> Result<(Pager, Option<[u8; 32]>), ToolError> {
        let mut pager = Pager::new(offset, limit);
        let mut splitter = LineSplitter::default();
        let mut hasher = Sha256::new();
        let mut stream = self.fs.stream(path, CHUNK).await?;
        let mut stopped = false;
        while let Some(chunk) = stream.next().await {
            let chunk = chunk?;
            if pager.is_full() {
                // Past the page: only the total line count is still needed.
                let n = splitter.count(&chunk);
                pager.skip_counted(n);
                continue;
            }
            // Hashing only matters while the page may still turn out to be the whole file.
            if pager.offset() == 1 && !pager.more {
                hasher.update(&chunk);
            }
            if splitter.feed(&chunk, &mut |l| pager.push(l)) == Next::Stop {
                stopped = true;
                break;
            }
        }
        drop(stream);
        if !stopped {
            splitter.finish(&mut |l| pager.push(l));
        }
        let whole = !stopped && !pager.more && pager.offset() == 1;
        Ok((pager, whole.then(|| hasher.finalize().into())))
    }
}

fn render_file(
    path: &Path,
    title: String,
    pager: &Pager,
    offset: usize,
    loaded: Vec<(PathBuf, String)>,
) -> ToolResult {
    let body: Vec<String> = pager
        .kept
        .iter()
        .enumerate()
        .map(|(i, l)| format!("{}: {l}", offset + i))
        .collect();
    let last = pager.last();
    let footer = if pager.cut {
        format!(
            "(Output stopped at the {} KB limit. Showing lines {offset}-{last}. Use \
             offset={} to read on.)",
            MAX_BYTES / 1024,
            last + 1
        )
    } else if pager.more {
        format!(
            "(Showing lines {offset}-{last} of {}. Use offset={} to read on.)",
            pager.count,
            last + 1
        )
    } else {
        let n = pager.count;
        format!(
            "(End of file - {n} line{} in total)",
            if n == 1 { "" } else { "s" }
        )
    };
    let mut output = format!(
        "<path>{}</path>\n<type>file</type>\n<content>\n{}\n\n{footer}\n</content>",
        path.display(),
        body.join("\n")
    );
    if !loaded.is_empty() {
        output.push_str(&instructions::reminder(&loaded));
    }
    let truncated = pager.more || pager.cut;
    let loaded_paths: Vec<Value> = loaded
        .iter()
        .map(|(p, _)| Value::String(p.to_string_lossy().into_owned()))
        .collect();
    let preview: Vec<&str> = pager.kept.iter().take(20).map(String::as_str).collect();
    ToolResult::new(title, output)
        .meta("preview", preview.join("\n"))
        .meta("truncated", truncated)
        .meta("loaded", loaded_paths)
        .meta(
            "display",
            json!({"type": "file", "path": to_slash(path), "text": pager.kept.join("\n"),
                   "lineStart": offset, "lineEnd": last, "totalLines": pager.count,
                   "truncated": truncated}),
        )
}
