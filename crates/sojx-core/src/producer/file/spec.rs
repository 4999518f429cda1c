//! A producer file's content (docs/producer-files.md): the data a file holds, as read
//! ([`Raw`], which `schemas/producer-file.schema.json` describes), and as sojx uses it
//! ([`Spec`]: pointers split, conditions typed), with the checks the schema cannot make.

use serde::Deserialize;
use serde_json::{Map, Value};

/// The format version this sojx reads (`sojx_producer = 1`).
pub const FORMAT: u64 = 1;

/// A producer file as written (after the schema accepted it).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Raw {
    pub(super) sojx_producer: u64,
    pub(super) id: String,
    pub(super) name: String,
    #[serde(default)]
    pub(super) version: Option<String>,
    #[serde(default)]
    pub(super) about: Option<String>,
    #[serde(default)]
    pub(super) reads_like: Option<String>,
    #[serde(default)]
    pub(super) sources: Vec<String>,
    #[serde(default = "yes")]
    pub(super) terminal: bool,
    #[serde(default)]
    pub(super) permanent_codes: Vec<String>,
    #[serde(rename = "event", default)]
    pub(super) events: Vec<RawEvent>,
    #[serde(default)]
    pub(super) resume: Option<RawResume>,
    #[serde(default)]
    pub(super) schema_flag: Option<RawSchemaFlag>,
}

/// `[schema_flag]`, as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawSchemaFlag {
    pub(super) flag: String,
    pub(super) form: String,
    pub(super) provider: String,
    #[serde(default)]
    pub(super) after: Option<String>,
    #[serde(default)]
    pub(super) programs: Vec<String>,
}

/// `[resume]`, as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawResume {
    #[serde(default)]
    pub(super) programs: Vec<String>,
    pub(super) argv: Vec<String>,
    #[serde(default)]
    pub(super) stdin: bool,
    #[serde(default)]
    pub(super) carry: Map<String, Value>,
    #[serde(default)]
    pub(super) not_saved: Vec<String>,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawEvent {
    pub(super) name: String,
    #[serde(default)]
    pub(super) when: Map<String, Value>,
    #[serde(default)]
    pub(super) requires: Vec<String>,
    #[serde(default = "yes")]
    pub(super) claims: bool,
    #[serde(default)]
    pub(super) text: Option<String>,
    #[serde(default)]
    pub(super) text_mode: Option<String>,
    #[serde(default)]
    pub(super) structured: Option<String>,
    #[serde(default)]
    pub(super) reset: bool,
    #[serde(default)]
    pub(super) retry: bool,
    #[serde(default)]
    pub(super) end: bool,
    #[serde(default)]
    pub(super) failure: Option<Value>,
    #[serde(default)]
    pub(super) error: Option<RawError>,
    #[serde(default)]
    pub(super) session: Option<RawSession>,
    #[serde(default)]
    pub(super) identity: Vec<String>,
    #[serde(default)]
    pub(super) activity: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawError {
    pub(super) message: String,
    #[serde(default)]
    pub(super) code: Option<String>,
    #[serde(default)]
    pub(super) status: Option<String>,
    #[serde(default)]
    pub(super) retryable: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawSession {
    pub(super) id: Option<String>,
    pub(super) model: Option<String>,
    pub(super) turns: Option<String>,
    pub(super) duration_ms: Option<String>,
    pub(super) cost_usd: Option<String>,
    pub(super) input_tokens: Option<String>,
    pub(super) output_tokens: Option<String>,
    pub(super) cache_read_input_tokens: Option<String>,
    pub(super) cache_creation_input_tokens: Option<String>,
}

/// Where a producer came from (`sojx producers`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// Compiled into sojx (`producers/ID.toml` in its source).
    BuiltIn,
    /// `$XDG_CONFIG_HOME/sojx/producers/`, this file.
    Config(String),
    /// `--producer-file`, this file.
    Flag(String),
}

impl Origin {
    /// `built-in`, `config`, `flag`.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::BuiltIn => "built-in",
            Self::Config(_) => "config",
            Self::Flag(_) => "flag",
        }
    }

    /// The file, for a loaded one.
    pub fn path(&self) -> Option<&str> {
        match self {
            Self::BuiltIn => None,
            Self::Config(p) | Self::Flag(p) => Some(p),
        }
    }
}

/// A producer described by a file, ready to read a stream.
#[derive(Debug)]
pub struct Spec {
    pub id: String,
    pub name: String,
    pub version: Option<String>,
    pub about: Option<String>,
    /// The producer whose shapes this one shares (`claude-code`). A file without events is read
    /// by that producer's reader (a look-alike: its own id, chosen with `--from`); a file with
    /// events decides where sojx's detection names that producer ([`super::Registry::sight`]).
    pub reads_like: Option<String>,
    pub sources: Vec<String>,
    /// A stream without one of the `end` events was cut off (`truncated`).
    pub terminal: bool,
    /// Error codes that re-running cannot fix, beside sojx's own list.
    pub permanent_codes: Vec<String>,
    pub events: Vec<Event>,
    /// How `sojx run` resumes one of the producer's sessions, when the file says.
    pub resume: Option<Resume>,
    /// How the producer's CLI gives its model a schema, when the file says.
    pub schema_flag: Option<SchemaFlagSpec>,
    pub origin: Origin,
}

/// How a producer's CLI takes a JSON Schema (`[schema_flag]`, docs/producer-files.md).
#[derive(Debug)]
pub struct SchemaFlagSpec {
    pub flag: String,
    /// The flag's value is a file's path, not the schema's JSON.
    pub file: bool,
    /// The lowering the CLI takes.
    pub provider: crate::provider::Provider,
    /// The word after which the flag goes; `None`: right after the program.
    pub after: Option<String>,
    /// COMMAND file names it is for (`[resume]`'s when the table names none).
    pub programs: Vec<String>,
}

/// How `sojx run` resumes a session of the producer's CLI with the feedback (`[resume]`,
/// docs/producer-files.md): the argv after the program, with `{session_id}` and `{feedback}`
/// replaced inside its words and the word `{carried}` replaced by the first attempt's flags of
/// `carry`; or the feedback on stdin.
#[derive(Debug)]
pub struct Resume {
    /// COMMAND file names this resume form is for (`droid`), beside `--resume-profile ID`.
    pub programs: Vec<String>,
    pub argv: Vec<String>,
    /// The feedback is the resumed attempt's stdin, not a word of its argv.
    pub stdin: bool,
    /// The first attempt's flags repeated on the resumed one, with how many values each takes.
    pub carry: Vec<(String, Values)>,
    /// Flags of the first attempt with which its session is not saved: nothing to resume.
    pub not_saved: Vec<String>,
}

/// How many values a flag takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Values {
    /// A switch.
    Zero,
    /// One (`--flag V` or `--flag=V`).
    One,
    /// Values up to the next option.
    Many,
}

/// A spec is one producer: two are the same when they are the same spec (a loaded file is
/// one spec for the whole process).
impl PartialEq for Spec {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}

impl Eq for Spec {}

impl std::hash::Hash for Spec {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        std::ptr::hash(self, state);
    }
}

/// One event type of the producer's vocabulary, and what it means.
#[derive(Debug)]
pub struct Event {
    pub name: String,
    pub when: Vec<Cond>,
    pub claims: bool,
    pub text: Option<Path>,
    /// Text is appended to what came before (deltas), not put in its place.
    pub append: bool,
    pub structured: Option<Path>,
    pub reset: bool,
    /// The agent retries what failed: a failure before this event is not the run's.
    pub retry: bool,
    pub end: bool,
    pub failure: Failing,
    pub error: Option<ErrorFields>,
    pub session: SessionFields,
    /// Places that mark a value of this event as a run's own (a run's token total, a status
    /// object of its own) beside the `session` places: with one of them, or a session fact, the
    /// value alone is the producer's output, never an answer ([`Spec::claims_output`]).
    pub identity: Vec<Path>,
    pub activity: Option<Activity>,
}

/// When an event is a failure of the run.
#[derive(Debug)]
pub enum Failing {
    Never,
    Always,
    When(Vec<Cond>),
}

#[derive(Debug)]
pub struct ErrorFields {
    pub message: Path,
    pub code: Option<Path>,
    pub status: Option<Path>,
    pub retryable: Option<Path>,
}

#[derive(Debug, Default)]
pub struct SessionFields {
    pub id: Option<Path>,
    pub model: Option<Path>,
    pub turns: Option<Path>,
    pub duration_ms: Option<Path>,
    pub cost_usd: Option<Path>,
    pub input_tokens: Option<Path>,
    pub output_tokens: Option<Path>,
    pub cache_read_input_tokens: Option<Path>,
    pub cache_creation_input_tokens: Option<Path>,
}

impl ErrorFields {
    /// What the event says of re-running, when it says it (a boolean at `retryable`).
    pub fn retryable(&self, v: &Value) -> Option<bool> {
        self.retryable.as_ref()?.get(v)?.as_bool()
    }
}

impl SessionFields {
    /// Whether `v` holds one of the run's facts where this event keeps them (its session id,
    /// model, turns, cost or tokens): then it is the run's, not an answer (pi's `session` line).
    pub fn identifies(&self, v: &Value) -> bool {
        [
            &self.id,
            &self.model,
            &self.turns,
            &self.duration_ms,
            &self.cost_usd,
            &self.input_tokens,
            &self.output_tokens,
            &self.cache_read_input_tokens,
            &self.cache_creation_input_tokens,
        ]
        .into_iter()
        .flatten()
        .any(|p| p.get(v).is_some())
    }
}

/// How `--activity` shows an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Activity {
    Info,
    Tool,
    Retry,
}

/// A place in an event: a member name, or a JSON Pointer (RFC 6901) whose `*` tokens (in
/// conditions) stand for any element of an array.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Path(Vec<Token>);

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Key(String),
    /// `*`: any element of an array (conditions only).
    Any,
    /// `-`: the array's last element (RFC 6901 uses `-` for the place past the end; sojx
    /// reads it as the last).
    Last,
}

/// A condition on an event: the value at `path` is one of, or none of, some values; or is
/// there (not null), or is not.
#[derive(Debug)]
pub struct Cond {
    pub path: Path,
    pub test: Test,
}

#[derive(Debug)]
pub enum Test {
    OneOf(Vec<Value>),
    NoneOf(Vec<Value>),
    Present(bool),
}

/// A check the schema cannot make failed: where in the file (a JSON Pointer) and why.
#[derive(Debug)]
pub(super) struct Wrong {
    pub place: String,
    pub message: String,
}

pub(super) fn wrong(place: impl Into<String>, message: impl Into<String>) -> Wrong {
    Wrong {
        place: place.into(),
        message: message.into(),
    }
}

impl Path {
    /// The place as [`super::shown`] lists what sojx's own producers show: a JSON Pointer of
    /// its first [`super::SHOWN_DEPTH`] tokens, an array element (`*`, `-`, an index) as `*`.
    pub fn shown_key(&self) -> String {
        let mut key = String::new();
        for t in self.0.iter().take(super::SHOWN_DEPTH) {
            key.push('/');
            match t {
                Token::Key(k) if !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()) => {
                    key.push('*');
                }
                Token::Key(k) => key.push_str(&k.replace('~', "~0").replace('/', "~1")),
                Token::Any | Token::Last => key.push('*'),
            }
        }
        key
    }

    /// Parse `s`: a JSON Pointer when it starts with `/`, else one member's name. `*` is
    /// allowed as a token only when `any` (conditions, error fields).
    pub(super) fn parse(s: &str, any: bool) -> Result<Self, String> {
        let Some(rest) = s.strip_prefix('/') else {
            if s.is_empty() {
                return Err("an empty place: write a member's name or a JSON Pointer".into());
            }
            return Ok(Self(vec![Token::Key(s.to_owned())]));
        };
        let mut tokens = Vec::new();
        for t in rest.split('/') {
            if t == "*" {
                if !any {
                    return Err(format!(
                        "`{s}`: `*` (any element) is allowed in conditions and error fields only"
                    ));
                }
                tokens.push(Token::Any);
                continue;
            }
            if t == "-" {
                tokens.push(Token::Last);
                continue;
            }
            if !t.contains('~') {
                tokens.push(Token::Key(t.to_owned()));
                continue;
            }
            if t.replace("~0", "").replace("~1", "").contains('~') {
                return Err(format!(
                    "`{s}` is not a JSON Pointer: `~` must be written `~0` (and `/` in a name `~1`)"
                ));
            }
            tokens.push(Token::Key(t.replace("~1", "/").replace("~0", "~")));
        }
        Ok(Self(tokens))
    }

    /// The value at this place, when there is one and it is not null (a path with `*` finds
    /// the first element's that is there and not null).
    pub fn get<'a>(&self, v: &'a Value) -> Option<&'a Value> {
        let mut found = None;
        walk(v, &self.0, &mut |x| {
            found = Some(x).filter(|x| !x.is_null());
            found.is_some()
        });
        found
    }

    /// Whether any value at this place satisfies `f` (`*` tries every element).
    fn any<'a>(&self, v: &'a Value, f: &mut dyn FnMut(&'a Value) -> bool) -> bool {
        walk(v, &self.0, f)
    }
}

/// Visit the values at `tokens` below `v` until `f` says stop (true); whether it did.
fn walk<'a>(v: &'a Value, tokens: &[Token], f: &mut dyn FnMut(&'a Value) -> bool) -> bool {
    let Some((first, rest)) = tokens.split_first() else {
        return f(v);
    };
    match (first, v) {
        (Token::Key(k), Value::Object(o)) => o.get(k).is_some_and(|x| walk(x, rest, f)),
        (Token::Key(k), Value::Array(a)) => k
            .parse::<usize>()
            .ok()
            .filter(|_| k == "0" || !k.starts_with('0'))
            .and_then(|i| a.get(i))
            .is_some_and(|x| walk(x, rest, f)),
        (Token::Any, Value::Array(a)) => a.iter().any(|x| walk(x, rest, f)),
        (Token::Last, Value::Array(a)) => a.last().is_some_and(|x| walk(x, rest, f)),
        _ => false,
    }
}

/// JSON equality, numbers by their value (`0` is `0.0`): exactly, as a condition's number is
/// a code or a count, never a measurement.
#[allow(clippy::float_cmp)]
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            x == y || matches!((x.as_f64(), y.as_f64()), (Some(p), Some(q)) if p == q)
        }
        _ => a == b,
    }
}

impl Cond {
    pub fn holds(&self, v: &Value) -> bool {
        match &self.test {
            Test::OneOf(values) => self
                .path
                .any(v, &mut |x| values.iter().any(|want| same(x, want))),
            Test::NoneOf(values) => !self
                .path
                .any(v, &mut |x| values.iter().any(|want| same(x, want))),
            Test::Present(want) => self.path.any(v, &mut |x| !x.is_null()) == *want,
        }
    }
}

impl Event {
    /// Whether `v` is this event.
    pub fn matches(&self, v: &Value) -> bool {
        v.is_object() && self.when.iter().all(|c| c.holds(v))
    }

    /// Whether the event asks for a field that `shown`, the places one of sojx's own
    /// producers shows (sorted), never holds (issue 55, item 4): a condition that a value is
    /// there, or is one of some values, at a place `shown` lacks (Droid's
    /// `/usage/factory_credits` beside Claude Code's). Only such an event decides for its file
    /// where sojx's own detection names that producer.
    pub fn refines(&self, shown: &[&str]) -> bool {
        self.when.iter().any(|c| {
            matches!(c.test, Test::OneOf(_) | Test::Present(true))
                && shown.binary_search(&c.path.shown_key().as_str()).is_err()
        })
    }

    /// Whether `v`, this event, is a failure of the run.
    pub fn fails(&self, v: &Value) -> bool {
        match &self.failure {
            Failing::Never => false,
            Failing::Always => true,
            Failing::When(conds) => conds.iter().all(|c| c.holds(v)),
        }
    }
}

impl Spec {
    /// The event `v` is, if it is one of the vocabulary's.
    pub fn event(&self, v: &Value) -> Option<&Event> {
        self.events.iter().find(|e| e.matches(v))
    }

    /// Whether `v` alone claims a stream for this producer: it is one of the events that
    /// claim.
    pub fn claims(&self, v: &Value) -> bool {
        self.event(v).is_some_and(|e| e.claims)
    }

    /// Whether `v`, the whole input or a value found in text, is this producer's output rather
    /// than an answer shaped like one of its events: a claiming event that carries a run's
    /// identity — a fact its `session` places find, a place of its `identity`, or what
    /// `identity` finds (a session id, the run's usage or turns), as sojx's own producers ask
    /// (issue 55, item 3). An event that ends a run is not enough: `{"messages": […],
    /// "metadata": {}}` or `{"type": "error", "message": …}` alone stays an answer.
    pub fn claims_output(&self, v: &Value, identity: fn(&Value) -> bool) -> bool {
        self.event(v).is_some_and(|e| {
            e.claims
                && (e.session.identifies(v)
                    || e.identity.iter().any(|p| p.get(v).is_some())
                    || identity(v))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn places_are_members_or_pointers() {
        let v = json!({"a/b": 1, "m": {"c": [{"t": "x"}, {"t": "error", "text": "boom"}]}});
        assert_eq!(Path::parse("a/b", false).unwrap().get(&v), Some(&json!(1)));
        assert_eq!(
            Path::parse("/a~1b", false).unwrap().get(&v),
            Some(&json!(1))
        );
        assert_eq!(
            Path::parse("/m/c/1/text", false).unwrap().get(&v),
            Some(&json!("boom"))
        );
        assert_eq!(Path::parse("/m/c/01/text", false).unwrap().get(&v), None);
        assert!(Path::parse("/m/*/t", false).is_err());
        assert!(Path::parse("/a~2", false).is_err());
        assert!(Path::parse("", false).is_err());
        let any = Cond {
            path: Path::parse("/m/c/*/t", true).unwrap(),
            test: Test::OneOf(vec![json!("error")]),
        };
        assert!(any.holds(&v));
        let none = Cond {
            path: Path::parse("/m/c/*/t", true).unwrap(),
            test: Test::NoneOf(vec![json!("error")]),
        };
        assert!(!none.holds(&v));
    }

    #[test]
    fn numbers_compare_by_value_and_null_is_absent() {
        let c = |test| Cond {
            path: Path::parse("n", false).unwrap(),
            test,
        };
        let v: Value = serde_json::from_str(r#"{"n": 0.0, "z": null}"#).unwrap();
        assert!(c(Test::OneOf(vec![json!(0)])).holds(&v));
        assert!(!c(Test::NoneOf(vec![json!(0)])).holds(&v));
        let z = Cond {
            path: Path::parse("z", false).unwrap(),
            test: Test::Present(false),
        };
        assert!(z.holds(&v));
    }
}
