//! `Graph::validate`: every missing, duplicate, cyclic or tier-crossing dependency, at once.

use std::any::TypeId;
use std::collections::{BTreeSet, HashMap};

use crate::consumer::Consumer;
use crate::deps::Requirement;
use crate::error::{Problem, ValidationReport};
use crate::node::Node;
use crate::service::{Service, Tier};

/// A service provided from outside the graph (the context a tier is built on).
#[derive(Debug, Clone, Copy)]
pub struct Available {
    pub type_id: TypeId,
    pub key: &'static str,
    /// `None` when the tier is unknown (then no tier check is made against it).
    pub tier: Option<Tier>,
}

impl Available {
    pub fn of<S: Service>(tier: Tier) -> Self {
        Self {
            type_id: TypeId::of::<S>(),
            key: S::KEY,
            tier: Some(tier),
        }
    }
}

pub(crate) fn validate(nodes: &[Node], external: &[Available]) -> Result<(), ValidationReport> {
    let mut problems = Vec::new();
    let mut by_type: HashMap<TypeId, Vec<&Node>> = HashMap::new();
    for n in nodes {
        by_type.entry(n.type_id()).or_default().push(n);
    }
    let mut dup_seen = BTreeSet::new();
    for n in nodes {
        let same = &by_type[&n.type_id()];
        if same.len() > 1 && dup_seen.insert(n.key()) {
            problems.push(Problem::Duplicate {
                key: n.key(),
                type_name: n.type_name(),
                count: same.len(),
            });
        }
    }
    let ext: HashMap<TypeId, &Available> = external.iter().map(|a| (a.type_id, a)).collect();
    for n in nodes {
        for r in n.requires() {
            let provider_tier = match (by_type.get(&r.type_id), ext.get(&r.type_id)) {
                (Some(ps), _) => Some(ps[0].tier()),
                (None, Some(a)) => a.tier,
                (None, None) => {
                    problems.extend(missing(n, r));
                    continue;
                }
            };
            if n.tier() == Tier::Global && provider_tier == Some(Tier::Instance) {
                problems.push(Problem::TierCrossing {
                    consumer: n.key(),
                    needs: r.key,
                });
            }
        }
    }
    problems.extend(find_cycles(nodes, &by_type));
    if problems.is_empty() {
        Ok(())
    } else {
        Err(ValidationReport { problems })
    }
}

/// What `consumers` resolve that neither `nodes` nor `external` provide.
pub(crate) fn unserved(
    nodes: &[Node],
    external: &[Available],
    consumers: &[Consumer],
) -> Vec<Problem> {
    let provided: BTreeSet<TypeId> = nodes
        .iter()
        .map(|n| n.type_id())
        .chain(external.iter().map(|a| a.type_id))
        .collect();
    consumers
        .iter()
        .flat_map(|c| {
            c.requires
                .iter()
                .filter(|r| !provided.contains(&r.type_id))
                .map(|r| Problem::Unserved {
                    consumer: c.name,
                    needs: *r,
                })
        })
        .collect()
}

/// `r` missing for `n`: one problem per part of `n` that needs it, or one for `n` itself.
fn missing(n: &Node, r: &Requirement) -> Vec<Problem> {
    let problem = |part| Problem::Missing {
        consumer: n.key(),
        part,
        tier: n.tier(),
        needs: *r,
    };
    let parts: Vec<Problem> = n
        .parts()
        .iter()
        .filter(|p| p.requires.contains(r))
        .map(|p| problem(Some(p.name)))
        .collect();
    if parts.is_empty() {
        vec![problem(None)]
    } else {
        parts
    }
}

fn find_cycles(nodes: &[Node], by_type: &HashMap<TypeId, Vec<&Node>>) -> Vec<Problem> {
    let index: HashMap<usize, usize> = nodes.iter().enumerate().map(|(i, n)| (n.id(), i)).collect();
    let edges: Vec<Vec<usize>> = nodes
        .iter()
        .map(|n| {
            n.requires()
                .iter()
                .filter_map(|r| by_type.get(&r.type_id))
                .flat_map(|ps| ps.iter().map(|p| index[&p.id()]))
                .collect()
        })
        .collect();
    // 0 = unvisited, 1 = on the stack, 2 = done.
    let mut state = vec![0u8; nodes.len()];
    let mut stack = Vec::new();
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for start in 0..nodes.len() {
        dfs(
            start,
            &edges,
            &mut state,
            &mut stack,
            &mut |cycle: &[usize]| {
                let mut keys: Vec<&'static str> = cycle.iter().map(|&i| nodes[i].key()).collect();
                // Rotate so the same cycle found from another start is reported once.
                let min = (0..keys.len()).min_by_key(|&i| keys[i]).unwrap_or(0);
                keys.rotate_left(min);
                if seen.insert(keys.clone()) {
                    let first = keys[0];
                    keys.push(first);
                    out.push(Problem::Cycle { path: keys });
                }
            },
        );
    }
    out
}

fn dfs(
    at: usize,
    edges: &[Vec<usize>],
    state: &mut [u8],
    stack: &mut Vec<usize>,
    report: &mut dyn FnMut(&[usize]),
) {
    match state[at] {
        2 => return,
        1 => {
            if let Some(pos) = stack.iter().position(|&s| s == at) {
                report(&stack[pos..]);
            }
            return;
        }
        _ => {}
    }
    state[at] = 1;
    stack.push(at);
    for &next in &edges[at] {
        dfs(next, edges, state, stack, report);
    }
    stack.pop();
    state[at] = 2;
}
