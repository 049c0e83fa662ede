//! Server-sent events, the `data:` part only: bytes as they arrive → the
//! data of each event. Chunk boundaries fall anywhere (inside a line,
//! between `\r` and `\n`, inside a UTF-8 character); lines end with `\n`,
//! `\r\n` or `\r`; several `data:` lines of one event are joined with `\n`;
//! comments (`:`) and other fields are ignored.

/// Turns a byte stream into event data, incrementally.
#[derive(Debug, Default)]
pub struct SseDecoder {
    line: Vec<u8>,
    data: Option<String>,
    skip_lf: bool,
}

impl SseDecoder {
    /// A decoder at the start of a stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds the next bytes; returns the data of every event they complete.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<String> {
        let mut events = Vec::new();
        for &byte in bytes {
            if std::mem::take(&mut self.skip_lf) && byte == b'\n' {
                continue;
            }
            match byte {
                b'\n' | b'\r' => {
                    self.skip_lf = byte == b'\r';
                    let line = std::mem::take(&mut self.line);
                    self.line_done(&line, &mut events);
                }
                _ => self.line.push(byte),
            }
        }
        events
    }

    /// The end of the stream: the data of an event left without its blank
    /// line (servers that close right after the last `data:`).
    pub fn finish(&mut self) -> Option<String> {
        let line = std::mem::take(&mut self.line);
        let mut events = Vec::new();
        self.line_done(&line, &mut events);
        events.pop().or_else(|| self.data.take())
    }

    fn line_done(&mut self, line: &[u8], events: &mut Vec<String>) {
        if line.is_empty() {
            events.extend(self.data.take());
            return;
        }
        let line = String::from_utf8_lossy(line);
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line.as_ref(), ""),
        };
        if field == "data" {
            match &mut self.data {
                Some(data) => {
                    data.push('\n');
                    data.push_str(value);
                }
                None => self.data = Some(value.to_owned()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_splits(stream: &[u8]) -> Vec<String> {
        // The same events whatever the chunking: whole, and split at every byte.
        let mut whole = SseDecoder::new();
        let mut want = whole.feed(stream);
        want.extend(whole.finish());
        for cut in 0..=stream.len() {
            let mut decoder = SseDecoder::new();
            let mut got = decoder.feed(&stream[..cut]);
            got.extend(decoder.feed(&stream[cut..]));
            got.extend(decoder.finish());
            assert_eq!(got, want, "cut at {cut}");
        }
        let mut decoder = SseDecoder::new();
        let mut got: Vec<String> = stream.iter().flat_map(|b| decoder.feed(std::slice::from_ref(b))).collect();
        got.extend(decoder.finish());
        assert_eq!(got, want, "byte by byte");
        want
    }

    #[test]
    fn s3_events_whatever_the_chunk_boundaries() {
        let stream = "data: {\"a\":1}\n\n: keep-alive\n\ndata: {\"b\":\"é\"}\r\n\r\nevent: x\ndata:[DONE]\r\r";
        assert_eq!(all_splits(stream.as_bytes()), ["{\"a\":1}", "{\"b\":\"é\"}", "[DONE]"]);
    }

    #[test]
    fn multi_line_data_and_a_missing_final_blank_line() {
        assert_eq!(all_splits(b"data: one\ndata: two\n\ndata: last"), ["one\ntwo", "last"]);
        assert_eq!(all_splits(b"data: last\n"), ["last"]);
        assert!(all_splits(b"retry: 10\n\n: c\n\n").is_empty());
    }
}
