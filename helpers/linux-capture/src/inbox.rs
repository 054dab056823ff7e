//! Where requests come from: a reader thread turns stdin into frames, so that a `settle`
//! wait can notice a `cancel` (or the end of input) while it waits. Requests that arrive
//! during a wait are kept, in order, and served after it; every request still gets exactly
//! one response, in request order.

use std::collections::VecDeque;
use std::io::{self, Read};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::Instant;

use crate::contract::Op;
use crate::frame::{read_frame, Incoming};
use crate::request::{parse_request, MAX_REQUEST_BYTES};

/// Why a wait ended early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interrupt {
    /// A `cancel` request arrived (it is answered after the interrupted request).
    Cancelled,
    /// Input ended (or failed): the worker is gone.
    Closed,
}

/// What a long-running op (settle) waits on.
pub trait Waiter {
    /// Wait until `deadline` unless interrupted first.
    fn wait_until(&mut self, deadline: Instant) -> Option<Interrupt>;
}

/// A frame as read, and whether it is a `cancel` that already ended a wait.
struct Queued {
    item: io::Result<Incoming>,
    cancel: Cancel,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cancel {
    /// Not a cancel request.
    No,
    /// A cancel that has not ended any wait (yet).
    Idle,
    /// A cancel that ended a wait.
    Hit,
}

pub struct Inbox {
    rx: Receiver<io::Result<Incoming>>,
    backlog: VecDeque<Queued>,
}

impl Inbox {
    /// Read frames from `input` on a thread of its own until EOF or an I/O error.
    pub fn spawn(mut input: impl Read + Send + 'static) -> Self {
        let (tx, rx) = channel();
        std::thread::Builder::new()
            .name("stdin".into())
            .spawn(move || loop {
                let item = read_frame(&mut input, MAX_REQUEST_BYTES);
                let last = !matches!(item, Ok(Incoming::Frame(_) | Incoming::TooLarge(_)));
                if tx.send(item).is_err() || last {
                    break;
                }
            })
            .expect("spawn the stdin reader thread");
        Self {
            rx,
            backlog: VecDeque::new(),
        }
    }

    /// The next request in order, and (for a `cancel`) whether it ended a wait. A reader
    /// thread that vanished counts as end of input.
    pub fn next_request(&mut self) -> (io::Result<Incoming>, bool) {
        match self.backlog.pop_front() {
            Some(q) => (q.item, q.cancel == Cancel::Hit),
            None => (self.rx.recv().unwrap_or(Ok(Incoming::Eof)), false),
        }
    }

    fn queue(&mut self, item: io::Result<Incoming>) -> Option<Interrupt> {
        let cancel = match &item {
            Ok(Incoming::Frame(bytes)) if is_cancel(bytes) => Cancel::Hit,
            _ => Cancel::No,
        };
        let closed = !matches!(item, Ok(Incoming::Frame(_) | Incoming::TooLarge(_)));
        self.backlog.push_back(Queued { item, cancel });
        if cancel == Cancel::Hit {
            Some(Interrupt::Cancelled)
        } else if closed {
            Some(Interrupt::Closed)
        } else {
            None
        }
    }
}

impl Waiter for Inbox {
    fn wait_until(&mut self, deadline: Instant) -> Option<Interrupt> {
        // Requests already queued behind this one were sent after it: a cancel among them
        // is for this wait.
        for q in self.backlog.iter_mut() {
            if let Ok(Incoming::Frame(bytes)) = &q.item {
                if q.cancel == Cancel::No && is_cancel(bytes) {
                    q.cancel = Cancel::Idle;
                }
            }
            if q.cancel == Cancel::Idle {
                q.cancel = Cancel::Hit;
                return Some(Interrupt::Cancelled);
            }
            if !matches!(q.item, Ok(Incoming::Frame(_) | Incoming::TooLarge(_))) {
                return Some(Interrupt::Closed);
            }
        }
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(item) => {
                    if let Some(why) = self.queue(item) {
                        return Some(why);
                    }
                }
                Err(RecvTimeoutError::Timeout) => return None,
                Err(RecvTimeoutError::Disconnected) => {
                    self.backlog.push_back(Queued {
                        item: Ok(Incoming::Eof),
                        cancel: Cancel::No,
                    });
                    return Some(Interrupt::Closed);
                }
            }
        }
    }
}

fn is_cancel(bytes: &[u8]) -> bool {
    parse_request(bytes).is_ok_and(|r| r.op == Op::Cancel)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn framed(bodies: &[&str]) -> Vec<u8> {
        let mut out = Vec::new();
        for b in bodies {
            out.extend_from_slice(&(b.len() as u32).to_le_bytes());
            out.extend_from_slice(b.as_bytes());
        }
        out
    }

    fn frame_of(item: io::Result<Incoming>) -> String {
        match item.unwrap() {
            Incoming::Frame(b) => String::from_utf8(b).unwrap(),
            other => format!("{other:?}"),
        }
    }

    #[test]
    fn a_cancel_behind_the_wait_ends_it_and_keeps_order() {
        let input = framed(&[
            r#"{"id":2,"op":"ping"}"#,
            r#"{"id":3,"op":"cancel"}"#,
            r#"{"id":4,"op":"cancel"}"#,
        ]);
        let mut inbox = Inbox::spawn(io::Cursor::new(input));
        let far = Instant::now() + Duration::from_secs(10);
        assert_eq!(inbox.wait_until(far), Some(Interrupt::Cancelled));
        let (item, hit) = inbox.next_request();
        assert_eq!(
            (frame_of(item), hit),
            (r#"{"id":2,"op":"ping"}"#.into(), false)
        );
        let (item, hit) = inbox.next_request();
        assert_eq!(
            (frame_of(item), hit),
            (r#"{"id":3,"op":"cancel"}"#.into(), true)
        );
        // The second cancel ended nothing.
        let (item, hit) = inbox.next_request();
        assert_eq!(
            (frame_of(item), hit),
            (r#"{"id":4,"op":"cancel"}"#.into(), false)
        );
        assert_eq!(frame_of(inbox.next_request().0), "Eof");
    }

    #[test]
    fn waits_out_the_deadline_then_reports_end_of_input() {
        let (tx, rx) = channel();
        let mut inbox = Inbox {
            rx,
            backlog: VecDeque::new(),
        };
        let start = Instant::now();
        assert_eq!(inbox.wait_until(start + Duration::from_millis(30)), None);
        assert!(start.elapsed() >= Duration::from_millis(30));
        tx.send(Ok(Incoming::Frame(br#"{"id":1,"op":"info"}"#.to_vec())))
            .unwrap();
        drop(tx);
        let far = Instant::now() + Duration::from_secs(10);
        assert_eq!(inbox.wait_until(far), Some(Interrupt::Closed));
        assert_eq!(frame_of(inbox.next_request().0), r#"{"id":1,"op":"info"}"#);
        assert_eq!(frame_of(inbox.next_request().0), "Eof");
    }
}
