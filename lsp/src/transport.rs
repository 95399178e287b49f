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
    /// A frame that could not be read as one (bad header, too large).
    Malformed(String),
    Eof,
}

/// Reads one `Content-Length`-framed body. Header lines may end in CRLF or
/// LF; unknown headers are ignored.
pub fn read_frame(input: &mut impl BufRead) -> io::Result<Frame> {
    let mut length: Option<usize> = None;
    let mut bad_header: Option<String> = None;
    let mut saw_header = false;
    loop {
        let mut line = Vec::new();
        let n = input.by_ref().take(8192).read_until(b'\n', &mut line)?;
        if n == 0 {
            return Ok(Frame::Eof);
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\r', '\n']);
        if text.is_empty() {
            if saw_header {
                break;
            }
            continue;
        }
        saw_header = true;
        match text.split_once(':') {
            Some((name, value)) if name.trim().eq_ignore_ascii_case("content-length") => {
                match value.trim().parse::<usize>() {
                    Ok(n) => length = Some(n),
                    Err(_) => bad_header = Some(format!("bad Content-Length: {:?}", value.trim())),
                }
            }
            Some(_) => {}
            None => bad_header = Some(format!("malformed header line: {text:?}")),
        }
    }
    if let Some(why) = bad_header {
        return Ok(Frame::Malformed(why));
    }
    let Some(length) = length else {
        return Ok(Frame::Malformed("no Content-Length header".into()));
    };
    if length > MAX_BODY {
        io::copy(&mut input.by_ref().take(length as u64), &mut io::sink())?;
        return Ok(Frame::Malformed(format!(
            "message of {length} bytes exceeds {MAX_BODY}"
        )));
    }
    let mut body = vec![0; length];
    input.read_exact(&mut body)?;
    Ok(Frame::Body(body))
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
}
