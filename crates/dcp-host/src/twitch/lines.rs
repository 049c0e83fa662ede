//! Lines read off the chat's connection, never more than one line's cap
//! held: a line longer than [`MAX_LINE_BYTES`] (its CR LF aside) ends the
//! connection instead of being buffered whole. Reading a line is
//! cancel-safe: what was read stays in the buffer for the next call.

use dcp_twitch::irc::MAX_LINE_BYTES;
use tokio::io::{AsyncRead, AsyncReadExt};

/// The most a line may take with its CR LF.
const WITH_CRLF: usize = MAX_LINE_BYTES + 2;

/// Why no line came.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum NoLine {
    /// The server ended the connection, with TLS's goodbye or without
    /// (a reset, an end of stream in the middle of TLS).
    Closed,
    /// A line over the cap.
    TooLong,
    /// The connection failed.
    Failed,
}

/// What was read and not yet cut into lines.
#[derive(Debug, Default)]
pub(super) struct Lines {
    buffer: Vec<u8>,
}

impl Lines {
    /// The next line, its LF included.
    pub(super) async fn next(&mut self, reader: &mut (impl AsyncRead + Unpin)) -> Result<Vec<u8>, NoLine> {
        let mut scanned = 0;
        loop {
            if let Some(end) = self.buffer[scanned..].iter().position(|b| *b == b'\n') {
                return Ok(self.buffer.drain(..=scanned + end).collect());
            }
            scanned = self.buffer.len();
            if scanned >= WITH_CRLF {
                return Err(NoLine::TooLong);
            }
            // Never more than the cap plus the one byte that shows it passed.
            let mut chunk = [0u8; 4096];
            let room = (WITH_CRLF + 1 - scanned).min(chunk.len());
            match reader.read(&mut chunk[..room]).await {
                Ok(0) => return Err(NoLine::Closed),
                Ok(n) => self.buffer.extend_from_slice(&chunk[..n]),
                Err(e) if is_ended(e.kind()) => return Err(NoLine::Closed),
                Err(_) => return Err(NoLine::Failed),
            }
        }
    }
}

/// An error that says the other side ended the connection.
fn is_ended(kind: std::io::ErrorKind) -> bool {
    use std::io::ErrorKind::{ConnectionAborted, ConnectionReset, UnexpectedEof};
    matches!(kind, UnexpectedEof | ConnectionReset | ConnectionAborted)
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn read_all(input: &[u8]) -> (Vec<Vec<u8>>, NoLine) {
        let mut reader = input;
        let mut lines = Lines::default();
        let mut out = Vec::new();
        loop {
            match lines.next(&mut reader).await {
                Ok(line) => out.push(line),
                Err(end) => return (out, end),
            }
        }
    }

    #[tokio::test]
    async fn issue36_lines_are_cut_at_lf_whatever_the_reads() {
        let (lines, end) = read_all(b"PING :a\r\n:x PRIVMSG #s :hi\r\nPART").await;
        assert_eq!(lines, [b"PING :a\r\n".to_vec(), b":x PRIVMSG #s :hi\r\n".to_vec()]);
        assert_eq!(end, NoLine::Closed, "a half line at the end is not a line");
    }

    #[tokio::test]
    async fn issue36_a_line_over_the_cap_ends_the_connection_without_being_held() {
        let mut fits = vec![b'a'; MAX_LINE_BYTES];
        fits.extend_from_slice(b"\r\n");
        let (lines, _) = read_all(&fits).await;
        assert_eq!(lines, [fits.clone()]);
        let mut endless = vec![b'a'; 10 * MAX_LINE_BYTES];
        endless.extend_from_slice(b"\r\n");
        let mut reader = endless.as_slice();
        let mut lines = Lines::default();
        assert_eq!(lines.next(&mut reader).await, Err(NoLine::TooLong));
        assert!(lines.buffer.len() <= WITH_CRLF + 1, "held {}", lines.buffer.len());
    }
}
