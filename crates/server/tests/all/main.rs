//! Tests of `strata-server` through its real router (tower `oneshot`) and its core, on
//! tmpdir projects built from the production graph, with the scripted model on loopback.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod approved;
mod auth;
mod catalog;
mod events;
mod fixture;
mod hooks;
mod load;
mod load_deltas;
// Part of it serves only the load bench (benches/serve_load.rs).
#[allow(dead_code)]
mod load_drive;
mod local;
mod long_session;
mod permissions;
mod provider_keys;
mod routes;
mod session_sandbox;
mod session_tools;
mod shell;
mod soak;
mod undo;
