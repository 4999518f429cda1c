use std::io::{BufWriter, IsTerminal, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
    let stdout = std::io::stdout();
    let stdout_is_tty = stdout.is_terminal();
    let mut out = BufWriter::new(stdout.lock());
    let mut err = std::io::stderr().lock();
    let mut io = sojx::cmd::Io {
        stdout: &mut out,
        stderr: &mut err,
        stdin_is_tty: std::io::stdin().is_terminal(),
        stdout_is_tty,
        stderr_is_tty: std::io::stderr().is_terminal(),
        env: sojx::cmd::Env::capture(),
    };
    let status = sojx::cmd::run(std::env::args_os(), &mut io);
    // A closed stdout is not an error (`sojx … | head -c0`).
    let _ = out.flush();
    status.into()
}
