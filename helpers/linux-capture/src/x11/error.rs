//! Typed X11 failures. A lost connection is kept apart from protocol errors because it
//! is fatal for the process (the worker restarts the helper) while the rest are per-request.

use x11rb::errors::{ConnectError, ConnectionError, ReplyError, ReplyOrIdError};

#[derive(Debug, thiserror::Error)]
pub enum X11Error {
    #[error("cannot open X display {display}: {source}")]
    Connect {
        display: String,
        source: ConnectError,
    },
    #[error("X connection lost: {0}")]
    ConnectionLost(#[from] ConnectionError),
    #[error("X server refused {request}: {detail}")]
    Protocol {
        request: &'static str,
        detail: String,
    },
    #[error("{0}")]
    Unsupported(String),
}

impl X11Error {
    pub fn is_connection_lost(&self) -> bool {
        matches!(self, X11Error::ConnectionLost(_))
    }

    /// Attach the request name to a reply error so messages say what failed.
    pub fn reply(request: &'static str) -> impl FnOnce(ReplyError) -> X11Error {
        move |e| match e {
            ReplyError::ConnectionError(c) => X11Error::ConnectionLost(c),
            ReplyError::X11Error(x) => X11Error::Protocol {
                request,
                detail: format!(
                    "{:?} error (bad value {:#x}, opcode {}.{})",
                    x.error_kind, x.bad_value, x.major_opcode, x.minor_opcode
                ),
            },
        }
    }

    pub fn reply_or_id(request: &'static str) -> impl FnOnce(ReplyOrIdError) -> X11Error {
        move |e| match e {
            ReplyOrIdError::ConnectionError(c) => X11Error::ConnectionLost(c),
            ReplyOrIdError::X11Error(x) => X11Error::reply(request)(ReplyError::X11Error(x)),
            ReplyOrIdError::IdsExhausted => X11Error::Protocol {
                request,
                detail: "X resource ids exhausted".into(),
            },
        }
    }
}
