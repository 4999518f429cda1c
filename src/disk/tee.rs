//! Opening `--tee FILE` and `--envelope-file FILE` (files sojx writes while it reads others):
//! refused when sojx reads them, appended to when they are not regular files or are sojx's own
//! output, else created. The engine writes through the [`Tee`] made here.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use super::{id_of_path, id_of_std};
use crate::error::{ErrorKind, Failure, Operation};
use crate::input::{Tee, io_reason};

/// `--tee FILE` for a run over `inputs` (none: standard input) that also reads the files of
/// `also_read` (`("--schema", path)`, …): none without the flag. Files are compared by
/// device and inode, not by name: FILE is refused (`usage`) when it is an input, standard
/// input being read, or a file sojx reads, which creating it would truncate before it is
/// read. An existing FILE that is not a regular file (`/dev/null`, a terminal, a FIFO), or
/// that is sojx's own standard output or error (`--tee /dev/stderr` with `2>>log`), is
/// opened for appending, never truncated.
pub(crate) fn for_inputs(
    path: Option<&Path>,
    inputs: &[PathBuf],
    also_read: &[(&str, PathBuf)],
) -> Result<Option<Tee>, Failure> {
    beside("--tee", "tee to another file", path, inputs, also_read)
}

/// The file `flag` names, for a run over `inputs` that also reads `also_read`, by the
/// rules of [`for_inputs`]; `hint` says what to do when it is refused.
pub(crate) fn beside(
    flag: &'static str,
    hint: &'static str,
    path: Option<&Path>,
    inputs: &[PathBuf],
    also_read: &[(&str, PathBuf)],
) -> Result<Option<Tee>, Failure> {
    let Some(path) = path else {
        return Ok(None);
    };
    let Some(target) = id_of_path(path) else {
        return create(flag, path).map(Some);
    };
    let stdin_read = inputs.is_empty() || inputs.iter().any(|i| i.as_os_str() == "-");
    let clash = if stdin_read && id_of_std(0).as_ref() == Some(&target) {
        Some("standard input, which sojx reads".to_owned())
    } else if inputs
        .iter()
        .any(|i| i.as_os_str() != "-" && id_of_path(i).as_ref() == Some(&target))
    {
        Some("also an input".to_owned())
    } else {
        also_read
            .iter()
            .find(|(_, p)| id_of_path(p).as_ref() == Some(&target))
            .map(|(flag, _)| format!("the {flag} file"))
    };
    if let Some(what) = clash {
        return Err(Failure::new(
            ErrorKind::Usage,
            Operation::ParseArguments,
            format!(
                "{flag} {} is {what}; it would be truncated before it is read",
                path.display()
            ),
        )
        .target(path.to_string_lossy().into_owned())
        .retryable(false)
        .hint(hint));
    }
    let regular = std::fs::metadata(path).is_ok_and(|m| m.is_file());
    let own_output = [1, 2]
        .iter()
        .any(|&s| id_of_std(s).as_ref() == Some(&target));
    if regular && !own_output {
        return create(flag, path).map(Some);
    }
    match std::fs::OpenOptions::new().append(true).open(path) {
        Ok(file) => Ok(Some(Tee::new(flag, path.to_path_buf(), Box::new(file)))),
        Err(e) => Err(cannot_create(flag, path, &e)),
    }
}

/// Create (or truncate) FILE, named by `flag`; failure is `filesystem`.
pub(crate) fn create(flag: &'static str, path: &Path) -> Result<Tee, Failure> {
    match File::create(path) {
        Ok(file) => Ok(Tee::new(flag, path.to_path_buf(), Box::new(file))),
        Err(e) => Err(cannot_create(flag, path, &e)),
    }
}

fn cannot_create(flag: &str, path: &Path, e: &io::Error) -> Failure {
    Failure::new(
        ErrorKind::Filesystem,
        Operation::Write,
        format!("cannot create {flag} {}: {}", path.display(), io_reason(e)),
    )
    .target(path.to_string_lossy().into_owned())
    .retryable(false)
}
