//! The engine of sojx: find the final structured answer in an LLM agent's event stream,
//! validate it against a JSON Schema, and describe the outcome as one envelope.
//!
//! The `sojx` command line is built on this crate. The modules here are the engine's internals,
//! in layers (docs/ARCHITECTURE.md; `tests/cli/layout/layers.rs` checks them): they are public
//! so that the binary can use them, hidden from the documentation, and not stable.

#[doc(hidden)]
pub mod activity;
#[doc(hidden)]
pub mod batch;
#[doc(hidden)]
pub mod brackets;
#[doc(hidden)]
pub mod budget;
#[doc(hidden)]
pub mod compare;
#[doc(hidden)]
pub mod details;
#[doc(hidden)]
pub mod envelope;
#[doc(hidden)]
pub mod error;
#[doc(hidden)]
pub mod exit;
#[doc(hidden)]
pub mod extract;
#[doc(hidden)]
pub mod feedback;
#[doc(hidden)]
pub mod framing;
#[doc(hidden)]
pub mod input;
#[doc(hidden)]
pub mod jq;
#[doc(hidden)]
pub mod json;
#[doc(hidden)]
pub mod lint;
#[doc(hidden)]
pub mod lower;
#[doc(hidden)]
pub mod markers;
#[doc(hidden)]
pub mod names;
#[doc(hidden)]
pub mod pointer;
#[doc(hidden)]
pub mod producer;
#[doc(hidden)]
pub mod provider;
#[doc(hidden)]
pub mod repair;
#[doc(hidden)]
pub mod schema;
#[doc(hidden)]
pub mod text;
#[doc(hidden)]
pub mod validate;
#[doc(hidden)]
pub mod warning;
