//! The permission matcher against the reference of `strata_fuzz::reference`: the same rules
//! decide the same action (differential fuzzing of the wildcard and of last match wins).
#![no_main]

use libfuzzer_sys::fuzz_target;
use strata_fuzz::{fields, reference};
use strata_services::permission::{Action, Rule, evaluate};

const ACTIONS: [&str; 3] = ["allow", "ask", "deny"];

fuzz_target!(|data: &[u8]| {
    // Fields: the asked permission, the asked pattern, then rules as permission/pattern pairs.
    let all = fields(data, 10);
    let (permission, pattern) = (&all[0], &all[1]);
    let rules: Vec<(String, String, String)> = all[2..]
        .chunks(2)
        .enumerate()
        .map(|(i, pair)| {
            let action = ACTIONS[(pair[0].len() + i) % 3].to_string();
            (pair[0].clone(), pair[1].clone(), action)
        })
        .collect();
    let ours: Vec<Rule> = rules
        .iter()
        .map(|(p, pat, a)| {
            Rule::new(
                p.clone(),
                pat.clone(),
                Action::parse(a).unwrap_or(Action::Ask),
            )
        })
        .collect();
    let decided = evaluate(permission, pattern, &[&ours]);
    assert_eq!(
        decided.action.as_str(),
        reference::decide(&rules, permission, pattern),
        "rules {rules:?} on {permission:?} {pattern:?}"
    );
});
