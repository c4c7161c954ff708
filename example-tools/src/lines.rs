//! Lines read with a cap: a line's first bytes are kept and the rest skipped without being
//! held, and the bytes scanned may be bounded, so one huge line (a 2 GB file without a
//! newline) costs the cap in memory and the bound in time, never the line.

use std::io::{self, BufRead};

/// One line: its first bytes, without the line ending.
pub(crate) struct Line<'a> {
    /// At most the reader's cap of the line's bytes (no `\n`; no `\r` before it unless cut).
    pub text: &'a [u8],
    /// Whether the line was longer than [`text`](Self::text): cut at the cap, or where the
    /// scan bound stopped the reading.
    pub cut: bool,
}

/// Reads lines of a [`BufRead`] keeping at most `cap` bytes of each.
pub(crate) struct CappedLines<R> {
    reader: R,
    cap: usize,
    line: Vec<u8>,
    scanned: u64,
    scan_limit: u64,
    stopped: bool,
}

impl<R: BufRead> CappedLines<R> {
    /// Lines of `reader`, each kept to its first `cap` bytes; nothing bounds the scan yet.
    pub(crate) fn new(reader: R, cap: usize) -> Self {
        Self {
            reader,
            cap,
            line: Vec::new(),
            scanned: 0,
            scan_limit: u64::MAX,
            stopped: false,
        }
    }

    /// Stops reading once `more` bytes past those scanned so far have been read: the line
    /// being read then is returned cut, and [`stopped`](Self::stopped) says so.
    pub(crate) fn bound_scan(&mut self, more: u64) {
        self.scan_limit = self.scanned.saturating_add(more);
    }

    /// Whether the scan bound ended the reading before the end of the input.
    pub(crate) fn stopped(&self) -> bool {
        self.stopped
    }

    /// The next line, or `None` at the end of the input (or once the scan bound is reached).
    /// With `keep` false the line is only skipped, and its [`text`](Line::text) is empty.
    pub(crate) fn next_line(&mut self, keep: bool) -> io::Result<Option<Line<'_>>> {
        self.line.clear();
        if self.stopped {
            return Ok(None);
        }
        let mut started = false;
        let mut longer = false;
        loop {
            if self.scanned >= self.scan_limit {
                if self.reader.fill_buf()?.is_empty() {
                    return Ok(started.then(|| self.finish(longer)));
                }
                self.stopped = true;
                return Ok(started.then(|| self.finish(true)));
            }
            let available = self.reader.fill_buf()?;
            if available.is_empty() {
                return Ok(started.then(|| self.finish(longer)));
            }
            started = true;
            let room = usize::try_from(self.scan_limit - self.scanned).unwrap_or(usize::MAX);
            let window = &available[..available.len().min(room)];
            let (body, used, ended) = match memchr::memchr(b'\n', window) {
                Some(end) => (&window[..end], end + 1, true),
                None => (window, window.len(), false),
            };
            let free = self.cap.saturating_sub(self.line.len());
            if keep {
                self.line.extend_from_slice(&body[..body.len().min(free)]);
            }
            longer |= body.len() > free;
            self.reader.consume(used);
            self.scanned += used as u64;
            if ended {
                return Ok(Some(self.finish(longer)));
            }
        }
    }

    fn finish(&mut self, cut: bool) -> Line<'_> {
        if !cut && self.line.last() == Some(&b'\r') {
            self.line.pop();
        }
        Line {
            text: &self.line,
            cut,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(input: &[u8], cap: usize, bound: Option<u64>) -> (Vec<(String, bool)>, bool) {
        // A tiny buffer, so lines span many fills.
        let mut lines = CappedLines::new(io::BufReader::with_capacity(3, input), cap);
        if let Some(bound) = bound {
            lines.bound_scan(bound);
        }
        let mut out = Vec::new();
        while let Some(line) = lines.next_line(true).unwrap() {
            out.push((String::from_utf8_lossy(line.text).into_owned(), line.cut));
        }
        (out, lines.stopped())
    }

    #[test]
    fn lines_are_cut_at_the_cap_and_endings_dropped() {
        let (lines, stopped) = all(b"ab\r\nabcdefgh\n\nlast", 4, None);
        let expected = [("ab", false), ("abcd", true), ("", false), ("last", false)];
        let expected: Vec<_> = expected.iter().map(|(t, c)| (t.to_string(), *c)).collect();
        assert_eq!(lines, expected);
        assert!(!stopped);
        assert_eq!(all(b"", 4, None).0, []);
    }

    #[test]
    fn the_scan_bound_cuts_the_line_it_stops_in() {
        let (lines, stopped) = all(b"one\ntwo three four\nfive\n", 100, Some(8));
        let expected = [("one", false), ("two ", true)];
        let expected: Vec<_> = expected.iter().map(|(t, c)| (t.to_string(), *c)).collect();
        assert_eq!(lines, expected);
        assert!(stopped);
        // A bound that ends exactly at the end of the input stops nothing.
        let (lines, stopped) = all(b"one\n", 100, Some(4));
        assert_eq!(lines, [("one".to_string(), false)]);
        assert!(!stopped);
    }
}
