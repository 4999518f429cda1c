//! From a producer file's content (accepted by the schema) to a [`Spec`]: places parsed,
//! conditions typed, and the checks the schema cannot make, each naming its place.

use serde_json::{Map, Value};

use super::spec::{
    Activity, Cond, ErrorFields, Event, FORMAT, Failing, Origin, Path, Raw, RawError, RawEvent,
    RawResume, RawSchemaFlag, RawSession, Resume, SchemaFlagSpec, SessionFields, Spec, Test,
    Values, Wrong, wrong,
};

impl Spec {
    /// Read a file's content (accepted by the schema) into a spec.
    pub(super) fn compile(raw: Raw, origin: Origin) -> Result<Self, Wrong> {
        if raw.sojx_producer != FORMAT {
            return Err(wrong(
                "/sojx_producer",
                format!(
                    "format {} is not one this sojx reads (it reads {FORMAT})",
                    raw.sojx_producer
                ),
            ));
        }
        if raw.events.len() > MAX_EVENTS {
            return Err(wrong(
                "/event",
                format!(
                    "{} events, more than sojx's bound of {MAX_EVENTS} in a file (each line of a stream is matched against every event)",
                    raw.events.len()
                ),
            ));
        }
        let mut events = Vec::with_capacity(raw.events.len());
        for (i, e) in raw.events.into_iter().enumerate() {
            events.push(event(e, &format!("/event/{i}"))?);
        }
        let compared: usize = events
            .iter()
            .flat_map(|e| &e.when)
            .map(|c| match &c.test {
                Test::OneOf(v) | Test::NoneOf(v) => v.len().max(1),
                Test::Present(_) => 1,
            })
            .sum();
        if compared > MAX_COMPARED {
            return Err(wrong(
                "/event",
                format!(
                    "its events' conditions compare {compared} values, more than sojx's bound of {MAX_COMPARED} in a file (each line of a stream is matched against every event)"
                ),
            ));
        }
        if events.is_empty() {
            // A look-alike: read by the producer it resembles (checked where producers are
            // known, `Registry::load`), chosen with `--from`.
            if raw.reads_like.is_none() {
                return Err(wrong(
                    "/event",
                    "no events: describe the producer's events, or name the producer whose reader reads it with `reads_like`",
                ));
            }
        } else if !events.iter().any(|e| e.claims) {
            return Err(wrong(
                "/event",
                "no event claims a stream (every one has `claims = false`): sojx could never detect it",
            ));
        }
        let resume = raw.resume.map(resume).transpose()?;
        let schema_flag = raw
            .schema_flag
            .map(|f| schema_flag(f, resume.as_ref()))
            .transpose()?;
        if raw.terminal && !events.is_empty() && !events.iter().any(|e| e.end) {
            return Err(wrong(
                "/event",
                "no event ends the run (`end = true`), so every stream would be cut off; set `terminal = false` if the producer prints no final event",
            ));
        }
        Ok(Self {
            id: raw.id,
            name: raw.name,
            version: raw.version,
            about: raw.about,
            reads_like: raw.reads_like,
            sources: raw.sources,
            terminal: raw.terminal,
            permanent_codes: raw.permanent_codes,
            events,
            resume,
            schema_flag,
            origin,
        })
    }
}

/// Most events a producer file may describe, and conditions (`when` and `requires`) one event
/// may have, and values one condition may list (docs/limits.md): a stream's every line is matched against them, so that the work
/// per line stays small whatever the file (11,000 events in a 1 MiB file once made 20,000 lines
/// take 16 to 37 s). sojx's own files have at most 12 events of at most 6 conditions.
pub(crate) const MAX_EVENTS: usize = 64;
pub(crate) const MAX_CONDITIONS: usize = 16;
/// Most values one condition may list (`place = [values]`, `{ not = [values] }`): each is
/// compared in turn, so the work per line stays bounded with the events and conditions.
pub(crate) const MAX_VALUES: usize = 64;
/// Most values a file's conditions compare in all (a condition without a list counts one): the
/// work per line, whatever the shape of the file.
pub(crate) const MAX_COMPARED: usize = 1024;

fn event(e: RawEvent, at: &str) -> Result<Event, Wrong> {
    if e.when.is_empty() {
        return Err(wrong(
            format!("{at}/when"),
            "an event needs at least one condition (`when`), or every object would be it",
        ));
    }
    let mut when = conds(&e.when, &format!("{at}/when"))?;
    for (i, r) in e.requires.iter().enumerate() {
        when.push(Cond {
            path: Path::parse(r, true).map_err(|m| wrong(format!("{at}/requires/{i}"), m))?,
            test: Test::Present(true),
        });
    }
    if when.len() > MAX_CONDITIONS {
        return Err(wrong(
            format!("{at}/when"),
            format!(
                "{} conditions (`when` and `requires`), more than sojx's bound of {MAX_CONDITIONS} for an event",
                when.len()
            ),
        ));
    }
    let failure = match e.failure {
        None | Some(Value::Bool(false)) => Failing::Never,
        Some(Value::Bool(true)) => Failing::Always,
        Some(Value::Object(o)) => Failing::When(conds(&o, &format!("{at}/failure"))?),
        Some(_) => return Err(wrong(format!("{at}/failure"), "a boolean or a table")),
    };
    let error = e.error.as_ref().map(|r| error_fields(r, at)).transpose()?;
    let session = session_fields(&e.session.unwrap_or_default(), at)?;
    let identity = e
        .identity
        .iter()
        .enumerate()
        .map(|(i, p)| Path::parse(p, false).map_err(|m| wrong(format!("{at}/identity/{i}"), m)))
        .collect::<Result<Vec<_>, _>>()?;
    let activity = activity(e.activity.as_deref(), at)?;
    let append = appends(e.text_mode.as_deref(), at)?;
    Ok(Event {
        name: e.name,
        when,
        claims: e.claims,
        text: place(e.text.as_deref(), false, at, "text")?,
        append,
        structured: place(e.structured.as_deref(), false, at, "structured")?,
        reset: e.reset,
        retry: e.retry,
        end: e.end,
        failure,
        error,
        session,
        identity,
        activity,
    })
}

/// An event's `[error]`: where its message, code, status and retryability are.
fn error_fields(r: &RawError, at: &str) -> Result<ErrorFields, Wrong> {
    let at = &format!("{at}/error");
    Ok(ErrorFields {
        // `*` in an error field: the first element's (goose's error content block).
        message: Path::parse(&r.message, true).map_err(|m| wrong(format!("{at}/message"), m))?,
        code: place(r.code.as_deref(), true, at, "code")?,
        status: place(r.status.as_deref(), true, at, "status")?,
        retryable: place(r.retryable.as_deref(), true, at, "retryable")?,
    })
}

/// An event's `[session]`: where the run's id, model, turns, time, cost and tokens are.
fn session_fields(s: &RawSession, at: &str) -> Result<SessionFields, Wrong> {
    let at = &format!("{at}/session");
    let sp = |p: &Option<String>, key: &str| place(p.as_deref(), false, at, key);
    Ok(SessionFields {
        id: sp(&s.id, "id")?,
        model: sp(&s.model, "model")?,
        turns: sp(&s.turns, "turns")?,
        duration_ms: sp(&s.duration_ms, "duration_ms")?,
        cost_usd: sp(&s.cost_usd, "cost_usd")?,
        input_tokens: sp(&s.input_tokens, "input_tokens")?,
        output_tokens: sp(&s.output_tokens, "output_tokens")?,
        cache_read_input_tokens: sp(&s.cache_read_input_tokens, "cache_read_input_tokens")?,
        cache_creation_input_tokens: sp(
            &s.cache_creation_input_tokens,
            "cache_creation_input_tokens",
        )?,
    })
}

/// A place a file may leave out (`any`: `*` allowed as a token), a mistake in it named at
/// `{at}/{key}`.
fn place(p: Option<&str>, any: bool, at: &str, key: &str) -> Result<Option<Path>, Wrong> {
    p.map(|s| Path::parse(s, any).map_err(|m| wrong(format!("{at}/{key}"), m)))
        .transpose()
}

/// An event's `activity`: how `--activity` shows it, if at all.
fn activity(name: Option<&str>, at: &str) -> Result<Option<Activity>, Wrong> {
    match name {
        None => Ok(None),
        Some("info") => Ok(Some(Activity::Info)),
        Some("tool") => Ok(Some(Activity::Tool)),
        Some("retry") => Ok(Some(Activity::Retry)),
        Some(other) => Err(wrong(
            format!("{at}/activity"),
            format!("`{other}` is not one of info, tool, retry"),
        )),
    }
}

/// An event's `text_mode`: whether its text is appended to the text before it (`append`) or
/// replaces it (`last`, the default).
fn appends(text_mode: Option<&str>, at: &str) -> Result<bool, Wrong> {
    match text_mode {
        None | Some("last") => Ok(false),
        Some("append") => Ok(true),
        Some(other) => Err(wrong(
            format!("{at}/text_mode"),
            format!("`{other}` is not one of last, append"),
        )),
    }
}

/// Conditions from a table: `place = value` (equal), `place = [values]` (one of them),
/// `place = { not = value or [values] }`, `place = { present = bool }`.
fn conds(table: &Map<String, Value>, at: &str) -> Result<Vec<Cond>, Wrong> {
    let mut out = Vec::with_capacity(table.len());
    for (place, want) in table {
        // The place of a mistake, made only for one (a built-in file is read on every run).
        let here = || format!("{at}/{}", place.replace('~', "~0").replace('/', "~1"));
        let path = Path::parse(place, true).map_err(|m| wrong(here(), m))?;
        let list = |v: &Value| match v {
            Value::Array(a) => a.clone(),
            v => vec![v.clone()],
        };
        let values = match want {
            Value::Array(a) => a.len(),
            Value::Object(o) => o.get("not").and_then(Value::as_array).map_or(1, Vec::len),
            _ => 1,
        };
        if values > MAX_VALUES {
            return Err(wrong(
                here(),
                format!("{values} values, more than sojx's bound of {MAX_VALUES} for a condition"),
            ));
        }
        let test = match want {
            Value::Object(o) => match (o.get("not"), o.get("present")) {
                (Some(not), None) if o.len() == 1 => Test::NoneOf(list(not)),
                (None, Some(Value::Bool(b))) if o.len() == 1 => Test::Present(*b),
                _ => {
                    return Err(wrong(
                        here(),
                        "a condition table is `{ not = … }` or `{ present = true|false }`",
                    ));
                }
            },
            v => Test::OneOf(list(v)),
        };
        out.push(Cond { path, test });
    }
    Ok(out)
}

/// `[schema_flag]`: its form and provider known (the schema sojx checks them against cannot say
/// which), its programs file names.
fn schema_flag(f: RawSchemaFlag, resume: Option<&Resume>) -> Result<SchemaFlagSpec, Wrong> {
    use crate::provider::Provider;
    let provider = match f.provider.as_str() {
        "anthropic" => Provider::Anthropic,
        "openai" => Provider::Openai,
        "gemini" => Provider::Gemini,
        "claude-code" => Provider::ClaudeCode,
        _ => {
            return Err(wrong(
                "/schema_flag/provider",
                "one of anthropic, openai, gemini, claude-code",
            ));
        }
    };
    let file = match f.form.as_str() {
        "inline" => false,
        "file" => true,
        _ => return Err(wrong("/schema_flag/form", "`inline` or `file`")),
    };
    if !f.flag.starts_with('-') {
        return Err(wrong("/schema_flag/flag", "a flag starts with `-`"));
    }
    let mut programs = f.programs;
    if programs.is_empty() {
        programs = resume.map(|r| r.programs.clone()).unwrap_or_default();
    }
    if let Some(i) = programs
        .iter()
        .position(|p| p.is_empty() || p.contains(['/', '\\']))
    {
        return Err(wrong(
            format!("/schema_flag/programs/{i}"),
            "a program is a file name (`agy`), without a folder",
        ));
    }
    Ok(SchemaFlagSpec {
        flag: f.flag,
        file,
        provider,
        after: f.after,
        programs,
    })
}

/// `[resume]`: its words' placeholders known, the session id there, and the feedback never a
/// word an agent could read as an option (after a `--`, in a `--flag={feedback}`, or on stdin).
fn resume(r: RawResume) -> Result<Resume, Wrong> {
    for (i, p) in r.programs.iter().enumerate() {
        if p.is_empty() || p.contains(['/', '\\']) {
            return Err(wrong(
                format!("/resume/programs/{i}"),
                "a program is a file name (`droid`), without a folder",
            ));
        }
    }
    check_argv(&r.argv, r.stdin)?;
    let carry = carried_flags(r.carry)?;
    Ok(Resume {
        programs: r.programs,
        argv: r.argv,
        stdin: r.stdin,
        carry,
        not_saved: r.not_saved,
    })
}

/// `[resume]`'s `argv`: every `{…}` a placeholder, the session named, `{carried}` a word of its
/// own and there once at most, the feedback there once and safe from being read as an option
/// (or on stdin, with `stdin`).
fn check_argv(argv: &[String], stdin: bool) -> Result<(), Wrong> {
    const PLACEHOLDERS: [&str; 3] = ["{session_id}", "{feedback}", "{carried}"];
    let mut feedback = Vec::new();
    let mut session = false;
    let mut carried = 0;
    for (i, w) in argv.iter().enumerate() {
        let at = || format!("/resume/argv/{i}");
        // Every `{…}` in a word is one of the placeholders.
        let mut rest = w.as_str();
        while let Some(start) = rest.find('{') {
            let tail = &rest[start..];
            let Some(p) = PLACEHOLDERS.iter().find(|p| tail.starts_with(**p)) else {
                return Err(wrong(
                    at(),
                    "a `{` starts one of {session_id}, {feedback}, {carried}",
                ));
            };
            rest = &tail[p.len()..];
        }
        session |= w.contains("{session_id}");
        if w.contains("{carried}") {
            if w != "{carried}" {
                return Err(wrong(at(), "{carried} is a word of its own"));
            }
            carried += 1;
        }
        if w.contains("{feedback}") {
            let after_dashes = argv[..i].iter().any(|w| w == "--");
            let attached = w.starts_with('-')
                && w.find('=')
                    .is_some_and(|eq| eq < w.find("{feedback}").unwrap_or(0));
            let after_a_double_dash = w == "{feedback}" && after_dashes;
            if !(after_a_double_dash || attached) {
                return Err(wrong(
                    at(),
                    "the feedback may start with `-`: give it after a `--` word, or attached to a flag (`--prompt={feedback}`), or set `stdin = true`",
                ));
            }
            feedback.push(i);
        }
    }
    if !session {
        return Err(wrong(
            "/resume/argv",
            "the argv never names the session ({session_id}): sojx resumes a session by its id, never the last one",
        ));
    }
    if carried > 1 {
        return Err(wrong("/resume/argv", "{carried} is there more than once"));
    }
    match (stdin, feedback.len()) {
        (true, 0) | (false, 1) => {}
        (true, _) => {
            return Err(wrong(
                "/resume/argv",
                "with `stdin = true` the feedback is on stdin, not in the argv",
            ));
        }
        (false, 0) => {
            return Err(wrong(
                "/resume/argv",
                "the feedback is nowhere: put {feedback} in the argv, or set `stdin = true`",
            ));
        }
        (false, _) => {
            return Err(wrong("/resume/argv", "{feedback} is there more than once"));
        }
    }
    Ok(())
}

/// `[resume]`'s `carry`: the flags carried to the resumed run, each with how many values it
/// takes.
fn carried_flags(table: Map<String, Value>) -> Result<Vec<(String, Values)>, Wrong> {
    let mut carry = Vec::with_capacity(table.len());
    for (flag, n) in table {
        let at = || {
            format!(
                "/resume/carry/{}",
                flag.replace('~', "~0").replace('/', "~1")
            )
        };
        if !flag.starts_with('-') {
            return Err(wrong(at(), "a carried flag starts with `-`"));
        }
        let values = match n {
            Value::Number(n) if n.as_u64() == Some(0) => Values::Zero,
            Value::Number(n) if n.as_u64() == Some(1) => Values::One,
            Value::String(s) if s == "many" => Values::Many,
            _ => {
                return Err(wrong(
                    at(),
                    "how many values the flag takes: 0, 1 or \"many\"",
                ));
            }
        };
        carry.push((flag, values));
    }
    Ok(carry)
}
