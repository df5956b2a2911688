//! The ACP agent driven through the SDK's own client side, in process, over a real server core
//! with the scripted model server as its provider.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod editor;
mod fixture;
mod flows;
mod transport;
