//! Producer identity: one table, from which the enum, its id on the wire and on the command
//! line (`--from`), its help text and its family are generated. Adding a producer is one row
//! here (plus, for a new family, its extractor's file and a [`Family`] variant).

use serde::{Serialize, Serializer};

/// The producers' table: doc (the `--from` help), variant, id (contract §3), family.
macro_rules! producers {
    ($( #[doc = $doc:literal] $variant:ident = $id:literal, $family:ident; )*) => {
        /// Who wrote an input (contract §3).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Producer {
            $( #[doc = $doc] $variant, )*
        }

        impl Producer {
            /// Every producer, in the table's order.
            pub const ALL: &'static [Self] = &[$(Self::$variant),*];

            /// The id on the wire and on the command line (`claude-code`).
            pub fn id(self) -> &'static str {
                match self {
                    $( Self::$variant => $id, )*
                }
            }

            /// The row's doc: `--from`'s help for this producer.
            pub fn doc(self) -> &'static str {
                match self {
                    $( Self::$variant => $doc, )*
                }
            }

            /// The family whose extractor reads this producer's output.
            pub fn family(self) -> Family {
                match self {
                    $( Self::$variant => Family::$family, )*
                }
            }
        }
    };
}

producers! {
    /// `claude -p --output-format stream-json|json`, Claude Agent SDK messages.
    ClaudeCode = "claude-code", Claude;
    /// `codex exec --json` events.
    Codex = "codex", Codex;
    /// `gemini -p --output-format json|stream-json`.
    GeminiCli = "gemini-cli", Gemini;
    /// `qwen -p --output-format json|stream-json`.
    QwenCode = "qwen-code", Claude;
    /// `amp -x --stream-json`.
    Amp = "amp", Claude;
    /// `cursor-agent -p --output-format json|stream-json`.
    Cursor = "cursor", Claude;
    /// `opencode run --format json`.
    Opencode = "opencode", Opencode;
    /// OpenAI Chat Completions body or SSE stream.
    OpenaiChat = "openai-chat", OpenaiChat;
    /// OpenAI Responses body or SSE stream.
    OpenaiResponses = "openai-responses", OpenaiResponses;
    /// Anthropic Messages body or SSE stream (or bare event lines).
    Anthropic = "anthropic", Anthropic;
    /// Ollama `/api/chat` or `/api/generate`, streaming or not.
    Ollama = "ollama", Ollama;
    /// `rkat run --output json` (a RunResult).
    Meerkat = "meerkat", Meerkat;
    /// The whole input is one bare JSON value.
    Json = "json", Json;
    /// Plain model text with JSON somewhere in it.
    Text = "text", Text;
}

/// Producers whose output one extractor reads: the Claude Code family shares one event
/// vocabulary (Claude Code, Qwen Code, Amp, Cursor); `json` and `text` read the whole input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    Claude,
    Codex,
    Gemini,
    Opencode,
    OpenaiChat,
    OpenaiResponses,
    Anthropic,
    Ollama,
    Meerkat,
    Json,
    Text,
}

/// On the wire, the id.
impl Serialize for Producer {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.id())
    }
}

#[cfg(test)]
mod tests {
    use super::{Family, Producer};

    #[test]
    fn ids_are_the_wire_names() {
        for &p in Producer::ALL {
            assert_eq!(serde_json::to_value(p).unwrap(), p.id());
        }
        assert_eq!(Producer::Cursor.family(), Family::Claude);
        assert_eq!(Producer::OpenaiChat.family(), Family::OpenaiChat);
    }
}
