//! Input sources and the line splitter.
//!
//! Input is read in chunks and split into lines here, so memory is bounded by the longest line
//! (plus one chunk), whatever the input size, and the result does not depend on how the bytes
//! were split across reads.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use crate::error::{ErrorKind, Failure};

/// Size of one read from the input. Small enough that the buffers in flight between the reading
/// thread and the pipeline stay in the L2 cache: on the 256 MB stream of BENCHMARKS.md, 64 KiB
/// reads took a third of the kernel time of 256 KiB reads (the copy lands in cached memory)
/// and 17-26% off the wall time; 32 KiB was no faster.
pub const CHUNK: usize = 64 * 1024;

/// A file's identity: its device and inode (on unix; elsewhere its canonical path). Two names
/// of one file (a hard link, a symlink, `/dev/stderr`) have one identity; paths alone cannot
/// tell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileId {
    #[cfg(unix)]
    dev_ino: (u64, u64),
    #[cfg(not(unix))]
    path: PathBuf,
}

impl FileId {
    #[cfg(unix)]
    fn of_metadata(m: &std::fs::Metadata) -> Self {
        use std::os::unix::fs::MetadataExt;
        Self {
            dev_ino: (m.dev(), m.ino()),
        }
    }

    /// The file at `path` (symlinks followed), when it exists.
    pub fn of_path(path: &Path) -> Option<Self> {
        #[cfg(unix)]
        {
            Some(Self::of_metadata(&std::fs::metadata(path).ok()?))
        }
        #[cfg(not(unix))]
        {
            Some(Self {
                path: path.canonicalize().ok()?,
            })
        }
    }

    /// The file behind one of the process's standard streams (0 stdin, 1 stdout, 2 stderr).
    pub fn of_std(stream: u8) -> Option<Self> {
        #[cfg(unix)]
        {
            use std::os::fd::AsFd;
            let fd = match stream {
                0 => io::stdin().as_fd().try_clone_to_owned(),
                1 => io::stdout().as_fd().try_clone_to_owned(),
                _ => io::stderr().as_fd().try_clone_to_owned(),
            }
            .ok()?;
            Some(Self::of_metadata(&File::from(fd).metadata().ok()?))
        }
        #[cfg(not(unix))]
        {
            let _ = stream;
            None
        }
    }
}

/// Where one input comes from.
#[derive(Debug, Clone)]
pub enum Source {
    Stdin,
    Path(PathBuf),
}

impl Source {
    pub fn from_arg(path: &Path) -> Self {
        if path.as_os_str() == "-" {
            Self::Stdin
        } else {
            Self::Path(path.to_path_buf())
        }
    }

    /// The name used in envelopes: the file name as given, or `<stdin>`.
    pub fn name(&self) -> String {
        match self {
            Self::Stdin => "<stdin>".to_owned(),
            Self::Path(p) => p.to_string_lossy().into_owned(),
        }
    }

    /// The size of a regular file (also one redirected to standard input); `None` for pipes,
    /// terminals and anything whose size is not known in advance.
    pub fn size(&self) -> Option<u64> {
        let meta = match self {
            Self::Stdin => stdin_metadata()?,
            Self::Path(p) => std::fs::metadata(p).ok()?,
        };
        meta.is_file().then_some(meta.len())
    }

    /// Open the source for reading; a missing or unreadable file is a `filesystem` failure.
    pub fn open(&self) -> Result<Box<dyn Read + Send>, Failure> {
        self.open_within(None)
    }

    /// [`Source::open`], for a read bounded by `--timeout`: a FIFO or device is opened by its
    /// first read instead of here, on the thread that reads it, because opening a FIFO waits
    /// for a writer, which must not outlast the deadline.
    pub fn open_within(
        &self,
        timeout: Option<std::time::Duration>,
    ) -> Result<Box<dyn Read + Send>, Failure> {
        if let (Some(_), Self::Path(p)) = (timeout, self)
            && std::fs::metadata(p).is_ok_and(|m| !m.is_file() && !m.is_dir())
        {
            return Ok(Box::new(OpenOnRead {
                path: p.clone(),
                file: None,
            }));
        }
        match self {
            Self::Stdin => Ok(Box::new(io::stdin())),
            Self::Path(p) => match File::open(p) {
                Ok(f) if f.metadata().is_ok_and(|m| m.is_dir()) => Err(Failure::new(
                    ErrorKind::Filesystem,
                    "read",
                    format!("{} is a directory, not a file", p.display()),
                )
                .target(self.name())),
                Ok(f) => Ok(Box::new(f)),
                Err(e) => Err(Failure::new(
                    ErrorKind::Filesystem,
                    "read",
                    format!("cannot open {}: {}", p.display(), io_reason(&e)),
                )
                .target(self.name())
                .hint("check the path; `-` reads standard input")),
            },
        }
    }
}

/// A file opened by its first read (see [`Source::open_within`]).
struct OpenOnRead {
    path: PathBuf,
    file: Option<File>,
}

impl Read for OpenOnRead {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.file.is_none() {
            self.file = Some(File::open(&self.path)?);
        }
        self.file.as_mut().map_or(Ok(0), |f| f.read(buf))
    }
}

/// Largest file sojx reads whole besides its inputs: a schema, a file a `$ref` or `--resource`
/// points to, the `--handoff` file. A path like `/dev/zero` or an endless pipe must not be read
/// into memory without bound.
pub const MAX_FILE_BYTES: u64 = 64 << 20;

/// Read all of `r`, refusing more than [`MAX_FILE_BYTES`].
pub fn read_capped(r: impl Read) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    r.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(io::Error::other(format!(
            "larger than {} MiB",
            MAX_FILE_BYTES >> 20
        )));
    }
    Ok(bytes)
}

/// Read a whole file that must be a regular file (after symlinks), at most [`MAX_FILE_BYTES`]:
/// a FIFO, a device, a socket or a directory is refused before it is opened, so that a FIFO
/// cannot block and `/dev/zero` is not read. The file opened must be the one checked (same
/// device and inode).
pub fn read_regular(path: &Path) -> io::Result<Vec<u8>> {
    let checked = std::fs::metadata(path)?;
    if !checked.is_file() {
        return Err(io::Error::other(format!(
            "not a regular file ({})",
            file_kind(&checked)
        )));
    }
    let file = File::open(path)?;
    let opened = file.metadata()?;
    if !opened.is_file() || !same_file(&checked, &opened) {
        return Err(io::Error::other(
            "the file changed while it was being opened",
        ));
    }
    read_capped(file)
}

/// What a non-regular file is, in a few words.
fn file_kind(m: &std::fs::Metadata) -> &'static str {
    if m.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = m.file_type();
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    "a special file"
}

/// Whether two metadata describe the same file: same device and inode (a path says nothing).
#[cfg(unix)]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    FileId::of_metadata(a) == FileId::of_metadata(b)
}

#[cfg(not(unix))]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    a.len() == b.len() && a.modified().ok() == b.modified().ok()
}

#[cfg(unix)]
fn stdin_metadata() -> Option<std::fs::Metadata> {
    use std::os::fd::AsFd;
    let fd = io::stdin().as_fd().try_clone_to_owned().ok()?;
    File::from(fd).metadata().ok()
}

#[cfg(not(unix))]
fn stdin_metadata() -> Option<std::fs::Metadata> {
    None
}

/// A short lower-case reason for an I/O error, without the `(os error N)` suffix.
pub fn io_reason(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::NotFound => "no such file".to_owned(),
        io::ErrorKind::PermissionDenied => "permission denied".to_owned(),
        _ => {
            let s = e.to_string();
            match s.find(" (os error") {
                Some(i) => s[..i].to_owned(),
                None => s,
            }
        }
    }
}

/// Splits a byte stream into lines. Lines end at `\n`; a trailing `\r` is removed; the last line
/// may lack its newline; the first line loses its UTF-8 byte order mark, if any. A line longer
/// than `max` bytes (byte order mark included) is reported once and its bytes dropped.
#[derive(Debug)]
pub struct LineSplitter {
    carry: Vec<u8>,
    max: usize,
    line_no: u64,
    overlong: bool,
}

/// What the splitter hands out.
#[derive(Debug, PartialEq, Eq)]
pub enum Piece<'a> {
    Line {
        no: u64,
        bytes: &'a [u8],
    },
    /// A line that went past the limit; its content was not kept.
    TooLong {
        no: u64,
    },
}

impl LineSplitter {
    pub fn new(max: usize) -> Self {
        Self {
            carry: Vec::new(),
            max,
            line_no: 0,
            overlong: false,
        }
    }

    /// Complete lines handed out so far.
    pub fn lines(&self) -> u64 {
        self.line_no
    }

    /// Feed a chunk; `f` is called once per complete line.
    pub fn push(&mut self, chunk: &[u8], f: &mut dyn FnMut(Piece<'_>)) {
        self.push_spans(chunk, &mut |span| f(span.piece()));
    }

    /// [`LineSplitter::push`], handing out a line that began in an earlier chunk as the
    /// splitter's own buffer, which the callee may take instead of copying it.
    pub fn push_spans(&mut self, mut chunk: &[u8], f: &mut dyn FnMut(Span<'_>)) {
        while let Some(i) = memchr(b'\n', chunk) {
            let (head, rest) = (&chunk[..i], &chunk[i + 1..]);
            chunk = rest;
            self.line_no += 1;
            if self.overlong {
                self.overlong = false;
                self.carry.clear();
                f(Span::Piece(Piece::TooLong { no: self.line_no }));
            } else if self.carry.is_empty() {
                if head.len() > self.max {
                    f(Span::Piece(Piece::TooLong { no: self.line_no }));
                } else {
                    f(Span::Piece(Piece::Line {
                        no: self.line_no,
                        bytes: strip_cr(strip_bom(self.line_no, head)),
                    }));
                }
            } else if self.carry.len() + head.len() > self.max {
                self.carry.clear();
                f(Span::Piece(Piece::TooLong { no: self.line_no }));
            } else {
                self.carry.extend_from_slice(head);
                self.hand_out_carry(f);
                self.carry.clear();
            }
        }
        if !chunk.is_empty() && !self.overlong {
            if self.carry.len() + chunk.len() > self.max {
                self.overlong = true;
                self.carry = Vec::new();
            } else {
                self.carry.extend_from_slice(chunk);
            }
        }
    }

    /// Take `buf` as the buffer for lines that span chunks when it is larger than the one in
    /// use (what that one holds is copied over); `buf` gets the other buffer.
    pub fn reuse(&mut self, buf: &mut Vec<u8>) {
        if buf.capacity() > self.carry.capacity() {
            buf.clear();
            buf.extend_from_slice(&self.carry);
            std::mem::swap(&mut self.carry, buf);
        }
    }

    /// End of input: hand out the last line if it had no newline.
    pub fn finish(&mut self, f: &mut dyn FnMut(Piece<'_>)) {
        self.finish_spans(&mut |span| f(span.piece()));
    }

    /// [`LineSplitter::finish`], as [`LineSplitter::push_spans`] hands lines out.
    pub fn finish_spans(&mut self, f: &mut dyn FnMut(Span<'_>)) {
        if self.overlong {
            self.overlong = false;
            self.line_no += 1;
            f(Span::Piece(Piece::TooLong { no: self.line_no }));
        } else if !self.carry.is_empty() {
            self.line_no += 1;
            self.hand_out_carry(f);
            self.carry = Vec::new();
        }
    }

    /// Hand out the line assembled in `carry` (the line numbered `line_no`), its byte order
    /// mark removed when it is the first line.
    fn hand_out_carry(&mut self, f: &mut dyn FnMut(Span<'_>)) {
        if self.line_no == 1 && self.carry.starts_with(BOM) {
            self.carry.drain(..BOM.len());
        }
        f(Span::Carried {
            no: self.line_no,
            line: &mut self.carry,
        });
    }
}

/// The UTF-8 byte order mark. The one place sojx removes it: from the first line of every input,
/// whatever reads it (`extract`, `validate`, `compare`), before any other step sees the line.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// `line` without a byte order mark when it is line 1.
fn strip_bom(no: u64, line: &[u8]) -> &[u8] {
    if no == 1 {
        line.strip_prefix(BOM).unwrap_or(line)
    } else {
        line
    }
}

/// A line as [`LineSplitter::push_spans`] hands it out.
#[derive(Debug)]
pub enum Span<'a> {
    /// A line inside the chunk, or a line past the limit.
    Piece(Piece<'a>),
    /// A line that began in an earlier chunk, in the splitter's buffer (a trailing `\r`
    /// included). Taking the buffer leaves the splitter an empty one.
    Carried { no: u64, line: &'a mut Vec<u8> },
}

impl<'a> Span<'a> {
    /// The line as a [`Piece`].
    pub fn piece(self) -> Piece<'a> {
        match self {
            Self::Piece(p) => p,
            Self::Carried { no, line } => Piece::Line {
                no,
                bytes: strip_cr(line),
            },
        }
    }
}

fn strip_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Position of the first `needle` in `hay` (SIMD; the standard library's `position` is a
/// byte-at-a-time loop).
pub fn memchr(needle: u8, hay: &[u8]) -> Option<usize> {
    memchr::memchr(needle, hay)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(chunks: &[&[u8]], max: usize) -> Vec<String> {
        let mut s = LineSplitter::new(max);
        let mut out = Vec::new();
        let mut f = |p: Piece<'_>| match p {
            Piece::Line { no, bytes } => {
                out.push(format!("{no}:{}", String::from_utf8_lossy(bytes)))
            }
            Piece::TooLong { no } => out.push(format!("{no}:<too long>")),
        };
        for c in chunks {
            s.push(c, &mut f);
        }
        s.finish(&mut f);
        out
    }

    #[test]
    fn the_byte_order_mark_is_removed_from_the_first_line_only() {
        let bom = "\u{feff}";
        let input = format!("{bom}a\n{bom}b\n");
        assert_eq!(
            split(&[input.as_bytes()], 100),
            ["1:a", format!("2:{bom}b").as_str()]
        );
        // Across reads, and on a last line without a newline.
        let bytes = input.as_bytes();
        assert_eq!(
            split(&[&bytes[..1], &bytes[1..2], &bytes[2..]], 100),
            ["1:a", format!("2:{bom}b").as_str()]
        );
        assert_eq!(split(&[&bytes[..2], &bytes[2..4]], 100), ["1:a"]);
        assert_eq!(split(&[b"\xEF\xBB\xBF"], 100), ["1:"]);
    }

    #[test]
    fn splits_lines_crlf_and_last_line() {
        assert_eq!(split(&[b"a\r\nb\n\nc"], 100), ["1:a", "2:b", "3:", "4:c"]);
    }

    #[test]
    fn chunk_boundaries_do_not_matter() {
        let whole = split(&[b"abc\ndef\r\nghi\n"], 100);
        assert_eq!(
            split(&[b"ab", b"c\nde", b"f\r", b"\ngh", b"i\n"], 100),
            whole
        );
    }

    #[test]
    fn overlong_lines_are_reported_not_kept() {
        assert_eq!(split(&[b"12345\nab\n"], 4), ["1:<too long>", "2:ab"]);
        assert_eq!(
            split(&[b"12", b"34", b"5\nab"], 4),
            ["1:<too long>", "2:ab"]
        );
        assert_eq!(split(&[b"12", b"345"], 4), ["1:<too long>"]);
    }
}
