//! `Context`: an immutable map from service type to service value.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::Arc;

use crate::service::Service;

pub(crate) type AnyService = Arc<dyn Any + Send + Sync>;

#[derive(Clone)]
pub(crate) struct Entry {
    pub(crate) key: &'static str,
    pub(crate) type_name: &'static str,
    pub(crate) value: AnyService,
}

/// An immutable set of services, looked up by type.
///
/// Cloning is cheap (the map is shared); adding a service returns a new context.
#[derive(Clone, Default)]
pub struct Context {
    entries: Arc<HashMap<TypeId, Entry>>,
}

/// A service that was asked for but is not in the context.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "service `{key}` ({type_name}) is not in the context{}. Perhaps you forgot to add its node \
     to the graph, or to build this tier on top of the context that provides it?",
    consumer.as_ref().map(|c| format!(", but {c} needs it")).unwrap_or_default()
)]
pub struct Missing {
    pub key: &'static str,
    pub type_name: &'static str,
    /// Who asked, as the message names it (a service "`Key`", a tool "tool `id`"), when known.
    pub consumer: Option<String>,
}

impl Missing {
    /// The same error, naming the service that asked for it.
    pub fn for_consumer(mut self, consumer: &str) -> Self {
        self.consumer = Some(format!("`{consumer}`"));
        self
    }

    /// The same error, naming the tool that asked for it.
    pub fn for_tool(mut self, tool: &str) -> Self {
        self.consumer = Some(format!("tool `{tool}`"));
        self
    }
}

impl Context {
    pub fn new() -> Self {
        Self::default()
    }

    /// A new context with `service` added (replacing any service of the same type).
    pub fn with<S: Service>(&self, service: S) -> Self {
        let mut map = (*self.entries).clone();
        map.insert(
            TypeId::of::<S>(),
            Entry {
                key: S::KEY,
                type_name: std::any::type_name::<S>(),
                value: Arc::new(service),
            },
        );
        Self {
            entries: Arc::new(map),
        }
    }

    /// The service of type `S`, or a [`Missing`] error naming it.
    pub fn get<S: Service>(&self) -> Result<S, Missing> {
        self.entries
            .get(&TypeId::of::<S>())
            .and_then(|e| e.value.downcast_ref::<S>())
            .cloned()
            .ok_or(Missing {
                key: S::KEY,
                type_name: std::any::type_name::<S>(),
                consumer: None,
            })
    }

    pub fn contains<S: Service>(&self) -> bool {
        self.contains_type(TypeId::of::<S>())
    }

    pub(crate) fn contains_type(&self, id: TypeId) -> bool {
        self.entries.contains_key(&id)
    }

    /// Both contexts together; where both hold a service of one type, `overrides` wins.
    pub fn merge(&self, overrides: &Context) -> Context {
        let mut map = (*self.entries).clone();
        for (k, v) in overrides.entries.iter() {
            map.insert(*k, v.clone());
        }
        Self {
            entries: Arc::new(map),
        }
    }

    /// `(key, Rust type)` of every service held, sorted by key.
    pub fn describe(&self) -> Vec<(&'static str, &'static str)> {
        let mut all: Vec<_> = self
            .entries
            .values()
            .map(|e| (e.key, e.type_name))
            .collect();
        all.sort_unstable();
        all
    }

    /// The keys of every service held, sorted.
    pub fn keys(&self) -> Vec<&'static str> {
        let mut keys: Vec<_> = self.entries.values().map(|e| e.key).collect();
        keys.sort_unstable();
        keys
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub(crate) fn insert_raw(&self, id: TypeId, entry: Entry) -> Self {
        let mut map = (*self.entries).clone();
        map.insert(id, entry);
        Self {
            entries: Arc::new(map),
        }
    }
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.keys()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Debug, PartialEq)]
    struct Name(&'static str);
    impl Service for Name {
        const KEY: &'static str = "Name";
    }
    #[derive(Clone, Debug, PartialEq)]
    struct Count(u32);
    impl Service for Count {
        const KEY: &'static str = "Count";
    }

    #[test]
    fn get_returns_the_service() {
        let cx = Context::new().with(Name("a"));
        assert_eq!(cx.get::<Name>().unwrap(), Name("a"));
        assert!(cx.contains::<Name>());
    }

    #[test]
    fn missing_names_key_and_type() {
        let err = Context::new().get::<Count>().unwrap_err();
        assert_eq!(err.key, "Count");
        assert!(err.type_name.ends_with("Count"));
        let msg = err.for_consumer("Truncate").to_string();
        assert!(msg.contains("`Count`"), "{msg}");
        assert!(msg.contains("`Truncate` needs it"), "{msg}");
        let msg = Context::new()
            .get::<Count>()
            .unwrap_err()
            .for_tool("write")
            .to_string();
        assert!(msg.contains(", but tool `write` needs it."), "{msg}");
        assert!(msg.contains("forgot to add its node"), "{msg}");
    }

    #[test]
    fn merge_lets_the_override_win() {
        let base = Context::new().with(Name("base")).with(Count(1));
        let over = Context::new().with(Name("over"));
        let merged = base.merge(&over);
        assert_eq!(merged.get::<Name>().unwrap(), Name("over"));
        assert_eq!(merged.get::<Count>().unwrap(), Count(1));
        // The inputs are untouched: contexts are immutable.
        assert_eq!(base.get::<Name>().unwrap(), Name("base"));
        assert_eq!(merged.keys(), vec!["Count", "Name"]);
    }
}
