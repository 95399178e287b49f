//! A stdio transport that survives malformed input.
//!
//! lsp-server's own stdio transport stops reading at the first frame that
//! is not valid JSON-RPC. This one answers such frames with a JSON-RPC
//! error (`-32700` parse error, `-32600` invalid request) and keeps
//! reading; a frame with a broken header is skipped.

use std::io::{self, BufRead, Read, Write};
use std::thread;

use crossbeam_channel::{bounded, unbounded, Receiver, Sender};
use lsp_server::{Connection, Message};
use serde_json::{json, Value};

/// Largest message body read; larger ones are skipped with an error.
pub const MAX_BODY: usize = 64 * 1024 * 1024;

/// The writer thread; join it to flush every response before exiting.
pub struct Writer(thread::JoinHandle<()>);

impl Writer {
    pub fn join(self) {
        let _ = self.0.join();
    }
}

/// A connection over stdin/stdout.
pub fn stdio() -> io::Result<(Connection, Writer)> {
    let (out_tx, out_rx) = unbounded::<Message>();
    let (raw_tx, raw_rx) = unbounded::<String>();
    let (in_tx, in_rx) = bounded::<Message>(64);
    let writer = thread::Builder::new()
        .name("stagec-lsp-writer".into())
        .spawn(move || write_loop(out_rx, raw_rx))?;
    thread::Builder::new().name("stagec-lsp-reader".into()).spawn(move || {
        let stdin = io::stdin();
        let mut input = stdin.lock();
        read_loop(&mut input, &in_tx, &raw_tx);
    })?;
    Ok((
        Connection {
            sender: out_tx,
            receiver: in_rx,
        },
        Writer(writer),
    ))
}

fn write_loop(messages: Receiver<Message>, raw: Receiver<String>) {
    let stdout = io::stdout();
    let mut raw_open = true;
    loop {
        crossbeam_channel::select! {
            recv(messages) -> m => match m {
                Ok(m) => {
                    let mut out = stdout.lock();
                    if m.write(&mut out).is_err() {
                        return;
                    }
                }
                // The server is done: nothing more worth sending.
                Err(_) => return,
            },
            recv(if raw_open { raw.clone() } else { crossbeam_channel::never() }) -> r => match r {
                Ok(text) => {
                    let mut out = stdout.lock();
                    if write_frame(&mut out, &text).is_err() {
                        return;
                    }
                }
                Err(_) => raw_open = false,
            },
        }
    }
}

fn write_frame(out: &mut impl Write, text: &str) -> io::Result<()> {
    write!(out, "Content-Length: {}\r\n\r\n", text.len())?;
    out.write_all(text.as_bytes())?;
    out.flush()
}

/// What reading one frame gave.
pub enum Frame {
    Body(Vec<u8>),
    /// A frame that could not be read as one (bad header, too large). The
    /// next read resynchronises on the next `Content-Length` header.
    Malformed(String),
    Eof,
}

/// Longest header line kept; longer lines are scanned in pieces.
const MAX_LINE: usize = 8192;

/// The header every frame starts with, matched without regard to case.
const CONTENT_LENGTH: &[u8] = b"content-length:";

/// Where `Content-Length:` starts in `line`, if anywhere.
fn find_content_length(line: &[u8]) -> Option<usize> {
    line.windows(CONTENT_LENGTH.len())
        .position(|w| w.eq_ignore_ascii_case(CONTENT_LENGTH))
}

/// Whether `line` looks like a header (`Name: value`, the name a token).
fn is_header(line: &[u8]) -> bool {
    match line.iter().position(|&b| b == b':') {
        Some(0) | None => false,
        Some(colon) => line[..colon]
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || b"-_".contains(b)),
    }
}

/// Reads one line of at most [`MAX_LINE`] bytes (the newline included
/// when it fits); an empty result means end of input.
fn read_line(input: &mut impl BufRead) -> io::Result<Vec<u8>> {
    let mut line = Vec::new();
    input.by_ref().take(MAX_LINE as u64).read_until(b'\n', &mut line)?;
    Ok(line)
}

/// Reads one `Content-Length`-framed body. Header lines may end in CRLF or
/// LF; unknown headers are ignored.
///
/// Anything that is not a header before the next frame (the body of a
/// frame whose header was unusable, stray bytes) is skipped up to the next
/// `Content-Length:`, even one in the middle of a line, so one malformed
/// frame costs that frame and no other. A length above [`MAX_BODY`] is
/// refused without reading the body, which is then skipped the same way:
/// a client cannot make the server swallow its later messages by lying
/// about a length.
pub fn read_frame(input: &mut impl BufRead) -> io::Result<Frame> {
    let mut length: Option<usize> = None;
    let mut bad_header: Option<String> = None;
    let mut saw_header = false;
    // Bytes kept from a piece of an overlong line that did not hold the
    // header, in case the header straddles two pieces.
    let mut carry: Vec<u8> = Vec::new();
    // Whether the last piece read ended without a newline.
    let mut continued = false;
    loop {
        let piece = read_line(input)?;
        if piece.is_empty() {
            return Ok(Frame::Eof);
        }
        let after_piece = std::mem::replace(&mut continued, !piece.ends_with(b"\n"));
        if saw_header && after_piece {
            // The rest of an overlong header line, already refused.
            continue;
        }
        let mut line = std::mem::take(&mut carry);
        line.extend_from_slice(&piece);
        let mut text: &[u8] = &line;
        while let [rest @ .., b'\r' | b'\n'] = text {
            text = rest;
        }
        if text.is_empty() {
            if saw_header {
                break;
            }
            continue;
        }
        if !saw_header {
            // Before a frame's headers: skip anything up to a
            // `Content-Length:`, even in the middle of a line; a line without
            // one counts only if it is a header (another header may come
            // first).
            if let Some(at) = find_content_length(text) {
                text = &text[at..];
            } else if after_piece || !is_header(text) {
                if continued {
                    let keep = CONTENT_LENGTH.len() - 1;
                    carry = text[text.len().saturating_sub(keep)..].to_vec();
                }
                continue;
            }
        }
        if continued {
            // An overlong header line: unusable, and its rest is skipped.
            bad_header = Some("header line too long".into());
            saw_header = true;
            continue;
        }
        let text = String::from_utf8_lossy(text);
        saw_header = true;
        match text.split_once(':') {
            Some((name, value)) if name.trim().eq_ignore_ascii_case("content-length") => {
                match value.trim().parse::<usize>() {
                    Ok(n) => length = Some(n),
                    Err(_) => bad_header = Some(format!("bad Content-Length: {:?}", truncate(value.trim(), 40))),
                }
            }
            Some(_) => {}
            None => bad_header = Some(format!("malformed header line: {:?}", truncate(&text, 40))),
        }
    }
    if let Some(why) = bad_header {
        return Ok(Frame::Malformed(why));
    }
    let Some(length) = length else {
        return Ok(Frame::Malformed("no Content-Length header".into()));
    };
    if length > MAX_BODY {
        return Ok(Frame::Malformed(format!(
            "message of {length} bytes exceeds the limit of {MAX_BODY} bytes"
        )));
    }
    let mut body = Vec::new();
    input.by_ref().take(length as u64).read_to_end(&mut body)?;
    if body.len() < length {
        return Ok(Frame::Eof);
    }
    Ok(Frame::Body(body))
}

/// At most `max` characters of `text`.
fn truncate(text: &str, max: usize) -> &str {
    match text.char_indices().nth(max) {
        Some((at, _)) => &text[..at],
        None => text,
    }
}

/// The JSON-RPC error answering a frame that is not a valid message.
fn error_text(id: Value, code: i32, message: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}).to_string()
}

/// Parses a frame's body into a message, or the JSON-RPC error to answer
/// it with (with the request's id when it has a usable one).
pub fn parse_message(body: &[u8]) -> Result<Message, String> {
    let value: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => return Err(error_text(Value::Null, -32700, &format!("parse error: {e}"))),
    };
    let id = value.get("id").cloned();
    match serde_json::from_value::<Message>(value) {
        Ok(m) => Ok(m),
        Err(e) => match id {
            Some(id) if id.is_number() || id.is_string() => {
                Err(error_text(id, -32600, &format!("invalid request: {e}")))
            }
            _ => Err(error_text(Value::Null, -32600, &format!("invalid request: {e}"))),
        },
    }
}

/// Reads frames until end of input or `exit`, forwarding messages and
/// answering malformed frames directly.
pub fn read_loop(input: &mut impl BufRead, to_server: &Sender<Message>, to_client: &Sender<String>) {
    loop {
        let frame = match read_frame(input) {
            Ok(f) => f,
            Err(_) => return,
        };
        match frame {
            Frame::Eof => return,
            Frame::Malformed(why) => {
                let _ = to_client.send(error_text(Value::Null, -32600, &why));
            }
            Frame::Body(body) => match parse_message(&body) {
                Ok(msg) => {
                    let exit = matches!(&msg, Message::Notification(n) if n.method == "exit");
                    if to_server.send(msg).is_err() || exit {
                        return;
                    }
                }
                Err(answer) => {
                    let _ = to_client.send(answer);
                }
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn survives_garbage() {
        let frame = |body: &str| format!("Content-Length: {}\r\n\r\n{body}", body.len());
        let mut input = String::new();
        input += &frame("{not json");
        input += &frame("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":5}");
        input += &frame("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"shutdown\"}");
        input += "Content-Length: abc\r\n\r\n";
        input += &frame("{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}");
        let (tx, rx) = unbounded();
        let (etx, erx) = unbounded();
        read_loop(&mut io::Cursor::new(input.into_bytes()), &tx, &etx);
        let msgs: Vec<Message> = rx.try_iter().collect();
        assert_eq!(msgs.len(), 2);
        let errors: Vec<String> = erx.try_iter().collect();
        assert_eq!(errors.len(), 3, "{errors:?}");
        assert!(errors[0].contains("-32700"));
        assert!(errors[1].contains("\"id\":7"));
    }

    /// What the reader forwards and answers for `input`.
    fn run(input: Vec<u8>) -> (Vec<Message>, Vec<String>) {
        let (tx, rx) = unbounded();
        let (etx, erx) = unbounded();
        read_loop(&mut io::Cursor::new(input), &tx, &etx);
        (rx.try_iter().collect(), erx.try_iter().collect())
    }

    fn frame(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    const REQUEST: &str = r#"{"jsonrpc":"2.0","id":1,"method":"shutdown"}"#;
    const BODY: &str = r#"{"jsonrpc":"2.0","id":9,"method":"initialize","params":{}}"#;

    #[test]
    fn resynchronises_after_an_unusable_length() {
        for length in ["abc", "-5", "999999999999", "99999999999999999999999", ""] {
            // The bad frame's body, then two good frames: both are read.
            let input = format!("Content-Length: {length}\r\n\r\n{BODY}") + &frame(REQUEST) + &frame(REQUEST);
            let (msgs, errors) = run(input.into_bytes());
            assert_eq!(msgs.len(), 2, "after Content-Length {length:?}: {errors:?}");
            assert_eq!(errors.len(), 1, "after Content-Length {length:?}: {errors:?}");
        }
    }

    #[test]
    fn resynchronises_after_stray_bytes() {
        // Stray lines, a stray body ending in a newline, and a header in
        // the middle of a line.
        let input = "garbage\r\n\r\n{\"a\": 1}\n".to_string() + &frame(REQUEST) + "xx" + &frame(REQUEST);
        let (msgs, _) = run(input.into_bytes());
        assert_eq!(msgs.len(), 2);
    }

    #[test]
    fn a_header_split_across_pieces_of_a_long_line_is_found() {
        for pad in [MAX_LINE - 3, MAX_LINE - 7, MAX_LINE, 3 * MAX_LINE + 1] {
            let input = "x".repeat(pad) + &frame(REQUEST);
            let (msgs, _) = run(input.into_bytes());
            assert_eq!(msgs.len(), 1, "pad {pad}");
        }
    }

    #[test]
    fn an_overlong_header_line_is_one_error() {
        let input = format!("Content-Length: 5\r\nX-Long: {}\r\n\r\nhello", "y".repeat(3 * MAX_LINE)) + &frame(REQUEST);
        let (msgs, errors) = run(input.into_bytes());
        assert_eq!(msgs.len(), 1, "{errors:?}");
        assert!(errors.iter().any(|e| e.contains("too long")), "{errors:?}");
    }

    #[test]
    fn a_length_beyond_the_input_ends_the_stream() {
        let input = "Content-Length: 100\r\n\r\n{}".to_string();
        let (msgs, errors) = run(input.into_bytes());
        assert!(msgs.is_empty() && errors.is_empty());
    }
}
