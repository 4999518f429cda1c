//! The public API: the few types a program needs to do in-process what `sojx extract`,
//! `sojx validate`, `sojx compile` and `sojx run`'s feedback do, documented and stable within a
//! minor version. They wrap the engine's modules, which stay hidden.

mod envelope;
mod extractor;
mod lowered;
mod schema;

pub use envelope::{Envelope, Error, feedback, feedback_with_schema};
pub use extractor::{Extractor, Settings};
pub use lowered::{Lowered, compile, compile_with};
pub use schema::Schema;

#[cfg(test)]
mod tests {
    use super::*;

    /// What a program shares between threads: a compiled schema, the settings built on it, and
    /// the results; an extraction moves to the thread that reads its agent.
    #[test]
    fn the_api_crosses_threads() {
        fn shared<T: Send + Sync>() {}
        fn sent<T: Send>() {}
        shared::<Schema>();
        shared::<Settings<'_>>();
        shared::<Envelope>();
        shared::<Error>();
        shared::<Lowered>();
        sent::<Extractor<'_>>();
    }
}
