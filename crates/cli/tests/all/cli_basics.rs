//! `strata --version` and `strata debug graph`, run as a user would.

use std::collections::BTreeMap;

use crate::common::Project;

#[test]
fn version_prints_the_package_version() {
    let p = Project::new();
    let run = p.strata(&["--version"]);
    run.expect_code(0);
    assert_eq!(
        run.stdout.trim(),
        format!("strata {}", env!("CARGO_PKG_VERSION"))
    );
}

/// `key -> (tier, deps)` from the `debug graph` listing.
fn parse_graph(stdout: &str) -> BTreeMap<String, (String, Vec<String>)> {
    let mut nodes = BTreeMap::new();
    let mut tier = None;
    for line in stdout.lines() {
        if let Some(name) = line.strip_suffix(" tier:") {
            tier = Some(name.to_string());
            continue;
        }
        let (key, deps) = line
            .split_once(" <- ")
            .unwrap_or_else(|| panic!("a node line reads `KEY <- DEPS`: {line:?}"));
        let deps = match deps.trim() {
            "(none)" => Vec::new(),
            d => d.split(", ").map(str::to_string).collect(),
        };
        let tier = tier.clone().expect("a tier heading comes first");
        let previous = nodes.insert(key.trim().to_string(), (tier, deps));
        assert!(previous.is_none(), "{key} is listed twice");
    }
    nodes
}

#[test]
fn debug_graph_lists_every_production_node_with_tier_and_deps() {
    let p = Project::new();
    let run = p.strata(&["debug", "graph"]);
    run.expect_code(0);
    let headings: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.ends_with(" tier:"))
        .collect();
    assert_eq!(headings, ["global tier:", "instance tier:"]);

    let listed = parse_graph(&run.stdout);
    let expected: BTreeMap<String, (String, Vec<String>)> = strata_agent::production()
        .nodes()
        .iter()
        .map(|n| {
            let deps = n.requires().iter().map(|r| r.key.to_string()).collect();
            (n.key().to_string(), (n.tier().to_string(), deps))
        })
        .collect();
    assert_eq!(listed, expected);

    // The session store `strata run` uses is part of the graph shown.
    assert_eq!(
        listed["Store"],
        ("global".to_string(), vec!["RuntimeFlags".to_string()])
    );

    let (tier, deps) = &listed["ToolRegistry"];
    assert_eq!(tier, "instance");
    for needed in ["InstanceInfo", "FsUtil", "ChildProcessSpawner", "Truncate"] {
        assert!(deps.iter().any(|d| d == needed), "ToolRegistry <- {deps:?}");
    }
    assert_eq!(listed["Clock"], ("global".to_string(), Vec::new()));
    assert!(run.stderr.is_empty(), "{}", run.stderr);
}

#[test]
fn debug_graph_takes_the_project_from_dir() {
    let p = Project::new();
    let elsewhere = Project::new();
    let run = elsewhere.strata(&["debug", "graph", "--dir", &p.dir_str()]);
    run.expect_code(0);
    assert!(run.stdout.contains("ToolRegistry"), "{}", run.stdout);

    let missing = p.dir.join("no-such-dir");
    let run = p.strata(&["debug", "graph", "--dir", &missing.display().to_string()]);
    run.expect_code(1);
    assert!(
        run.stderr.contains(&missing.display().to_string()),
        "the error names the directory: {}",
        run.stderr
    );
}

#[test]
fn debug_graph_without_clock_reports_the_missing_service_and_its_consumer() {
    let p = Project::new();
    let run = p.strata(&["debug", "graph", "--without", "Clock"]);
    run.expect_code(1);
    assert!(
        run.stdout.is_empty(),
        "no listing for an invalid graph: {}",
        run.stdout
    );
    assert!(run.stderr.contains("`Clock`"), "{}", run.stderr);
    // Truncate is the node that needs the clock.
    assert!(run.stderr.contains("`Truncate`"), "{}", run.stderr);
}

#[test]
fn debug_graph_without_two_keys_reports_both() {
    let p = Project::new();
    let run = p.strata(&[
        "debug",
        "graph",
        "--without",
        "Clock",
        "--without",
        "FsUtil",
    ]);
    run.expect_code(1);
    assert!(run.stderr.contains("`Clock`"), "{}", run.stderr);
    assert!(run.stderr.contains("`FsUtil`"), "{}", run.stderr);
    assert!(run.stderr.contains("`ToolRegistry`"), "{}", run.stderr);
}
