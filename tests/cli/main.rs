//! The one integration test binary (Cargo.toml `[[test]]`): every test drives the real `sojx`
//! binary through pipes, and every envelope it prints is validated against
//! `schemas/envelope.schema.json`.

#![allow(unreachable_pub, clippy::print_stderr)]

mod common;
mod extract;
mod recipes;
mod teams;
