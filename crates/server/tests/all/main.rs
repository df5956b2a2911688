//! Tests of `strata-server` through its real router (tower `oneshot`) and its core, on
//! tmpdir projects built from the production graph, with the scripted model on loopback.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod auth;
mod events;
mod fixture;
mod local;
mod permissions;
mod routes;
mod undo;
