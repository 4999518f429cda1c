//! The lean path for the Claude Code lines that matter only through a few members: an assistant
//! message (its text, its model), a user message (the tool calls it rejects) and a `system`
//! `init` (its model and session). Such a line is
//! read into borrowed fields, the rest of it skipped without being built, instead of into a
//! `Value`: on a long session these lines are most of what is parsed.
//!
//! The parse checks the whole line as the full parse does (syntax, numbers, escapes, control
//! characters; the caller checks UTF-8 first), and a line it cannot take exactly as `event`
//! would take its value — a member of an unexpected type, a duplicate key it reads, a
//! StructuredOutput call, an API error, a dialect hint while the dialect is open, another
//! `system` subtype — is left to the full parse, with nothing changed.

use std::borrow::Cow;

use std::marker::PhantomData;

use serde::de::value::MapAccessDeserializer;
use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, Visitor};

use super::{Claude, OUTPUT_TOOLS, SYNTHETIC};
use crate::producer::Producer;

/// The members of a line that the lean path reads; the others are skipped.
#[derive(serde::Deserialize)]
struct Line<'a> {
    #[serde(rename = "type", borrow)]
    ty: Cow<'a, str>,
    #[serde(borrow)]
    subtype: Option<Cow<'a, str>>,
    #[serde(borrow)]
    model: Option<Cow<'a, str>>,
    #[serde(borrow)]
    session_id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    message: Option<Object<Message<'a>>>,
    /// An `init`'s tools (read only there, where `event` reads them).
    tools: Option<serde_json::Value>,
    /// Members whose presence sends the line to the full parse: an API error, and the hints
    /// that tell Cursor, Qwen Code and opencode from Claude Code.
    #[serde(default)]
    error: Present,
    #[serde(default, rename = "sessionID")]
    opencode: Present,
    #[serde(default)]
    usage: Present,
    #[serde(default)]
    qwen_code_version: Present,
}

#[derive(serde::Deserialize)]
struct Message<'a> {
    #[serde(borrow)]
    model: Option<Cow<'a, str>>,
    #[serde(borrow)]
    content: Option<Vec<Object<Block<'a>>>>,
}

#[derive(serde::Deserialize)]
struct Block<'a> {
    #[serde(rename = "type", borrow)]
    ty: Option<Cow<'a, str>>,
    #[serde(borrow)]
    text: Option<Cow<'a, str>>,
    #[serde(borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow)]
    tool_use_id: Option<Cow<'a, str>>,
    is_error: Option<bool>,
}

/// `T` read from a JSON object only: serde_json also reads a struct from an array (its fields
/// in order), which `event` would not look into.
struct Object<T>(T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Object<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Map<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for Map<T> {
            type Value = Object<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map)).map(Object)
            }
        }
        d.deserialize_map(Map(PhantomData))
    }
}

/// Fewer opening brackets than this cannot nest past serde_json's recursion limit (128), which
/// the full parse enforces and the skipped members (`IgnoredAny`) do not.
const MAX_BRACKETS: usize = 120;

/// Whether a member is there, whatever its value (`null` included, as `contains_key` says).
#[derive(Default)]
struct Present(bool);

impl<'de> Deserialize<'de> for Present {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        IgnoredAny::deserialize(d).map(|_| Self(true))
    }
}

impl Claude {
    /// `event` for a line read lean; `false`, with nothing changed, when it must be parsed.
    pub(super) fn lean(&mut self, line: u64, raw: &[u8]) -> bool {
        if memchr::memchr2_iter(b'{', b'[', raw)
            .nth(MAX_BRACKETS)
            .is_some()
        {
            return false;
        }
        let Ok(Object(l)) = serde_json::from_slice::<Object<Line<'_>>>(raw) else {
            return false;
        };
        if l.error.0 {
            return false;
        }
        // `note_session`: what `detect` reads on these types, while the dialect is open.
        let mut evidence = self.evidence;
        if evidence.is_none() {
            if l.usage.0 || l.qwen_code_version.0 || l.opencode.0 {
                return false;
            }
            if l.session_id.as_deref().is_some_and(|s| s.starts_with("T-")) {
                evidence = Some(Producer::Amp);
            }
        }
        match (l.ty.as_ref(), l.subtype.as_deref()) {
            ("system", Some("init")) => {
                if let Some(m) = l.model {
                    self.model = Some(m.into_owned());
                }
                self.init_session = l.session_id.map(Cow::into_owned);
                self.output_tool = l.tools.as_ref().is_some_and(super::offers_output_tool);
            }
            ("assistant", _) => {
                let Some(Object(msg)) = l.message else {
                    self.evidence = evidence;
                    return true;
                };
                let blocks: Vec<Block<'_>> = msg
                    .content
                    .unwrap_or_default()
                    .into_iter()
                    .map(|b| b.0)
                    .collect();
                if blocks.iter().any(|b| {
                    b.ty.as_deref() == Some("tool_use")
                        && b.name.as_deref().is_some_and(|n| OUTPUT_TOOLS.contains(&n))
                }) {
                    return false;
                }
                let calls_a_tool = blocks.iter().any(|b| b.ty.as_deref() == Some("tool_use"));
                if self.model.is_none()
                    && let Some(m) = msg.model.filter(|m| m != SYNTHETIC)
                {
                    self.model = Some(m.into_owned());
                }
                // `content_text` over the blocks.
                let mut text: Option<String> = None;
                for b in blocks {
                    if b.ty.as_deref() == Some("text")
                        && let Some(t) = b.text
                    {
                        text.get_or_insert_default().push_str(&t);
                    }
                }
                self.ended_in_text = !calls_a_tool && text.is_some();
                if let Some(t) = text {
                    self.text(line, t);
                }
            }
            ("user", _) => {
                let blocks = l.message.and_then(|m| m.0.content).unwrap_or_default();
                let rejected = |b: &Block<'_>| {
                    b.ty.as_deref() == Some("tool_result") && b.is_error == Some(true)
                };
                // A rejected StructuredOutput call: its words are kept (`Rejections`), which
                // the full parse reads.
                if blocks.iter().any(|Object(b)| {
                    rejected(b)
                        && b.tool_use_id
                            .as_deref()
                            .is_some_and(|id| self.calls.of_output_tool(id))
                }) {
                    return false;
                }
                self.ended_in_text = false;
                // Each rejected tool call (`is_error: true`).
                for Object(b) in blocks {
                    if rejected(&b)
                        && let Some(id) = b.tool_use_id
                    {
                        self.calls.refuse(&id);
                    }
                }
            }
            _ => return false,
        }
        self.evidence = evidence;
        true
    }
}
