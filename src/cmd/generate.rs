//! `sojx generate KIND` (hidden): a shell completion script or the man page on stdout (no
//! envelope), generated from the clap definition in [`crate::cli`]. The results are committed
//! under `completions/` and `man/`, and a test regenerates them and fails on drift.

use std::io::{self, Write};

use clap::CommandFactory;
use clap_complete::Shell;
use clap_mangen::Man;
use roff::{Roff, bold, roman};

use super::Io;
use crate::cli::{Cli, GenerateArgs, Generated};
use crate::exit::ExitStatus;

pub(super) fn run(a: &GenerateArgs, io: &mut Io<'_>) -> io::Result<ExitStatus> {
    write(a.what, io.stdout).map(|()| ExitStatus::Success)
}

/// Write one generated file.
fn write(what: Generated, out: &mut dyn Write) -> io::Result<()> {
    let mut cmd = public(&Cli::command());
    let shell = match what {
        Generated::Bash => Shell::Bash,
        Generated::Zsh => Shell::Zsh,
        Generated::Fish => Shell::Fish,
        Generated::Powershell => Shell::PowerShell,
        Generated::Elvish => Shell::Elvish,
        Generated::Man => return man(&cmd, out),
    };
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, "sojx", &mut buf);
    out.write_all(&buf)
}

/// The command without its hidden subcommands (this one), for completions and the man page.
fn public(full: &clap::Command) -> clap::Command {
    let subs: Vec<clap::Command> = full
        .get_subcommands()
        .filter(|c| !c.is_hide_set())
        .map(|c| {
            // Add the subcommand's arguments (`cli::Lazy`); its own subcommands (`producers
            // check`) are named from the root's, as the generators look them up.
            let mut c = c.clone().bin_name(format!("sojx {}", c.get_name()));
            c.build();
            c
        })
        .collect();
    let mut cmd = clap::Command::new("sojx")
        .version(env!("CARGO_PKG_VERSION"))
        .subcommand_required(true)
        .subcommands(subs);
    if let Some(a) = full.get_about() {
        cmd = cmd.about(a.clone());
    }
    if let Some(a) = full.get_after_help() {
        cmd = cmd.after_help(a.clone());
    }
    cmd
}

const EXIT_STATUS: &[(&str, &str)] = &[
    (
        "0",
        "Success: every input yielded structured output (valid against the schema, when one is \
         given). A standard output closed early (sojx ... | head -c0) changes no status: every \
         input is still read, and the status is the one computed.",
    ),
    (
        "1",
        "No valid answer, the agent's side: an input held no structured output that passed \
         (empty_input, parse, truncated, agent_error, not_found, json_invalid, \
         validation_failed, assertion_failed). For lint and compile the schema is the input: \
         what they find in it (schema_invalid) exits 1.",
    ),
    ("2", "Timeout: --timeout passed before an input ended."),
    (
        "3",
        "sojx could not do what it was asked, the caller's side: usage, schema_invalid, \
         filesystem, io, internal, and for run spawn (COMMAND could not be started). Fix the command or its files; re-running the agent will not \
         help. A failure to write standard output is reported on standard error as io. With \
         several inputs the status is the highest of 3, 2, 1 and 0.",
    ),
    (
        "128+N",
        "Interrupted by signal N. sojx run catches SIGINT (130), SIGTERM (143), SIGHUP (129) and \
         SIGQUIT (131), forwards it to the agent's process group, stops the group (SIGKILL after \
         --kill-after) and prints an envelope of kind interrupted; SIGUSR1, SIGUSR2, SIGALRM, \
         SIGVTALRM, SIGPROF and SIGXCPU too, the group getting SIGTERM. The other commands do not catch signals: \
         they end at once, as shells report it (130 for Ctrl-C); bytes read so far are already \
         in the --tee file.",
    ),
];

const ENVIRONMENT: &[(&str, &str)] = &[
    (
        "NO_COLOR",
        "When set and not empty, no colors (unless --color always).",
    ),
    (
        "CLICOLOR_FORCE, FORCE_COLOR",
        "CLICOLOR_FORCE set and not 0, or FORCE_COLOR set and not empty: colors even when the \
         stream is not a terminal (unless --color never or NO_COLOR).",
    ),
    (
        "TERM",
        "dumb: no colors in auto mode. Otherwise colors are used when the stream (standard output \
         for --output-format text, standard error for messages and --activity) is a terminal. \
         JSON on standard output is never colored.",
    ),
    (
        "GITHUB_STEP_SUMMARY",
        "With --output-format github, the file (set by the GitHub Actions runner) that a Markdown \
         table of the inputs and their outcomes is appended to, once per run.",
    ),
];

fn man(cmd: &clap::Command, out: &mut dyn Write) -> io::Result<()> {
    let man = Man::new(cmd.clone());
    man.render_title(out)?;
    man.render_name_section(out)?;
    man.render_synopsis_section(out)?;
    man.render_description_section(out)?;
    let visible: Vec<&clap::Command> = cmd.get_subcommands().filter(|c| !c.is_hide_set()).collect();
    let mut r = Roff::new();
    r.control("SH", ["COMMANDS"]);
    for sub in &visible {
        r.control("TP", [])
            .text([bold(format!("sojx {}", sub.get_name()))])
            .text([roman(
                sub.get_about().map(ToString::to_string).unwrap_or_default(),
            )]);
    }
    r.to_writer(out)?;
    for sub in &visible {
        let name = sub.get_name();
        let man = Man::new((*sub).clone().bin_name(format!("sojx {name}")));
        let mut buf = Vec::new();
        man.render_synopsis_section(&mut buf)?;
        man.render_options_section(&mut buf)?;
        let text = String::from_utf8_lossy(&buf)
            .replace(".SH SYNOPSIS\n", "")
            .replace(".SH OPTIONS\n", "");
        let mut r = Roff::new();
        r.control("SH", [format!("SOJX {}", name.to_uppercase()).as_str()]);
        if let Some(about) = sub.get_about() {
            r.text([roman(about.to_string())]);
        }
        r.to_writer(out)?;
        out.write_all(text.as_bytes())?;
    }
    let mut r = Roff::new();
    r.control("SH", ["EXIT STATUS"]);
    for (k, v) in EXIT_STATUS {
        r.control("TP", []).text([bold(*k)]).text([roman(*v)]);
    }
    r.control("SH", ["ENVIRONMENT"]);
    for (k, v) in ENVIRONMENT {
        r.control("TP", []).text([bold(*k)]).text([roman(*v)]);
    }
    r.control("SH", ["EXAMPLES"]);
    for sub in &visible {
        let Some(help) = sub.get_after_help() else {
            continue;
        };
        let help = help.to_string();
        let body = help.strip_prefix("Examples:\n").unwrap_or(&help);
        r.control("SS", [format!("sojx {}", sub.get_name()).as_str()]);
        r.control("nf", []);
        for line in body.lines() {
            r.text([roman(line.strip_prefix("  ").unwrap_or(line))]);
        }
        r.control("fi", []);
    }
    r.control("SH", ["SEE ALSO"]);
    r.text([roman(
        "The envelope's JSON Schema: schemas/envelope.schema.json in the sojx sources. \
         jq(1) reads the envelopes.",
    )]);
    r.to_writer(out)?;
    man.render_version_section(out)
}
