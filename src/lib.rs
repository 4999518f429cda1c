//! sojx: extract the final structured output of an LLM agent run, validate it against a JSON
//! Schema, and print one JSON envelope per input.
//!
//! Pipeline: [`input`] (chunks → lines) → [`framing`] (lines → JSON items) → [`producer`]
//! (detection and per-producer extraction) → [`text`] / [`repair`] (JSON from text) →
//! [`schema`] (validation) → [`envelope`] → `render`. [`cmd`] wires them for the command line;
//! docs/ARCHITECTURE.md draws the whole.

pub mod activity;
mod batch;
pub mod budget;
pub mod cli;
pub mod cmd;
pub mod color;
pub mod compare;
pub mod envelope;
pub mod error;
pub mod exit;
pub mod extract;
pub mod framing;
pub mod generate;
pub mod input;
pub mod jq;
pub mod lint;
pub mod lower;
pub mod markers;
pub mod pointer;
pub mod producer;
pub mod render;
pub mod repair;
pub mod sanitize;
pub mod schema;
pub mod text;
pub mod validate;
