//! Color is decided once, from the flag, the environment and the terminal, with this
//! precedence: `--color always|never`, then `NO_COLOR` (non-empty: never), then
//! `CLICOLOR_FORCE` (set and not `0`) or `FORCE_COLOR` (non-empty: always), then auto: the
//! stream is a terminal and `TERM` is not `dumb`.

/// When to color (`--color`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ColorWhen {
    /// When the stream is a terminal and the environment does not say otherwise.
    Auto,
    Always,
    Never,
}

/// The environment variables that decide color, read once by the command layer
/// ([`crate::cmd::Env::capture`]).
#[derive(Debug, Clone, Default)]
pub struct EnvSnapshot {
    pub no_color: Option<String>,
    pub clicolor_force: Option<String>,
    pub force_color: Option<String>,
    pub term: Option<String>,
}

/// Whether to color a stream.
pub(crate) fn resolve(flag: ColorWhen, env: &EnvSnapshot, is_tty: bool) -> bool {
    match flag {
        ColorWhen::Always => return true,
        ColorWhen::Never => return false,
        ColorWhen::Auto => {}
    }
    if env.no_color.as_deref().is_some_and(|v| !v.is_empty()) {
        return false;
    }
    if env.clicolor_force.as_deref().is_some_and(|v| v != "0")
        || env.force_color.as_deref().is_some_and(|v| !v.is_empty())
    {
        return true;
    }
    is_tty && env.term.as_deref() != Some("dumb")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(
        no: Option<&str>,
        cli: Option<&str>,
        force: Option<&str>,
        term: Option<&str>,
    ) -> EnvSnapshot {
        EnvSnapshot {
            no_color: no.map(Into::into),
            clicolor_force: cli.map(Into::into),
            force_color: force.map(Into::into),
            term: term.map(Into::into),
        }
    }

    #[test]
    fn precedence_table() {
        use ColorWhen::{Always, Auto, Never};
        let rows = [
            (
                Always,
                env(Some("1"), None, None, Some("dumb")),
                false,
                true,
            ),
            (Never, env(None, Some("1"), Some("1"), None), true, false),
            (
                Auto,
                env(Some("1"), Some("1"), Some("1"), None),
                true,
                false,
            ),
            (Auto, env(Some(""), None, None, None), true, true),
            (Auto, env(None, Some("1"), None, None), false, true),
            (Auto, env(None, Some("0"), None, None), false, false),
            (Auto, env(None, None, Some("1"), None), false, true),
            (Auto, env(None, None, Some(""), None), false, false),
            (Auto, env(None, None, None, Some("dumb")), true, false),
            (Auto, env(None, None, None, Some("xterm")), true, true),
            (Auto, env(None, None, None, None), false, false),
            // Forcing beats TERM=dumb; NO_COLOR beats a terminal; `always` needs no terminal.
            (Auto, env(None, None, Some("1"), Some("dumb")), false, true),
            (Auto, env(None, Some("1"), None, Some("dumb")), true, true),
            (Auto, env(Some("1"), None, None, Some("xterm")), true, false),
            (Always, env(None, None, None, None), false, true),
            (Never, env(None, None, None, Some("xterm")), true, false),
        ];
        for (i, (flag, e, tty, want)) in rows.into_iter().enumerate() {
            assert_eq!(resolve(flag, &e, tty), want, "row {i}");
        }
    }
}
