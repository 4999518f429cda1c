//! The extractor of a producer described by a file: one pass over the events, keeping the
//! answer since the last reset, the session's facts, and how the run ended.
//!
//! The run's state is decided by its deciding events: the first failure (`failure`; a `retry`
//! event forgets it), an end
//! (`end`), or an answer or reset event after an end, which starts a new run (so that the
//! answer of a run that ended is never reported for a later one that was cut off). At the end
//! of the input: a failure is `agent_error`; a run without its end is `truncated` (naming the
//! last error event) when the file says the producer ends its runs (`terminal`); otherwise the
//! structured output, else the answer text, else nothing.

use serde_json::{Map, Value};

use super::spec::{Activity, ErrorFields, Event, SessionFields, Spec};
use crate::details::AgentDetails;
use crate::error::Failure;
use crate::framing::Item;
use crate::producer::{
    EventKind, Extractor, LastError, Outcome, Producer, Session, SourceKind, Verdict,
    agent_failure, content_text, provider_codes, provider_message, refusal, snippet,
    truncated_after,
};

/// A look-alike's extractor: the reader of the producer it resembles, its outcome under the
/// look-alike's id.
pub(crate) struct Relabel {
    inner: Box<dyn Extractor>,
    producer: Producer,
}

impl Relabel {
    pub(crate) fn new(inner: Box<dyn Extractor>, producer: Producer) -> Self {
        Self { inner, producer }
    }
}

impl Extractor for Relabel {
    fn feed(&mut self, item: &Item) -> bool {
        self.inner.feed(item)
    }

    fn finish(self: Box<Self>) -> Outcome {
        let producer = self.producer;
        Outcome {
            producer,
            ..self.inner.finish()
        }
    }

    fn held(&self) -> usize {
        self.inner.held()
    }

    fn over(&self) -> Option<crate::producer::Over> {
        self.inner.over()
    }

    fn describe(&self, item: &Item) -> Option<(EventKind, String)> {
        self.inner.describe(item)
    }

    fn last_error(&self) -> Option<LastError> {
        self.inner.last_error()
    }

    fn fast_path(&mut self) -> Option<&mut dyn crate::producer::FastPath> {
        self.inner.fast_path()
    }
}

/// Where the run stands.
#[derive(Debug)]
enum State {
    Running,
    Ended,
    Failed(Box<Failure>),
}

pub(crate) struct Events {
    producer: Producer,
    spec: &'static Spec,
    text: String,
    text_line: Option<u64>,
    structured: Option<(Value, u64)>,
    state: State,
    session: Session,
    last_error: Option<LastError>,
}

impl Events {
    pub(crate) fn new(producer: Producer, spec: &'static Spec) -> Self {
        Self {
            producer,
            spec,
            text: String::new(),
            text_line: None,
            structured: None,
            state: State::Running,
            session: Session::default(),
            last_error: None,
        }
    }

    /// Forget the answer so far: it was not the final one.
    fn forget(&mut self) {
        self.text.clear();
        self.text_line = None;
        self.structured = None;
    }

    fn answer(&mut self, e: &Event, v: &Value, line: u64) {
        let text = e
            .text
            .as_ref()
            .and_then(|p| p.get(v))
            .and_then(content_text);
        let structured = e.structured.as_ref().and_then(|p| p.get(v));
        if (text.is_some() || structured.is_some() || e.reset) && matches!(self.state, State::Ended)
        {
            // A new run after one that ended: its answer is not the earlier one's, and starts
            // from nothing.
            self.state = State::Running;
            self.forget();
        }
        if e.reset {
            self.forget();
        }
        // An answer event whose text place holds no text (an empty content list) replaces the
        // answer with nothing: an earlier message is not this one's.
        let said = e.text.as_ref().is_some_and(|p| p.get(v).is_some());
        if said && text.is_none() && !e.append {
            self.text.clear();
            self.text_line = None;
        }
        if let Some(t) = text {
            if !e.append {
                self.text.clear();
            }
            if self.text.is_empty() {
                self.text_line = Some(line);
            }
            self.text.push_str(&t);
        }
        if let Some(s) = structured {
            self.structured = Some((s.clone(), line));
        }
    }

    fn failure(&self, e: &Event, fields: Option<&ErrorFields>, v: &Value) -> Failure {
        let words = fields.and_then(|f| f.message.get(v)).map(words);
        let message = words
            .clone()
            .unwrap_or_else(|| format!("the run failed: its `{}` event says so", e.name));
        let code = fields.and_then(|f| f.code.as_ref()?.get(v));
        let status = fields.and_then(|f| f.status.as_ref()?.get(v));
        let mut details = AgentDetails::new(
            Some(&e.name),
            None,
            Value::Array(words.clone().into_iter().map(Value::String).collect()),
        );
        if let Some(c) = code {
            details.more.insert("code".into(), c.clone());
        }
        if let Some(s) = status {
            details.more.insert("status".into(), s.clone());
        }
        let f = agent_failure(provider_message(&message), details);
        let code = code.and_then(code_text);
        let status = status.and_then(|s| s.as_u64().or_else(|| s.as_str()?.trim().parse().ok()));
        // Without code fields of its own, an error may pass on the API's body as text (pi's
        // `401 {"type": "error", "error": {"type": "authentication_error", …}}`).
        let (body_codes, body_status) = match (&code, status, &words) {
            (None, None, Some(w)) => provider_codes(w),
            _ => (Vec::new(), None),
        };
        let own = code
            .as_deref()
            .filter(|c| self.spec.permanent_codes.iter().any(|p| p == c));
        let said = fields.and_then(|f| f.retryable(v));
        let mut codes: Vec<Option<&str>> = vec![code.as_deref()];
        codes.extend(body_codes.iter().map(|c| Some(c.as_str())));
        let refused = own
            .map(str::to_owned)
            .or_else(|| refusal(&codes, status.or(body_status)));
        match (said, refused) {
            (Some(true), _) => f,
            (_, Some(c)) => f.retryable(false).hint(format!(
                "re-running will not help: the agent's API refused the request ({c}); fix the key, account or request, then run it again"
            )),
            (Some(false), None) => f.retryable(false).hint(
                "the agent says re-running will not help; fix the cause named in error.details",
            ),
            (None, None) => f,
        }
    }

    fn session(&mut self, s: &SessionFields, v: &Value) {
        let text = |p: &Option<super::spec::Path>| {
            p.as_ref()?.get(v).map(|x| match x {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            })
        };
        let number =
            |p: &Option<super::spec::Path>| p.as_ref()?.get(v).filter(|x| x.is_number()).cloned();
        let t = &mut self.session;
        set(&mut t.id, text(&s.id));
        set(&mut t.model, text(&s.model));
        set(&mut t.turns, number(&s.turns));
        set(&mut t.duration_ms, number(&s.duration_ms));
        set(&mut t.cost_usd, number(&s.cost_usd));
        set(&mut t.usage.input_tokens, number(&s.input_tokens));
        set(&mut t.usage.output_tokens, number(&s.output_tokens));
        set(
            &mut t.usage.cache_read_input_tokens,
            number(&s.cache_read_input_tokens),
        );
        set(
            &mut t.usage.cache_creation_input_tokens,
            number(&s.cache_creation_input_tokens),
        );
    }
}

fn set<T>(slot: &mut Option<T>, v: Option<T>) {
    if v.is_some() {
        *slot = v;
    }
}

/// An error message as text: a string as it is, anything else as JSON.
fn words(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// An error code as text (`invalid_api_key`, `401`).
fn code_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

impl Extractor for Events {
    fn feed(&mut self, item: &Item) -> bool {
        let Item::Value { line, value } = item else {
            return false;
        };
        let Some(e) = self.spec.event(value) else {
            return false;
        };
        let line = *line;
        self.session(&e.session, value);
        if e.retry {
            // The agent retries what failed: neither the failure nor the failed attempt's
            // text is the run's.
            if matches!(self.state, State::Failed(_)) {
                self.state = State::Running;
            }
            self.forget();
        }
        self.answer(e, value, line);
        if let Some(fields) = &e.error
            && let Some(said) = fields.message.get(value)
        {
            // The last error, for a cut-off stream or a timeout to name.
            let mut last = LastError::error(line, &words(said), value, &[]);
            if fields.retryable(value) == Some(false) {
                last = last.class(&e.name, false);
            }
            self.last_error = Some(last);
        }
        if e.fails(value) {
            // The first failure says why (a later one, the run's end with its exit code or
            // finish reason, only follows from it); a `retry` event forgets it.
            if !matches!(self.state, State::Failed(_)) {
                self.state = State::Failed(Box::new(self.failure(e, e.error.as_ref(), value)));
            }
        } else if e.end && !matches!(self.state, State::Failed(_)) {
            self.state = State::Ended;
        }
        true
    }

    fn held(&self) -> usize {
        self.text.len()
            + self
                .structured
                .as_ref()
                .map_or(0, |(v, _)| crate::json::footprint(v))
    }

    fn describe(&self, item: &Item) -> Option<(EventKind, String)> {
        let Item::Value { value, .. } = item else {
            return None;
        };
        let e = self.spec.event(value)?;
        if e.fails(value) {
            let why = e
                .error
                .as_ref()
                .and_then(|f| f.message.get(value))
                .map_or_else(|| e.name.clone(), words);
            return Some((EventKind::Error, format!("error: {}", snippet(&why, 100))));
        }
        if e.end {
            return Some((EventKind::Result, format!("{}: the run ended", e.name)));
        }
        if let Some(t) = e
            .text
            .as_ref()
            .and_then(|p| p.get(value))
            .and_then(content_text)
            && !t.trim().is_empty()
        {
            return Some((EventKind::Text, format!("text: {}", snippet(&t, 80))));
        }
        let kind = match e.activity? {
            Activity::Info => EventKind::Info,
            Activity::Tool => EventKind::Tool,
            Activity::Retry => EventKind::Retry,
        };
        Some((kind, e.name.clone()))
    }

    fn last_error(&self) -> Option<LastError> {
        self.last_error.clone()
    }

    fn finish(self: Box<Self>) -> Outcome {
        let this = *self;
        let ends: Vec<&str> = this
            .spec
            .events
            .iter()
            .filter(|e| e.end)
            .map(|e| e.name.as_str())
            .collect();
        let verdict = match this.state {
            State::Failed(f) => Verdict::Failed(*f),
            State::Running if this.spec.terminal => {
                truncated_after(&ends.join(" or "), this.last_error.as_ref())
            }
            State::Running | State::Ended => {
                if let Some((value, line)) = this.structured {
                    Verdict::Value {
                        kind: SourceKind::StructuredOutput,
                        value,
                        line: Some(line),
                        detail: Map::new(),
                    }
                } else if !this.text.trim().is_empty() {
                    Verdict::Text {
                        text: this.text,
                        line: this.text_line,
                    }
                } else {
                    Verdict::Nothing {
                        message: format!(
                            "the {} run ended without an answer: no answer text or structured output in its events",
                            this.spec.name
                        ),
                    }
                }
            }
        };
        Outcome {
            producer: this.producer,
            verdict,
            session: this.session,
            warnings: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::{Value, json};

    use super::*;
    use crate::producer::file::{Origin, parse};

    /// One event of the made-up Acme CLI (`examples/producer-file/acme.toml`).
    #[derive(Debug, Clone)]
    enum Ev {
        Say(u8),
        Tool,
        Done(bool),
        Start,
        Other,
    }

    fn value(e: &Ev) -> Value {
        match e {
            Ev::Say(n) => json!({"kind": "acme.say", "text": format!("{{\"n\": {n}}}")}),
            Ev::Tool => json!({"kind": "acme.tool", "name": "read"}),
            Ev::Done(ok) => json!({"kind": "acme.done", "ok": ok, "error": {"message": "no"}}),
            Ev::Start => json!({"kind": "acme.start", "run": "r"}),
            Ev::Other => json!({"kind": "acme.unknown"}),
        }
    }

    fn ev() -> impl Strategy<Value = Ev> {
        prop_oneof![
            (0u8..4).prop_map(Ev::Say),
            Just(Ev::Tool),
            any::<bool>().prop_map(Ev::Done),
            Just(Ev::Start),
            Just(Ev::Other),
        ]
    }

    proptest! {
        /// Exit 0 only with the final answer: the verdict is the text of the `say` events after
        /// the last tool call, and only when the run's last deciding event is a good `done`
        /// with nothing said after it; a failure stays a failure, a run without its `done` is
        /// cut off.
        #[test]
        fn only_a_run_that_ended_well_gives_its_last_answer(events in proptest::collection::vec(ev(), 0..24)) {
            let text = include_str!("../../../../../examples/producer-file/acme.toml");
            let spec: &'static Spec = Box::leak(Box::new(parse(text, "acme.toml", false, Origin::BuiltIn).unwrap()));
            let mut ex = Box::new(Events::new(Producer::File(spec), spec));
            for (i, e) in events.iter().enumerate() {
                ex.feed(&Item::Value { line: i as u64 + 1, value: value(e) });
            }
            // The model: the first failure wins; a good `done` ends the run; a say or tool
            // after an end starts a new one.
            let (mut failed, mut ended, mut said) = (false, false, String::new());
            for e in &events {
                match e {
                    Ev::Say(n) => {
                        if ended {
                            said.clear();
                        }
                        ended = false;
                        said.push_str(&format!("{{\"n\": {n}}}"));
                    }
                    Ev::Tool => {
                        ended = false;
                        said.clear();
                    }
                    Ev::Done(false) => failed = true,
                    Ev::Done(true) => ended |= !failed,
                    Ev::Start | Ev::Other => {}
                }
            }
            let verdict = ex.finish().verdict;
            match verdict {
                Verdict::Failed(f) if failed => prop_assert_eq!(f.kind, crate::error::ErrorKind::AgentError),
                Verdict::Failed(f) => {
                    prop_assert!(!ended, "{:?}", f);
                    prop_assert_eq!(f.kind, crate::error::ErrorKind::Truncated);
                }
                Verdict::Text { text, .. } => {
                    prop_assert!(ended && !failed);
                    prop_assert_eq!(text, said);
                }
                Verdict::Nothing { .. } => prop_assert!(ended && !failed && said.is_empty()),
                other => prop_assert!(false, "{:?}", other),
            }
        }
    }
}
