//! sojx: extract the final structured output of an LLM agent run, validate it against a JSON
//! Schema, and print one JSON envelope per input.
//!
//! Pipeline: [`input`] (chunks → lines) → [`framing`] (lines → JSON items) → [`producer`]
//! (detection and per-producer extraction) → [`text`] / [`repair`] (JSON from text) →
//! [`schema`] (validation) → [`envelope`] → `render`. [`cmd`] wires them for the command line;
//! docs/ARCHITECTURE.md draws the whole.

pub(crate) mod acp;
pub(crate) mod activity;
pub(crate) mod agent;
mod batch;
pub use sojx_core::brackets;
pub use sojx_core::budget;
pub mod cli;
pub mod cmd;
pub(crate) mod color;
pub(crate) mod compare;
pub use sojx_core::details;
pub mod envelope;
pub use sojx_core::error;
pub use sojx_core::exit;
pub mod extract;
pub use sojx_core::framing;
pub(crate) mod github;
pub mod input;
pub(crate) mod jq;
pub use sojx_core::json;
pub(crate) mod lint;
pub(crate) mod lower;
pub(crate) mod markers;
pub use sojx_core::names;
pub use sojx_core::pointer;
pub mod producer;
pub use sojx_core::provider;
pub(crate) mod render;
pub use sojx_core::repair;
pub(crate) mod sanitize;
pub mod schema;
pub mod text;
pub(crate) mod validate;
pub use sojx_core::warning;
