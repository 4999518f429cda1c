//! What clap says before a command runs: `--help` and `--version`, and usage errors (clap's
//! message on stderr, a `usage` envelope on stdout).

use std::ffi::OsString;
use std::io::Write;

use super::{Io, output};
use crate::cli;
use crate::color;
use crate::color::ColorWhen;
use crate::envelope::{self, Parts};
use crate::error::{ErrorKind, Failure, Operation};
use crate::exit::ExitStatus;
use crate::names::Command;
use crate::render::OutputFormat;
use crate::render::{self, Reader, Style};

/// `--help` / `--version` print and exit 0; usage errors print clap's message on stderr and a
/// `usage` envelope on stdout, exit 1.
pub(super) fn clap_error(e: clap::Error, args: &[OsString], io: &mut Io<'_>) -> ExitStatus {
    use clap::error::ErrorKind as K;
    if matches!(
        e.kind(),
        K::DisplayHelp | K::DisplayVersion | K::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        return display(&e, args, io);
    }
    usage(e, args, io)
}

/// `--help` and `--version` on stdout (exit 0); the help that a command without its subcommand
/// or arguments gets, on stderr (exit as a usage error).
fn display(e: &clap::Error, args: &[OsString], io: &mut Io<'_>) -> ExitStatus {
    use clap::error::ErrorKind as K;
    let to_stderr = e.kind() == K::DisplayHelpOnMissingArgumentOrSubcommand;
    let tty = if to_stderr {
        io.stderr_is_tty
    } else {
        io.stdout_is_tty
    };
    let text = if color::resolve(color_flag(args), &io.env.color, tty) {
        e.render().ansi().to_string()
    } else {
        e.render().to_string()
    };
    let out: &mut dyn Write = if to_stderr { io.stderr } else { io.stdout };
    // `--help > /dev/full` must not claim success.
    if let Err(err) = write!(out, "{text}").and_then(|()| out.flush()) {
        let _ = writeln!(io.stderr, "sojx: io: writing the output failed: {err}");
        return ExitStatus::of(Command::Sojx, ErrorKind::Io);
    }
    if to_stderr {
        ExitStatus::of(Command::Sojx, ErrorKind::Usage)
    } else {
        ExitStatus::Success
    }
}

/// A usage error: clap's message on stderr (when no person reads the envelope on a terminal
/// that shows both), and a `usage` envelope on stdout (none with `-r` or `-q`).
fn usage(mut e: clap::Error, args: &[OsString], io: &mut Io<'_>) -> ExitStatus {
    let command = args
        .iter()
        .skip(1)
        .filter_map(|a| a.to_str())
        .find_map(Command::subcommand)
        .unwrap_or(Command::Sojx);
    if let Some(tip) = dash_dash_tip(&e, command) {
        e.insert(
            clap::error::ContextKind::Suggested,
            clap::error::ContextValue::StyledStrs(vec![tip.into()]),
        );
    }
    let format = output_format(args);
    let pretty = asks(args, "--pretty");
    let silent = asks_silence(args);
    let reader = output::reader(io, format.is_some() || pretty);
    // On a terminal that shows both, the pretty envelope says it: clap's text would repeat it.
    if silent || reader == Reader::Program {
        if color::resolve(color_flag(args), &io.env.color, io.stderr_is_tty) {
            let _ = write!(io.stderr, "{}", e.render().ansi());
        } else {
            let _ = write!(io.stderr, "{}", e.render());
        }
    }
    let f = failure(&e.render().to_string(), command);
    let env = envelope::failure(command, "", f, Parts::default());
    let status = env.exit_status();
    // `-r` prints data or nothing, `-q` nothing: never an envelope a pipe would take for the
    // answer (`sojx extract -r --shema x.json run | jq .verdict` must not print `null`).
    // The annotation a workflow asked for goes to stderr instead (see `output::annotate_aside`).
    if silent {
        if format == Some("github") {
            let _ = crate::github::commands(io.stderr, &env);
        }
        return status;
    }
    let _ = render::render(
        io.stdout,
        &env,
        Style {
            format: if format == Some("github") {
                OutputFormat::Github
            } else {
                OutputFormat::Json
            },
            reader,
            pretty: pretty || io.stdout_is_tty,
            raw: false,
            quiet: false,
            terminal: io.stdout_is_tty,
            color: false,
            stderr_color: false,
        },
    );
    status
}

/// The `usage` failure of clap's `rendered` message for `command`: its sentence, and its tips
/// and where to read more as the hint.
fn failure(rendered: &str, command: Command) -> Failure {
    let (message, tips) = said(rendered);
    let help = format!(
        "run `sojx {} --help`",
        if command == Command::Sojx {
            ""
        } else {
            command.as_str()
        }
    )
    .replace("  ", " ");
    let hint = tips
        .into_iter()
        .chain([help])
        .collect::<Vec<_>>()
        .join("; ");
    Failure::new(ErrorKind::Usage, Operation::ParseArguments, message)
        .retryable(false)
        .hint(hint)
}

/// clap's message, up to its usage block, as the envelope's one sentence and its tips (`tip: a
/// similar argument exists: '--schema'`), each on one line.
fn said(rendered: &str) -> (String, Vec<String>) {
    let body = rendered.split("\nUsage:").next().unwrap_or(rendered);
    let one_line = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut message = Vec::new();
    let mut tips = Vec::new();
    for line in body.lines() {
        match line.trim_start().strip_prefix("tip:") {
            Some(tip) => tips.push(one_line(tip)),
            // A tip's continuation (clap wraps long ones).
            None if !tips.is_empty() && line.starts_with("  ") => {
                let last = tips.len() - 1;
                tips[last] = one_line(&format!("{} {line}", tips[last]));
            }
            None => message.push(line),
        }
    }
    let message = one_line(&message.join(" "));
    let message = message.trim_start_matches("error: ").to_owned();
    (message, tips)
}

/// `sojx run claude -p …`: the agent's command without the `--` before it is an argument clap
/// does not know; the tip names the fix. `None` for any other error.
fn dash_dash_tip(e: &clap::Error, command: Command) -> Option<String> {
    use clap::error::{ContextKind, ContextValue};
    if command != Command::Run || e.kind() != clap::error::ErrorKind::UnknownArgument {
        return None;
    }
    let Some(ContextValue::String(arg)) = e.get(ContextKind::InvalidArg) else {
        return None;
    };
    (!arg.starts_with('-')).then(|| {
        format!("the agent's command goes after `--`: `sojx run [OPTIONS] -- {arg} [ARGS]...`")
    })
}

/// `--output-format` as given (two tokens or with `=`), read token by token before `--`:
/// a usage error in a GitHub job is an annotation too, and any format asked for prints the
/// envelope on a terminal.
fn output_format(args: &[OsString]) -> Option<&str> {
    let args: Vec<&str> = options(args).collect();
    args.windows(2)
        .rev()
        .find(|w| w[0] == "--output-format")
        .map(|w| w[1])
        .or_else(|| {
            args.iter()
                .rev()
                .find_map(|a| a.strip_prefix("--output-format="))
        })
}

/// Whether the long flag `flag` is given before `--`.
fn asks(args: &[OsString], flag: &str) -> bool {
    options(args).any(|a| a == flag)
}

/// The arguments after the program's name and before `--`, as text.
fn options(args: &[OsString]) -> impl Iterator<Item = &str> {
    args.iter()
        .skip(1)
        .filter_map(|a| a.to_str())
        .take_while(|a| *a != "--")
}

/// Whether the arguments ask for `-r/--raw` or `-q/--quiet`, read token by token (clap could
/// not parse them): the long flag, or the short one alone or in a cluster of short flags
/// (`-rq`), before `--`. A value that looks like one errs on the side of printing nothing; the
/// exit status and stderr still say what went wrong.
fn asks_silence(args: &[OsString]) -> bool {
    options(args).any(|a| {
        a == "--raw"
            || a == "--quiet"
            || a.strip_prefix('-').is_some_and(|c| {
                !c.starts_with('-')
                    && c.chars().all(|c| c.is_ascii_alphabetic())
                    && c.contains(['r', 'q'])
            })
    })
}

/// `--color` as given, for clap's own output (help, usage errors), when parsing failed: clap
/// parses the arguments again, leniently (what it cannot parse is ignored, the last `--color`
/// wins), without the help and version flags that stopped it. Clap stops at an argument it does
/// not know, so a `--color` after one is not seen.
fn color_flag(args: &[OsString]) -> ColorWhen {
    use clap::CommandFactory;
    let stops = ["-h", "--help", "-V", "--version"];
    let args = args
        .iter()
        .filter(|a| a.to_str().is_none_or(|a| !stops.contains(&a)));
    cli::Cli::command()
        .ignore_errors(true)
        .disable_help_subcommand(true)
        .mut_subcommands(|s| s.args_override_self(true))
        .try_get_matches_from(args)
        .ok()
        .and_then(|m| {
            let (_, sub) = m.subcommand()?;
            sub.try_get_one::<ColorWhen>("color").ok()?.copied()
        })
        .unwrap_or(ColorWhen::Auto)
}
