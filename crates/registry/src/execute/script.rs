//! The confined interpreter of code mode: QuickJS through `rquickjs`, with only what the script
//! is given. QuickJS itself has no file system, network or process API (those live in its
//! `quickjs-libc`, which is not linked), no module loader is installed, and the only host
//! functions are the tool bridge, `search` over the callable tools, and `console`. Limits: a memory cap (the allocator refuses
//! past it), an operation budget counted by the interrupt handler, which also stops the script
//! when the call is cancelled.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rquickjs::{Context, Ctx, Function, Object, Promise, Runtime, Value};

/// How far a script may go.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Interrupt-handler ticks (QuickJS calls it every ~10k bytecode operations).
    pub ticks: u64,
    /// Bytes the interpreter may allocate.
    pub memory: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            ticks: 20_000,
            memory: 64 << 20,
        }
    }
}

/// How a script ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The returned value: a string as is, `undefined`, or pretty JSON.
    Done(String),
    /// The script threw: its message (and stack).
    Threw(String),
    OpLimit,
    MemoryLimit,
    Cancelled,
}

/// A tool bridge call: `(registry tool id, JSON input)` → the text, or the error text.
pub type Host = Box<dyn FnMut(&str, String) -> Result<String, String>>;

/// The `search(query)` function: a query → a JSON array of matching tools.
pub type Finder = Box<dyn Fn(&str) -> String>;

/// One entry of `tools`: namespace (the MCP server; empty for a built-in tool, which sits at
/// `tools.‹tool›`), tool, registry id.
pub type Entry = (String, String, String);

const PRELUDE: &str = r#"
globalThis.tools = {};
for (const [server, tool, id] of JSON.parse(__strata_catalog)) {
  const call = (input) => {
    const r = JSON.parse(__strata_call(id, JSON.stringify(input ?? {})));
    if (!r.ok) throw new Error(r.text);
    return r.text;
  };
  if (server === "") tools[tool] = call;
  else (tools[server] ??= {})[tool] = call;
}
globalThis.search = (query) => JSON.parse(__strata_search(String(query ?? "")));
const __show = (x) => (typeof x === "string" ? x : JSON.stringify(x));
globalThis.console = { log: (...a) => __strata_log(a.map(__show).join(" ")) };
console.info = console.warn = console.error = console.debug = console.log;
"#;

/// Runs `code` (a function body; `await` and `return` allowed) with `tools`, logs collected
/// into `logs`. Blocking: call it on a thread of its own.
pub fn run(
    code: &str,
    tools: &[Entry],
    (host, finder): (Host, Finder),
    limits: Limits,
    cancelled: Arc<AtomicBool>,
    logs: &mut Vec<String>,
) -> Outcome {
    let Ok(rt) = Runtime::new() else {
        return Outcome::Threw("The script interpreter could not start.".into());
    };
    rt.set_memory_limit(limits.memory);
    rt.set_max_stack_size(512 << 10);
    let stop: Rc<RefCell<Option<Outcome>>> = Rc::default();
    let seen = stop.clone();
    let flag = cancelled.clone();
    let mut ticks = 0u64;
    rt.set_interrupt_handler(Some(Box::new(move || {
        ticks += 1;
        let why = if flag.load(Ordering::Relaxed) {
            Outcome::Cancelled
        } else if ticks > limits.ticks {
            Outcome::OpLimit
        } else {
            return false;
        };
        *seen.borrow_mut() = Some(why);
        true
    })));
    let Ok(context) = Context::full(&rt) else {
        return Outcome::Threw("The script interpreter could not start.".into());
    };
    let collected: Rc<RefCell<Vec<String>>> = Rc::default();
    let outcome =
        context.with(|ctx| evaluate(&ctx, code, tools, (host, finder), collected.clone()));
    logs.extend(collected.borrow().iter().cloned());
    if cancelled.load(Ordering::Relaxed) {
        return Outcome::Cancelled;
    }
    if let Some(why) = stop.borrow_mut().take() {
        return why;
    }
    outcome
}

fn evaluate(
    ctx: &Ctx<'_>,
    code: &str,
    tools: &[Entry],
    host: (Host, Finder),
    logs: Rc<RefCell<Vec<String>>>,
) -> Outcome {
    match setup(ctx, tools, host, logs) {
        Ok(()) => {}
        Err(e) => return Outcome::Threw(format!("The script interpreter could not start: {e}")),
    }
    let source = format!(
        "(async () => {{\n{code}\n}})().then((v) => v === undefined ? \"undefined\" : \
         typeof v === \"string\" ? v : JSON.stringify(v, null, 2))"
    );
    let done = ctx
        .eval::<Promise, _>(source)
        .and_then(|p| p.finish::<String>());
    match done {
        Ok(text) => Outcome::Done(text),
        Err(rquickjs::Error::WouldBlock) => Outcome::Threw(
            "The script waited on something that can never finish (a promise nothing resolves)."
                .into(),
        ),
        Err(rquickjs::Error::Exception) => thrown(ctx),
        Err(e) if e.to_string().contains("memory") => Outcome::MemoryLimit,
        Err(e) => Outcome::Threw(e.to_string()),
    }
}

fn setup(
    ctx: &Ctx<'_>,
    tools: &[Entry],
    (host, finder): (Host, Finder),
    logs: Rc<RefCell<Vec<String>>>,
) -> rquickjs::Result<()> {
    // The interpreter calls back through `Fn`; the script thread is the only caller.
    let host = RefCell::new(host);
    let globals = ctx.globals();
    let catalog = serde_json::to_string(tools).unwrap_or_else(|_| "[]".into());
    globals.set("__strata_catalog", catalog)?;
    let call = Function::new(ctx.clone(), move |id: String, input: String| {
        let answer = (host.borrow_mut())(&id, input);
        let (ok, text) = match answer {
            Ok(t) => (true, t),
            Err(t) => (false, t),
        };
        serde_json::json!({"ok": ok, "text": text}).to_string()
    })?;
    globals.set("__strata_call", call)?;
    let search = Function::new(ctx.clone(), move |query: String| finder(&query))?;
    globals.set("__strata_search", search)?;
    let log = Function::new(ctx.clone(), move |line: String| {
        logs.borrow_mut().push(line);
    })?;
    globals.set("__strata_log", log)?;
    ctx.eval::<(), _>(PRELUDE)
}

/// The pending exception as the model should read it.
fn thrown(ctx: &Ctx<'_>) -> Outcome {
    let value: Value = ctx.catch();
    if let Some(obj) = value.as_object() {
        let text = |o: &Object, k: &str| o.get::<_, Option<String>>(k).ok().flatten();
        let message = text(obj, "message").unwrap_or_default();
        if message.contains("out of memory") {
            return Outcome::MemoryLimit;
        }
        if message == "interrupted" {
            return Outcome::OpLimit;
        }
        let name = text(obj, "name").unwrap_or_else(|| "Error".into());
        let stack = text(obj, "stack").unwrap_or_default();
        return Outcome::Threw(format!("{name}: {message}\n{stack}").trim_end().to_string());
    }
    match value.as_string().and_then(|s| s.to_string().ok()) {
        Some(s) => Outcome::Threw(s),
        None => Outcome::Threw(format!("the script threw {value:?}")),
    }
}
