//! The one integration test binary (Cargo.toml `[[test]]`): every test drives the real `sojx`
//! binary through pipes, and every envelope it prints is validated against
//! `schemas/envelope.schema.json`.

#![allow(unreachable_pub, clippy::print_stderr)]

mod acp;
mod action;
mod agent_start;
mod api;
mod battery;
mod bounds;
mod citizen;
mod coerce;
mod common;
mod conformance;
mod docs;
mod extract;
mod fastpath;
mod files_written;
mod github;
mod golden;
mod hygiene;
mod install;
mod install_lines;
mod invariance;
mod jq_budget;
mod layout;
mod lift;
mod messages;
mod numbers;
mod pipelines;
mod producer_files;
mod producers;
mod props;
mod repair;
mod repair_props;
mod retry;
mod run;

mod schema_safety;
mod schema_tools;
mod shown;
mod snapshots;
mod startup;
mod teams;
mod validate_jobs;
mod wrong_data;
