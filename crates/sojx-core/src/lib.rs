//! The engine of sojx: find the final structured answer in an LLM agent's event stream,
//! validate it against a JSON Schema, and describe the outcome as one envelope.
//!
//! The `sojx` command line is built on this crate. The modules here are the engine's internals,
//! moved out of the binary a layer at a time (docs/ARCHITECTURE.md): they are public so that
//! the binary can use them, hidden from the documentation, and not stable.

#[doc(hidden)]
pub mod brackets;
#[doc(hidden)]
pub mod budget;
#[doc(hidden)]
pub mod details;
#[doc(hidden)]
pub mod error;
#[doc(hidden)]
pub mod exit;
#[doc(hidden)]
pub mod framing;
#[doc(hidden)]
pub mod json;
#[doc(hidden)]
pub mod names;
#[doc(hidden)]
pub mod pointer;
#[doc(hidden)]
pub mod provider;
#[doc(hidden)]
pub mod repair;
#[doc(hidden)]
pub mod warning;
