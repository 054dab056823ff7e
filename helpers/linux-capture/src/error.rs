//! Request-level failures, each mapped to one protocol error kind.

use crate::contract::ErrorKind;
use crate::x11::{CascadeError, X11Error};

#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    #[error("{0}")]
    BadRequest(String),
    #[error("{0}")]
    CaptureFailed(String),
    #[error("{0}")]
    NoSnapshot(String),
    #[error("{0}")]
    Display(String),
}

impl ServiceError {
    pub fn kind(&self) -> ErrorKind {
        match self {
            ServiceError::BadRequest(_) => ErrorKind::BadRequest,
            ServiceError::CaptureFailed(_) => ErrorKind::CaptureFailed,
            ServiceError::NoSnapshot(_) => ErrorKind::NoSnapshot,
            ServiceError::Display(_) => ErrorKind::DisplayError,
        }
    }
}

impl From<X11Error> for ServiceError {
    fn from(e: X11Error) -> Self {
        match e {
            X11Error::Connect { .. } | X11Error::ConnectionLost(_) => {
                ServiceError::Display(e.to_string())
            }
            other => ServiceError::CaptureFailed(other.to_string()),
        }
    }
}

impl From<CascadeError> for ServiceError {
    fn from(e: CascadeError) -> Self {
        match e {
            CascadeError::ConnectionLost(x) => x.into(),
            CascadeError::AllFailed(_) => ServiceError::CaptureFailed(e.to_string()),
        }
    }
}
