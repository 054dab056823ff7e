//! The request loop: one response per request, in order, until stdin closes.

use std::io::{self, Write};

use serde_json::Value;

use crate::contract::{CancelReply, ErrorBody, ErrorHeader, ErrorKind, OkHeader, Op, Reply};
use crate::frame::{write_frame, Incoming};
use crate::inbox::Inbox;
use crate::request::{parse_request, MAX_REQUEST_BYTES};
use crate::service::Service;

/// Serve until EOF on the inbox's input. Only I/O failures on the pipes end the loop with
/// an error; every request-level problem becomes an error response.
pub fn serve(service: &mut Service, mut inbox: Inbox, mut output: impl Write) -> io::Result<()> {
    loop {
        let (item, ended_a_wait) = inbox.next_request();
        let bytes = match item? {
            Incoming::Eof => return Ok(()),
            Incoming::TooLarge(n) => {
                let message =
                    format!("request of {n} bytes exceeds the {MAX_REQUEST_BYTES}-byte limit");
                write_error(&mut output, &Value::Null, ErrorKind::BadRequest, &message)?;
                continue;
            }
            Incoming::Frame(bytes) => bytes,
        };
        let request = match parse_request(&bytes) {
            Ok(r) => r,
            Err(e) => {
                write_error(&mut output, &e.id, ErrorKind::BadRequest, &e.message)?;
                continue;
            }
        };
        let outcome = if request.op == Op::Cancel {
            let reply = CancelReply {
                cancelled: ended_a_wait,
            };
            Ok((Reply::Cancel(reply), Vec::new()))
        } else {
            service.handle(&request.op, &mut inbox)
        };
        match outcome {
            Ok((reply, payload)) => {
                let header = OkHeader {
                    id: &request.id,
                    ok: true,
                    reply: &reply,
                };
                write_frame(&mut output, &to_json(&header)?, &payload)?;
            }
            Err(e) => write_error(&mut output, &request.id, e.kind(), &e.to_string())?,
        }
    }
}

fn write_error(out: &mut impl Write, id: &Value, kind: ErrorKind, message: &str) -> io::Result<()> {
    let header = ErrorHeader {
        id,
        ok: false,
        error: ErrorBody { kind, message },
    };
    write_frame(out, &to_json(&header)?, &[])
}

fn to_json(header: &impl serde::Serialize) -> io::Result<Vec<u8>> {
    serde_json::to_vec(header).map_err(io::Error::other)
}
