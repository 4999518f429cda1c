use std::io::{BufWriter, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<_> = std::env::args_os().collect();
    // `sojx run`'s start of an agent (Linux): this process becomes COMMAND.
    if let Some(status) = sojx::cmd::start_agent(&args) {
        return status.into();
    }
    let mut out = BufWriter::new(std::io::stdout().lock());
    let mut err = std::io::stderr().lock();
    let mut io = sojx::cmd::Io::process(&mut out, &mut err);
    let status = sojx::cmd::run(args, &mut io);
    // A closed stdout is not an error (`sojx … | head -c0`).
    let _ = out.flush();
    status.into()
}
