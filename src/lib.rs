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
pub use sojx_core::batch;
pub use sojx_core::brackets;
pub use sojx_core::budget;
pub mod cli;
pub mod cmd;
pub(crate) mod color;
pub use sojx_core::compare;
pub use sojx_core::details;
pub use sojx_core::envelope;
pub use sojx_core::error;
pub use sojx_core::exit;
pub use sojx_core::extract;
pub use sojx_core::framing;
pub(crate) mod github;
pub use sojx_core::input;
pub use sojx_core::jq;
pub use sojx_core::json;
pub use sojx_core::lint;
pub use sojx_core::lower;
pub use sojx_core::markers;
pub use sojx_core::names;
pub use sojx_core::pointer;
pub use sojx_core::producer;
pub use sojx_core::provider;
pub(crate) mod render;
pub use sojx_core::repair;
pub(crate) mod sanitize;
pub use sojx_core::schema;
pub use sojx_core::text;
pub use sojx_core::validate;
pub use sojx_core::warning;
