//! Semantics of the graph: memoization, failures, fresh, validation, replace, tiers.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::*;

#[derive(Clone, Debug)]
struct Clock(usize);
impl Service for Clock {
    const KEY: &'static str = "Clock";
}
#[derive(Clone, Debug)]
struct Fs(usize);
impl Service for Fs {
    const KEY: &'static str = "Fs";
}
#[derive(Clone, Debug)]
struct Truncate(Clock, Fs);
impl Service for Truncate {
    const KEY: &'static str = "Truncate";
}
#[derive(Clone, Debug)]
struct Info(String);
impl Service for Info {
    const KEY: &'static str = "Info";
}
#[derive(Clone, Debug)]
#[allow(dead_code)] // Holds its deps like a real service would.
struct Perm(Info, Clock);
impl Service for Perm {
    const KEY: &'static str = "Perm";
}

fn counted_clock(counter: Arc<AtomicUsize>) -> Node {
    Node::new(Tier::Global, move |(): (), _s: Scope| {
        let n = counter.fetch_add(1, Ordering::SeqCst);
        async move { Ok(Clock(n)) }
    })
}

fn fs_node() -> Node {
    Node::new(Tier::Global, |(): (), _s: Scope| async { Ok(Fs(7)) })
}

fn truncate_node() -> Node {
    Node::new(Tier::Global, |(c, f): (Clock, Fs), _s: Scope| async move {
        Ok(Truncate(c, f))
    })
}

#[tokio::test]
async fn builds_in_dependency_order_and_resolves() {
    let count = Arc::new(AtomicUsize::new(0));
    let g = Graph::new()
        .with(truncate_node())
        .with(counted_clock(count.clone()))
        .with(fs_node());
    let cx = g.build(&Context::new(), &Scope::new()).await.unwrap();
    let t = cx.get::<Truncate>().unwrap();
    assert_eq!(t.1.0, 7);
    // Clock is used by Truncate and by the context: built once.
    assert_eq!(count.load(Ordering::SeqCst), 1);
    assert_eq!(cx.get::<Clock>().unwrap().0, t.0.0);
}

#[tokio::test]
async fn one_node_used_twice_is_one_instance_two_nodes_are_two() {
    let count = Arc::new(AtomicUsize::new(0));
    let clock = counted_clock(count.clone());
    let memo = MemoMap::new();
    let scope = Scope::new();
    let a = Graph::new().with(clock.clone());
    let b = Graph::new().with(clock.clone());
    let ca = a.build_with(&Context::new(), &scope, &memo).await.unwrap();
    let cb = b.build_with(&Context::new(), &scope, &memo).await.unwrap();
    assert_eq!(ca.get::<Clock>().unwrap().0, cb.get::<Clock>().unwrap().0);
    assert_eq!(count.load(Ordering::SeqCst), 1);

    // A second node for the same key is another identity: another instance.
    let other = counted_clock(count.clone());
    let cc = Graph::new()
        .with(other)
        .build_with(&Context::new(), &scope, &memo)
        .await
        .unwrap();
    assert_eq!(count.load(Ordering::SeqCst), 2);
    assert_ne!(cc.get::<Clock>().unwrap().0, ca.get::<Clock>().unwrap().0);
}

#[tokio::test]
async fn fresh_builds_its_own_instance_every_time() {
    let count = Arc::new(AtomicUsize::new(0));
    let clock = counted_clock(count.clone());
    let fresh = clock.fresh();
    let memo = MemoMap::new();
    let scope = Scope::new();
    for _ in 0..2 {
        Graph::new()
            .with(fresh.clone())
            .build_with(&Context::new(), &scope, &memo)
            .await
            .unwrap();
    }
    assert_eq!(count.load(Ordering::SeqCst), 2);
    assert!(fresh.is_fresh() && !clock.is_fresh());
}

#[tokio::test]
async fn fresh_rebuilds_its_in_graph_dependencies() {
    let count = Arc::new(AtomicUsize::new(0));
    let clock = counted_clock(count.clone());
    let memo = MemoMap::new();
    let scope = Scope::new();
    let base = Graph::new().with(clock.clone()).with(fs_node());
    base.build_with(&Context::new(), &scope, &memo)
        .await
        .unwrap();
    assert_eq!(count.load(Ordering::SeqCst), 1);
    let g = base.clone().with(truncate_node().fresh());
    let cx = g.build_with(&Context::new(), &scope, &memo).await.unwrap();
    // The fresh Truncate got a Clock of its own; the graph's Clock stayed memoized.
    assert_eq!(count.load(Ordering::SeqCst), 2);
    assert_ne!(
        cx.get::<Truncate>().unwrap().0.0,
        cx.get::<Clock>().unwrap().0
    );
}

#[tokio::test]
async fn failed_build_is_cached_and_closes_what_it_acquired() {
    let attempts = Arc::new(AtomicUsize::new(0));
    let closed = Arc::new(AtomicUsize::new(0));
    let a2 = attempts.clone();
    let failing = Node::new(Tier::Global, move |(): (), _s: Scope| {
        a2.fetch_add(1, Ordering::SeqCst);
        async { Err::<Fs, BoxError>("disk on fire".into()) }
    });
    let c2 = closed.clone();
    let acquiring = Node::new(Tier::Global, move |(): (), s: Scope| {
        let c2 = c2.clone();
        async move {
            s.add_finalizer("clock", move || async move {
                c2.fetch_add(1, Ordering::SeqCst);
            });
            Ok(Clock(1))
        }
    });
    // Truncate and the graph both need Fs: the failing node runs once.
    let g = Graph::new()
        .with(acquiring)
        .with(failing)
        .with(truncate_node());
    let scope = Scope::new();
    let err = g.build(&Context::new(), &scope).await.unwrap_err();
    assert_eq!(attempts.load(Ordering::SeqCst), 1);
    let msg = err.to_string();
    assert!(
        msg.contains("`Fs`") && msg.contains("disk on fire"),
        "{msg}"
    );
    assert!(scope.is_closed());
    assert_eq!(closed.load(Ordering::SeqCst), 1);
}

#[test]
fn validate_reports_every_problem_at_once() {
    #[derive(Clone)]
    struct A;
    impl Service for A {
        const KEY: &'static str = "A";
    }
    #[derive(Clone)]
    struct B;
    impl Service for B {
        const KEY: &'static str = "B";
    }
    let a = Node::new(Tier::Global, |(_b,): (B,), _s: Scope| async { Ok(A) });
    let b = Node::new(Tier::Global, |(_a,): (A,), _s: Scope| async { Ok(B) });
    let info = Node::new(Tier::Instance, |(): (), _s: Scope| async {
        Ok(Info("x".into()))
    });
    // Global Truncate needs Clock (missing) and Fs (provided twice).
    let crossing = Node::new(Tier::Global, |(_i, _c): (Info, Clock), _s: Scope| async {
        Ok(Perm(Info(String::new()), Clock(0)))
    });
    let g = Graph::new()
        .with(a)
        .with(b)
        .with(info)
        .with(crossing)
        .with(fs_node())
        .with(fs_node())
        .with(truncate_node());
    let report = g.validate(&[]).unwrap_err();
    let text = report.to_string();
    let kinds: Vec<_> = report
        .problems
        .iter()
        .map(|p| match p {
            Problem::Missing {
                consumer, needs, ..
            } => format!("missing {consumer}<-{}", needs.key),
            Problem::Duplicate { key, count, .. } => format!("dup {key}x{count}"),
            Problem::Cycle { path } => format!("cycle {}", path.join(">")),
            Problem::TierCrossing { consumer, needs } => format!("tier {consumer}<-{needs}"),
            Problem::Unserved { consumer, needs } => format!("unserved {consumer}<-{}", needs.key),
        })
        .collect();
    assert!(kinds.contains(&"dup Fsx2".to_string()), "{kinds:?}");
    assert!(
        kinds.contains(&"missing Perm<-Clock".to_string()),
        "{kinds:?}"
    );
    assert!(
        kinds.contains(&"missing Truncate<-Clock".to_string()),
        "{kinds:?}"
    );
    assert!(kinds.contains(&"tier Perm<-Info".to_string()), "{kinds:?}");
    assert!(kinds.contains(&"cycle A>B>A".to_string()), "{kinds:?}");
    assert_eq!(kinds.iter().filter(|k| k.starts_with("cycle")).count(), 1);
    assert!(text.contains("the service graph has 5 problems"), "{text}");
    assert!(text.contains("Add a node for `Clock`"), "{text}");
    assert!(text.contains("Move `Perm` to the instance tier"), "{text}");
}

#[tokio::test]
async fn invalid_graph_builds_nothing() {
    let count = Arc::new(AtomicUsize::new(0));
    let g = Graph::new()
        .with(counted_clock(count.clone()))
        .with(truncate_node());
    let err = g.build(&Context::new(), &Scope::new()).await.unwrap_err();
    assert!(matches!(err, BuildError::Invalid(_)));
    assert_eq!(
        count.load(Ordering::SeqCst),
        0,
        "validation runs before any build"
    );
}

#[test]
fn replace_keeps_key_and_tier() {
    let mut g = Graph::new().with(fs_node());
    let same = Node::new(Tier::Global, |(): (), _s: Scope| async { Ok(Fs(99)) });
    g.replace::<Fs>(same).unwrap();
    let wrong_tier = Node::new(Tier::Instance, |(): (), _s: Scope| async { Ok(Fs(1)) });
    assert!(matches!(
        g.replace::<Fs>(wrong_tier),
        Err(ReplaceError::WrongTier { .. })
    ));
    let wrong_key = Node::value(Tier::Global, Clock(1));
    let err = g.replace::<Fs>(wrong_key).unwrap_err();
    assert!(matches!(err, ReplaceError::WrongKey { .. }), "{err}");
    let err = g
        .replace::<Clock>(Node::value(Tier::Global, Clock(1)))
        .unwrap_err();
    assert!(err.to_string().contains("Graph::add"), "{err}");
}

#[tokio::test]
async fn replaced_node_is_the_one_built() {
    let mut g = Graph::new().with(fs_node());
    g.replace::<Fs>(Node::value(Tier::Global, Fs(42))).unwrap();
    let cx = g.build(&Context::new(), &Scope::new()).await.unwrap();
    assert_eq!(cx.get::<Fs>().unwrap().0, 42);
}

#[tokio::test]
async fn instance_tier_is_fresh_per_instance_on_the_global_context() {
    let clocks = Arc::new(AtomicUsize::new(0));
    let infos = Arc::new(AtomicUsize::new(0));
    let i2 = infos.clone();
    let closed = Arc::new(AtomicUsize::new(0));
    let c2 = closed.clone();
    let g = Graph::new()
        .with(counted_clock(clocks.clone()))
        .with(Node::new(Tier::Instance, move |(): (), s: Scope| {
            let n = i2.fetch_add(1, Ordering::SeqCst);
            let c2 = c2.clone();
            async move {
                s.add_finalizer("info", move || async move {
                    c2.fetch_add(1, Ordering::SeqCst);
                });
                Ok(Info(format!("instance {n}")))
            }
        }))
        .with(Node::new(
            Tier::Instance,
            |(i, c): (Info, Clock), _s: Scope| async move { Ok(Perm(i, c)) },
        ));
    let global_scope = Scope::new();
    let global = g
        .tier(Tier::Global)
        .build(&Context::new(), &global_scope)
        .await
        .unwrap();
    let instance = g.tier(Tier::Instance);
    let s1 = Scope::new();
    let s2 = Scope::new();
    let one = instance.build(&global, &s1).await.unwrap();
    let two = instance.build(&global, &s2).await.unwrap();
    assert_eq!(
        infos.load(Ordering::SeqCst),
        2,
        "each instance builds its own"
    );
    assert_eq!(
        clocks.load(Ordering::SeqCst),
        1,
        "global services are shared"
    );
    assert_ne!(
        one.get::<Perm>().unwrap().0.0,
        two.get::<Perm>().unwrap().0.0
    );
    s1.close().await;
    assert_eq!(
        closed.load(Ordering::SeqCst),
        1,
        "disposing one instance leaves the other"
    );
    s2.close().await;
    assert_eq!(closed.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn missing_dependency_from_base_names_the_consumer() {
    // A node whose dependency is neither in the graph nor the base fails validation.
    let g = Graph::new().with(truncate_node()).with(fs_node());
    let err = g.build(&Context::new(), &Scope::new()).await.unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("`Truncate` (global) needs `Clock`"), "{msg}");
    // Provided by the base context instead, it builds.
    let base = Context::new().with(Clock(3));
    let cx = g.build(&base, &Scope::new()).await.unwrap();
    assert_eq!(cx.get::<Truncate>().unwrap().0.0, 3);
}

#[tokio::test]
async fn dynamic_requirements_are_validated_and_provided() {
    #[derive(Clone)]
    struct Registry(usize);
    impl Service for Registry {
        const KEY: &'static str = "Registry";
    }
    let reqs = vec![Requirement::of::<Clock>(), Requirement::of::<Fs>()];
    let node = Node::with_requirements(
        Tier::Instance,
        reqs.clone(),
        |cx: Context, _s: Scope| async move { Ok(Registry(cx.get::<Fs>()?.0 + cx.get::<Clock>()?.0)) },
    );
    let missing = Graph::new().with(node.clone()).with(fs_node());
    let report = missing.validate(&[]).unwrap_err();
    assert!(
        report
            .to_string()
            .contains("`Registry` (instance) needs `Clock`"),
        "{report}"
    );
    let g = missing.with(Node::value(Tier::Global, Clock(1)));
    let cx = g.build(&Context::new(), &Scope::new()).await.unwrap();
    assert_eq!(cx.get::<Registry>().unwrap().0, 8);
}

#[tokio::test]
async fn a_missing_service_is_reported_against_each_part_that_needs_it() {
    #[derive(Clone)]
    struct Registry;
    impl Service for Registry {
        const KEY: &'static str = "Registry";
    }
    let parts = vec![
        Part::new("tool", "a", vec![Requirement::of::<Fs>()]),
        Part::new("tool", "b", vec![Requirement::of::<Clock>()]),
        Part::new(
            "tool",
            "c",
            vec![Requirement::of::<Fs>(), Requirement::of::<Clock>()],
        ),
    ];
    let node = Node::with_parts(Tier::Instance, parts, |_cx: Context, _s: Scope| async {
        Ok(Registry)
    });
    let keys: Vec<_> = node.requires().iter().map(|r| r.key).collect();
    assert_eq!(keys, ["Fs", "Clock"]);
    let missing = Graph::new().with(node).with(fs_node());
    let report = missing.validate(&[]).unwrap_err();
    let clock = std::any::type_name::<Clock>();
    assert_eq!(
        report.to_string(),
        format!(
            "the service graph has 2 problems:\n  \
             - tool `b` (via `Registry`, instance) needs `Clock` ({clock}), which nothing \
             provides. Add a node for `Clock` to the graph, or provide it in the context this \
             tier is built on.\n  \
             - tool `c` (via `Registry`, instance) needs `Clock` ({clock}), which nothing \
             provides. Add a node for `Clock` to the graph, or provide it in the context this \
             tier is built on.\n"
        )
    );
    let g = missing.with(Node::value(Tier::Global, Clock(1)));
    let cx = g.build(&Context::new(), &Scope::new()).await.unwrap();
    assert!(cx.get::<Registry>().is_ok());
}

#[test]
fn consumers_outside_the_graph_are_validated_with_it() {
    let g = Graph::new().with(fs_node());
    let ok = [Consumer::of::<(Fs,)>("strata ls")];
    assert!(g.validate_for(&[], &ok).is_ok());
    let external = [Available::of::<Info>(Tier::Instance)];
    let needs_more = [Consumer::of::<(Fs, Info, Clock)>("strata demo")];
    let report = g.validate_for(&external, &needs_more).unwrap_err();
    assert_eq!(report.problems.len(), 1, "only Clock is missing: {report}");
    let text = report.to_string();
    assert!(text.contains("`strata demo` resolves `Clock`"), "{text}");
    assert!(text.contains("Add a node for `Clock`"), "{text}");
}

#[tokio::test]
async fn without_provided_keeps_the_services_the_base_already_holds() {
    let count = Arc::new(AtomicUsize::new(0));
    let g = Graph::new()
        .with(truncate_node())
        .with(counted_clock(count.clone()))
        .with(fs_node());
    let base = Context::new().with(Clock(41));
    let kept = g.without_provided(&base);
    assert_eq!(kept.nodes().len(), 2, "the clock node is left out");
    let cx = kept.build(&base, &Scope::new()).await.unwrap();
    assert_eq!(
        cx.get::<Truncate>().unwrap().0.0,
        41,
        "built on the shared clock"
    );
    assert_eq!(count.load(Ordering::SeqCst), 0, "the clock node never ran");
}
