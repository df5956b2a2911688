//! `Deps`: a tuple of services a node or tool needs, typed like an axum extractor.
//!
//! `requires()` is derived from the tuple's types, so what a node declares cannot drift from
//! what it uses.

use std::any::TypeId;

use crate::context::{Context, Missing};
use crate::service::Service;

/// One service a consumer needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Requirement {
    pub type_id: TypeId,
    pub key: &'static str,
    pub type_name: &'static str,
}

impl Requirement {
    pub fn of<S: Service>() -> Self {
        Self {
            type_id: TypeId::of::<S>(),
            key: S::KEY,
            type_name: std::any::type_name::<S>(),
        }
    }
}

/// Who inside a node needs a service, for reports: e.g. tool `write` inside `ToolRegistry`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartName {
    /// What the part is (`tool`).
    pub kind: &'static str,
    /// Its name among its kind (`write`).
    pub name: &'static str,
}

/// One part of a node with needs of its own: a missing service is reported against the part,
/// via its node (see [`Node::with_parts`](crate::Node::with_parts)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    pub name: PartName,
    pub requires: Vec<Requirement>,
}

impl Part {
    pub fn new(kind: &'static str, name: &'static str, requires: Vec<Requirement>) -> Self {
        Self {
            name: PartName { kind, name },
            requires,
        }
    }
}

/// A tuple of services resolved from a [`Context`].
pub trait Deps: Sized + Send + 'static {
    fn requires() -> Vec<Requirement>;
    fn resolve(cx: &Context) -> Result<Self, Missing>;
}

impl Deps for () {
    fn requires() -> Vec<Requirement> {
        Vec::new()
    }
    fn resolve(_: &Context) -> Result<Self, Missing> {
        Ok(())
    }
}

macro_rules! tuple_deps {
    ($($name:ident),+) => {
        impl<$($name: Service),+> Deps for ($($name,)+) {
            fn requires() -> Vec<Requirement> {
                vec![$(Requirement::of::<$name>()),+]
            }
            fn resolve(cx: &Context) -> Result<Self, Missing> {
                Ok(($(cx.get::<$name>()?,)+))
            }
        }
    };
}

tuple_deps!(A);
tuple_deps!(A, B);
tuple_deps!(A, B, C);
tuple_deps!(A, B, C, D);
tuple_deps!(A, B, C, D, E);
tuple_deps!(A, B, C, D, E, F);
tuple_deps!(A, B, C, D, E, F, G);
tuple_deps!(A, B, C, D, E, F, G, H);
tuple_deps!(A, B, C, D, E, F, G, H, I);
tuple_deps!(A, B, C, D, E, F, G, H, I, J);
tuple_deps!(A, B, C, D, E, F, G, H, I, J, K);
tuple_deps!(A, B, C, D, E, F, G, H, I, J, K, L);

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone)]
    struct A1;
    impl Service for A1 {
        const KEY: &'static str = "A1";
    }
    #[derive(Clone)]
    struct B1;
    impl Service for B1 {
        const KEY: &'static str = "B1";
    }

    #[test]
    fn requires_follows_the_tuple() {
        let keys: Vec<_> = <(A1, B1)>::requires().iter().map(|r| r.key).collect();
        assert_eq!(keys, vec!["A1", "B1"]);
        assert!(<()>::requires().is_empty());
    }

    #[test]
    fn resolve_fails_on_the_first_missing() {
        let cx = Context::new().with(A1);
        let err = match <(A1, B1)>::resolve(&cx) {
            Ok(_) => panic!("B1 is missing"),
            Err(e) => e,
        };
        assert_eq!(err.key, "B1");
        assert!(<(A1,)>::resolve(&cx).is_ok());
    }
}
