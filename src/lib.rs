//! sojx, the command line: `cli` (the definition of the flags), `cmd` (each command, the
//! process's streams and environment), `agent` and `acp` (running agents), `render`, `github`,
//! `sanitize` and `--activity`'s writer. The engine is the `sojx-core` crate (crates/sojx-core);
//! the modules of it used here are re-exported below, so that the command line names them as
//! `crate::m`. docs/ARCHITECTURE.md draws the whole.

pub(crate) mod acp;
pub(crate) mod activity;
pub(crate) mod agent;
pub(crate) use sojx_core::batch;
pub mod cli;
pub mod cmd;
pub(crate) mod color;
pub(crate) use sojx_core::compare;
pub(crate) use sojx_core::details;
pub mod disk;
pub(crate) use sojx_core::envelope;
pub(crate) use sojx_core::error;
pub(crate) use sojx_core::exit;
pub(crate) use sojx_core::extract;
pub(crate) use sojx_core::feedback;
pub(crate) use sojx_core::files;
pub(crate) mod github;
pub(crate) use sojx_core::input;
pub(crate) use sojx_core::jq;
pub(crate) use sojx_core::json;
pub(crate) use sojx_core::lint;
pub(crate) use sojx_core::lower;
pub(crate) use sojx_core::markers;
pub(crate) use sojx_core::names;
pub(crate) use sojx_core::producer;
pub(crate) use sojx_core::provider;
pub(crate) mod render;
pub(crate) mod sanitize;
pub(crate) use sojx_core::schema;
pub(crate) use sojx_core::validate;
pub(crate) use sojx_core::warning;
