//! Producer identity: one table, from which the enum, its id on the wire and on the command
//! line (`--from`), its help text and its family are generated. Adding a producer is one row
//! here (plus, for a new family, its extractor's file and a [`Family`] variant).

use serde::{Serialize, Serializer};

use super::file::Spec;

/// The producers' table: doc (the `--from` help), variant, id (contract §3), family.
macro_rules! producers {
    ($( #[doc = $doc:literal] $variant:ident = $id:literal, $family:ident; )*) => {
        /// Who wrote an input (contract §3): a producer built into sojx, or one a user's
        /// producer file describes.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Producer {
            $( #[doc = $doc] $variant, )*
            /// A producer a user's producer file describes (`--producer-file`, the config
            /// folder): loaded once, for the whole process.
            File(&'static Spec),
        }

        impl Producer {
            /// Every built-in producer, in the table's order.
            pub const ALL: &'static [Self] = &[$(Self::$variant),*];

            /// The id on the wire and on the command line (`claude-code`).
            pub fn id(self) -> &'static str {
                match self {
                    $( Self::$variant => $id, )*
                    Self::File(s) => &s.id,
                }
            }

            /// The row's doc: `--from`'s help for this producer (a file's `about`, else its
            /// name).
            pub fn doc(self) -> &'static str {
                match self {
                    $( Self::$variant => $doc, )*
                    Self::File(s) => s.about.as_deref().unwrap_or(&s.name),
                }
            }

            /// The family whose extractor reads this producer's output.
            pub fn family(self) -> Family {
                match self {
                    $( Self::$variant => Family::$family, )*
                    Self::File(_) => Family::Described,
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
    /// The Agent Client Protocol, as `sojx run --acp --tee FILE` records it.
    Acp = "acp", Acp;
    /// GitHub Copilot CLI `copilot -p P --output-format json`.
    CopilotCli = "copilot-cli", Described;
    /// pi `pi -p --mode json`.
    Pi = "pi", Described;
    /// xAI Grok CLI `--output-format json|streaming-json`.
    GrokCli = "grok-cli", Described;
    /// goose `goose run --output-format json|stream-json`.
    Goose = "goose", Described;
    /// Kimi Code `kimi -p --output-format stream-json`.
    KimiCode = "kimi-code", Described;
    /// Google Antigravity `agy -p --output-format json|stream-json`.
    Antigravity = "antigravity", Described;
    /// IBM Bob Shell `bob run --format json`.
    BobShell = "bob-shell", Described;
    /// Cline `cline --json` (2.x) and `cline task --json` (1.x).
    Cline = "cline", Described;
    /// Continue `cn -p --format json`.
    Continue = "continue", Described;
    /// Factory Droid `droid exec -o json|stream-json`.
    Droid = "droid", Described;
    /// Kilo `kilo run --format json` (opencode's events).
    Kilo = "kilo", Described;
    /// CodeBuddy Code `codebuddy -p --output-format stream-json` (Claude Code's shapes).
    Codebuddy = "codebuddy", Described;
    /// Auggie `auggie --print --output-format json` (Cursor's result).
    Auggie = "auggie", Described;
    /// OpenHands CLI `openhands --headless --json -t TASK` (SDK events by `kind`).
    Openhands = "openhands", Described;
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
    /// ACP traffic recorded by `sojx run --acp`.
    Acp,
    /// A producer described by a producer file, built in or loaded ([`super::file`]).
    Described,
    Json,
    Text,
}

/// On the wire, the id.
impl Producer {
    /// Whether input detected as `detected` can be read as this (forced) producer: a file
    /// producer's by the producer it `reads_like`; the Claude-style producers share one event
    /// vocabulary, and an OpenAI HTTP error body is the same for Chat Completions and Responses
    /// (detected as `openai-chat`), so either reads it when it recognized something.
    pub fn same_family(self, detected: Self, recognized: u64) -> bool {
        // A look-alike reads as the producer it resembles.
        let (self_, detected) = (self.reads_as(), detected.reads_as());
        let claude_like = |p: Self| p.family() == Family::Claude;
        let openai = |p| matches!(p, Self::OpenaiChat | Self::OpenaiResponses);
        // A file producer that shares a producer's shapes (Droid's `-o json` is Claude Code's
        // result) is read by that producer when it is named.
        let shares = super::file::spec_of(detected)
            .and_then(|s| s.reads_like.as_deref())
            .is_some_and(|id| id == self_.id());
        self_ == detected
            || shares
            || (claude_like(self_) && claude_like(detected))
            || (openai(self_) && openai(detected) && recognized > 0)
    }

    /// The producer whose reader reads this one: a look-alike's (a producer file without events
    /// that names one of sojx's own producers in `reads_like`), else itself.
    #[must_use]
    pub fn reads_as(self) -> Self {
        super::file::spec_of(self)
            .filter(|s| s.events.is_empty())
            .and_then(|s| s.reads_like.as_deref())
            .and_then(Self::read_in_code)
            .unwrap_or(self)
    }

    /// The producer of id `id` that sojx reads in code with an event reader of its own (not a
    /// file's, not `json` or `text`): one a producer file's `reads_like` may name.
    pub fn read_in_code(id: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|p| {
            p.id() == id && !matches!(p.family(), Family::Described | Family::Json | Family::Text)
        })
    }
}

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
