//! Server-Sent Events: `data:` lines gathered into one JSON value per event, `[DONE]`.

use super::{DepthScan, Framer, Item, parse_counted, trim};

/// An SSE event whose `data:` lines have not formed JSON yet.
#[derive(Debug)]
pub(super) struct SsePending {
    start: u64,
    buf: Vec<u8>,
    scan: DepthScan,
    /// The data can no longer become JSON (it was balanced and did not parse, or grew past the
    /// limit): later `data:` lines of the event are skipped, not parsed again. Parsing the
    /// growing buffer at every line was quadratic.
    dead: bool,
}

impl Framer {
    pub(super) fn sse_data(&mut self, no: u64, payload: &[u8], out: &mut dyn FnMut(Item)) {
        let payload = trim(payload);
        let Some(p) = &mut self.sse_pending else {
            if payload == b"[DONE]" {
                out(Item::Done { line: no });
            } else if let Some(value) = parse_counted(&mut self.stats, no, payload) {
                self.stats.values += 1;
                out(Item::Value { line: no, value });
            } else {
                let mut scan = DepthScan::default();
                // Already balanced and not JSON (`data: hello`): it cannot become JSON.
                let dead = scan.balanced_after(payload);
                self.sse_pending = Some(SsePending {
                    start: no,
                    buf: if dead { Vec::new() } else { payload.to_vec() },
                    scan,
                    dead,
                });
            }
            return;
        };
        if p.dead {
            return;
        }
        // A payload split over several `data:` lines (the SSE spec joins them with \n). It is
        // parsed only once its brackets balance, so each byte is scanned once.
        p.buf.push(b'\n');
        p.buf.extend_from_slice(payload);
        if p.scan.balanced_after(payload) {
            if let Some(value) = parse_counted(&mut self.stats, p.start, &p.buf) {
                let line = p.start;
                self.sse_pending = None;
                self.stats.values += 1;
                out(Item::Value { line, value });
                return;
            }
            p.dead = true;
        } else if p.buf.len() > self.max_doc {
            p.dead = true;
        }
        if p.dead {
            p.buf = Vec::new();
        }
    }

    pub(super) fn flush_sse(&mut self, out: &mut dyn FnMut(Item)) {
        if let Some(p) = self.sse_pending.take() {
            // An SSE event whose data never formed JSON.
            self.stats.text_lines += 1;
            out(Item::Junk { line: p.start });
        }
    }
}

/// `name:` field of an SSE line, with one optional space after the colon removed.
pub(super) fn sse_field<'a>(line: &'a [u8], name: &[u8]) -> Option<&'a [u8]> {
    let rest = line.strip_prefix(name)?.strip_prefix(b":")?;
    Some(rest.strip_prefix(b" ").unwrap_or(rest))
}
