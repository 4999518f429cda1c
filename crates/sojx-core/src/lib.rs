//! The engine of sojx: find the final structured answer in an LLM agent's event stream,
//! validate it against a JSON Schema, and describe the outcome as one envelope.
//!
//! The `sojx` command line is built on this crate. Its public API is small:
//!
//! - [`Extractor`], with [`Settings`]: an agent's output in (Claude Code, Codex, Gemini CLI,
//!   the OpenAI, Anthropic and Ollama APIs and the other producers `sojx producers` lists),
//!   pushed in pieces or read, one [`Envelope`] out: the final answer, validated, or a typed
//!   [`Error`];
//! - [`Schema`]: a JSON Schema compiled once, and its [`Violation`]s of a value;
//! - [`compile`] a schema for a [`Provider`], and [`Lowered::lift`] the answer back;
//! - [`feedback`]: what to tell an agent whose answer failed.
//!
//! ```
//! use sojx_core::{Extractor, Schema, Settings};
//!
//! let stream = br#"{"type":"system","subtype":"init","session_id":"s-1"}
//! {"type":"result","subtype":"success","is_error":false,"result":"{\"verdict\":\"PASS\"}"}
//! "#;
//! let schema: Schema = r#"{"properties": {"verdict": {"enum": ["PASS", "FAIL"]}}}"#.parse()?;
//! let settings = Settings::new().schema(&schema);
//! let envelope = Extractor::new(&settings).read(&stream[..]);
//! assert_eq!(envelope.exit_code(), 0);
//! assert_eq!(envelope.data(), Some(&serde_json::json!({"verdict": "PASS"})));
//! # Ok::<(), sojx_core::Error>(())
//! ```
//!
//! The modules below the API are the engine's internals, in layers (docs/ARCHITECTURE.md;
//! `tests/cli/layout/layers.rs` checks them): they are public so that the binary can use them,
//! hidden from the documentation, and not stable.

#![deny(missing_docs)]

mod api;

pub use api::{
    Envelope, Error, Extractor, Lowered, Schema, Settings, compile, compile_with, feedback,
    feedback_with_schema,
};
pub use details::Violation;
pub use error::ErrorKind;
pub use provider::{Compat, Provider};
pub use warning::WarningKind;

#[doc(hidden)]
pub mod activity;
#[doc(hidden)]
pub mod batch;
#[doc(hidden)]
pub mod brackets;
#[doc(hidden)]
pub mod budget;
#[doc(hidden)]
pub mod coerce;
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
pub mod files;
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
