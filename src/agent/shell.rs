//! Arguments as a POSIX shell reads them: how sojx writes a command line for people to read
//! (and paste) in its hints and messages.

/// One argument as a POSIX shell reads it back: bare when it is safe, else in single quotes.
pub(crate) fn quote(arg: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "_@%+=:,./-".contains(c);
    if !arg.is_empty() && arg.chars().all(safe) {
        arg.to_owned()
    } else {
        format!("'{}'", arg.replace('\'', r"'\''"))
    }
}
