//! Consumers: code outside the graph that resolves services from a built instance (the agent
//! loop, a CLI command, the MCP server). Declaring what each one resolves lets validation name
//! it when the graph lacks a service, before anything runs.

use crate::context::{Context, Missing};
use crate::deps::{Deps, Requirement};

/// A named user of an instance's services, with the services it resolves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Consumer {
    /// How messages name it, e.g. `strata tool` or `the agent loop`.
    pub name: &'static str,
    pub requires: Vec<Requirement>,
}

impl Consumer {
    /// The consumer that resolves `D` from an instance.
    pub fn of<D: Deps>(name: &'static str) -> Self {
        Self {
            name,
            requires: D::requires(),
        }
    }
}

/// Resolves `D` for the consumer `name`: a missing service names the consumer.
pub fn resolve<D: Deps>(cx: &Context, name: &'static str) -> Result<D, Missing> {
    D::resolve(cx).map_err(|e| e.for_consumer(name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::Service;

    #[derive(Clone)]
    struct Here;
    impl Service for Here {
        const KEY: &'static str = "Here";
    }
    #[derive(Clone)]
    struct Gone;
    impl Service for Gone {
        const KEY: &'static str = "Gone";
    }

    #[test]
    fn a_consumer_lists_what_it_resolves() {
        let c = Consumer::of::<(Here, Gone)>("strata demo");
        let keys: Vec<_> = c.requires.iter().map(|r| r.key).collect();
        assert_eq!(keys, ["Here", "Gone"]);
    }

    #[test]
    fn a_missing_service_names_the_consumer() {
        let cx = Context::new().with(Here);
        let err = match resolve::<(Here, Gone)>(&cx, "strata demo") {
            Ok(_) => panic!("Gone is missing"),
            Err(e) => e.to_string(),
        };
        assert!(err.contains("`strata demo`"), "{err}");
        assert!(err.contains("Gone"), "{err}");
    }
}
