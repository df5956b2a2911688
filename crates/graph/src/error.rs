//! What can go wrong with a graph: a node's own error, an invalid graph, a failed build, a
//! refused replacement. Kept apart so every other module can name them without a cycle.

use std::fmt;
use std::sync::Arc;

use crate::deps::{PartName, Requirement};
use crate::service::Tier;

/// The error a node's constructor returns.
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Why a build did not produce a context.
#[derive(Debug, Clone, thiserror::Error)]
pub enum BuildError {
    #[error("{0}")]
    Invalid(ValidationReport),
    #[error("could not build service `{key}`: {source}")]
    Failed {
        key: &'static str,
        source: Arc<BoxError>,
    },
}

/// Why [`Graph::replace`] refused a node.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplaceError {
    #[error("cannot replace `{key}`: the graph has no node for it. Add one with `Graph::add`.")]
    NotFound { key: &'static str },
    #[error(
        "cannot replace `{key}` with a node for `{given}`: a replacement must provide the same \
         service type."
    )]
    WrongKey {
        key: &'static str,
        given: &'static str,
    },
    #[error(
        "cannot replace `{key}` ({tier}) with a {given} node: a replacement keeps the tier of \
         the node it replaces."
    )]
    WrongTier {
        key: &'static str,
        tier: Tier,
        given: Tier,
    },
}

/// One reason the graph cannot be built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    Missing {
        consumer: &'static str,
        /// The part of `consumer` that needs the service (e.g. one tool of the tool registry).
        part: Option<PartName>,
        tier: Tier,
        needs: Requirement,
    },
    Duplicate {
        key: &'static str,
        type_name: &'static str,
        count: usize,
    },
    Cycle {
        path: Vec<&'static str>,
    },
    TierCrossing {
        consumer: &'static str,
        needs: &'static str,
    },
    /// A [`Consumer`](crate::Consumer) outside the graph resolves a service no node provides.
    Unserved {
        consumer: &'static str,
        needs: Requirement,
    },
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Missing {
                consumer,
                part,
                tier,
                needs,
            } => {
                match part {
                    Some(p) => write!(f, "{} `{}` (via `{consumer}`, {tier})", p.kind, p.name)?,
                    None => write!(f, "`{consumer}` ({tier})")?,
                }
                write!(
                    f,
                    " needs `{}` ({}), which nothing provides. Add a node for `{}` to the \
                     graph, or provide it in the context this tier is built on.",
                    needs.key, needs.type_name, needs.key
                )
            }
            Problem::Duplicate {
                key,
                type_name,
                count,
            } => write!(
                f,
                "`{key}` ({type_name}) is provided by {count} nodes. Keep one, or use \
                 `Graph::replace` to swap the implementation."
            ),
            Problem::Cycle { path } => {
                let chain: Vec<String> = path.iter().map(|k| format!("`{k}`")).collect();
                write!(
                    f,
                    "dependency cycle: {}. Break it by removing one of these dependencies.",
                    chain.join(" -> ")
                )
            }
            Problem::TierCrossing { consumer, needs } => write!(
                f,
                "`{consumer}` (global) needs `{needs}`, which is an instance service: a global \
                 service outlives every instance. Move `{consumer}` to the instance tier or drop \
                 the dependency."
            ),
            Problem::Unserved { consumer, needs } => write!(
                f,
                "`{consumer}` resolves `{}` ({}), which nothing in the graph provides. Add a \
                 node for `{}` to the graph, or stop resolving it in `{consumer}`.",
                needs.key, needs.type_name, needs.key
            ),
        }
    }
}

/// Every problem found in one pass, each naming its consumer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidationReport {
    pub problems: Vec<Problem>,
}

impl fmt::Display for ValidationReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.problems.len();
        writeln!(
            f,
            "the service graph has {n} problem{}:",
            if n == 1 { "" } else { "s" }
        )?;
        for p in &self.problems {
            writeln!(f, "  - {p}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ValidationReport {}
