//! Newline-delimited framing for the stdio transport: read one message per line, with a hard
//! cap on line length. A line over the cap is skipped byte by byte as it arrives, so an endless
//! or huge line never sits in memory whole.

use std::io::{self, BufRead};

/// One frame read from the input.
#[derive(Debug, PartialEq, Eq)]
pub enum Frame {
    /// A complete line, without its `\n` (and without a `\r` before it).
    Line(Vec<u8>),
    /// A line longer than the cap. Its bytes were discarded; `len` is how many there were.
    Oversize {
        /// How many bytes the line had.
        len: u64,
    },
}

/// Reads frames from a buffered reader, never holding more than `max` bytes of one line.
pub struct LineReader<R> {
    inner: R,
    max: usize,
}

impl<R: BufRead> LineReader<R> {
    /// A reader of `inner`'s lines that holds at most `max` bytes of one.
    pub fn new(inner: R, max: usize) -> LineReader<R> {
        LineReader { inner, max }
    }

    /// The next frame, or `None` at end of input. A last line without a trailing newline is
    /// still returned. Blank lines are skipped.
    pub fn next_frame(&mut self) -> io::Result<Option<Frame>> {
        loop {
            match self.read_one()? {
                None => return Ok(None),
                Some(Frame::Line(line)) if line.iter().all(u8::is_ascii_whitespace) => {}
                Some(frame) => return Ok(Some(frame)),
            }
        }
    }

    fn read_one(&mut self) -> io::Result<Option<Frame>> {
        let mut line = Vec::new();
        let mut oversize = false;
        let mut seen: u64 = 0;
        let mut got_any = false;
        loop {
            let buf = match self.inner.fill_buf() {
                Ok(buf) => buf,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buf.is_empty() {
                // End of input: whatever we hold is the last line.
                if !got_any {
                    return Ok(None);
                }
                break;
            }
            let (chunk, found_newline) = match buf.iter().position(|&b| b == b'\n') {
                Some(i) => (&buf[..i], true),
                None => (buf, false),
            };
            got_any = true;
            seen += chunk.len() as u64;
            if !oversize {
                if line.len() + chunk.len() > self.max {
                    oversize = true;
                    line = Vec::new();
                } else {
                    line.extend_from_slice(chunk);
                }
            }
            let used = chunk.len() + usize::from(found_newline);
            self.inner.consume(used);
            if found_newline {
                break;
            }
        }
        if oversize {
            return Ok(Some(Frame::Oversize { len: seen }));
        }
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        Ok(Some(Frame::Line(line)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufReader, Read};

    fn frames(input: &[u8], max: usize, buf: usize) -> Vec<Frame> {
        let mut r = LineReader::new(BufReader::with_capacity(buf, input), max);
        let mut out = Vec::new();
        while let Some(f) = r.next_frame().unwrap() {
            out.push(f);
        }
        out
    }

    #[test]
    fn splits_lines_and_keeps_last_unterminated_line() {
        let got = frames(b"{\"a\":1}\r\n\n  \n{\"b\":2}", 64, 3);
        assert_eq!(
            got,
            vec![
                Frame::Line(b"{\"a\":1}".to_vec()),
                Frame::Line(b"{\"b\":2}".to_vec())
            ]
        );
    }

    #[test]
    fn oversize_line_is_skipped_and_next_line_survives() {
        let mut input = vec![b'x'; 10_000];
        input.extend_from_slice(b"\nok\n");
        let got = frames(&input, 100, 7);
        assert_eq!(
            got,
            vec![Frame::Oversize { len: 10_000 }, Frame::Line(b"ok".to_vec())]
        );
    }

    #[test]
    fn line_exactly_at_cap_is_kept() {
        let mut input = vec![b'y'; 100];
        input.push(b'\n');
        assert_eq!(frames(&input, 100, 16), vec![Frame::Line(vec![b'y'; 100])]);
    }

    /// A reader producing `n` bytes of one endless line: the framer must not buffer it.
    struct Endless {
        left: u64,
    }
    impl Read for Endless {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = (buf.len() as u64).min(self.left) as usize;
            buf[..n].fill(b'[');
            self.left -= n as u64;
            Ok(n)
        }
    }

    #[test]
    fn huge_line_is_counted_not_stored() {
        let src = Endless { left: 50 << 20 };
        let mut r = LineReader::new(BufReader::new(src), 1024);
        assert_eq!(
            r.next_frame().unwrap(),
            Some(Frame::Oversize { len: 50 << 20 })
        );
        assert_eq!(r.next_frame().unwrap(), None);
    }
}
