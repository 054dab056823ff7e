//! The capture cascade: MIT-SHM first, plain GetImage as the fallback. A backend that
//! fails while a later one succeeds is switched off for the rest of the process (its
//! reason is kept); when all fail, the error lists every backend's reason.

use super::{Backend, Display, GetImageBackend, RawFrame, ShmBackend, X11Error};
use crate::contract::Rect;

pub const BACKEND_ENV: &str = "DESKGATE_CAPTURE_BACKEND";

/// Which backends may run, from `DESKGATE_CAPTURE_BACKEND` (auto | shm | getimage).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BackendChoice {
    Auto,
    ShmOnly,
    GetImageOnly,
}

impl BackendChoice {
    pub fn from_env() -> Self {
        match std::env::var(BACKEND_ENV).as_deref() {
            Err(_) | Ok("") | Ok("auto") => Self::Auto,
            Ok("shm") => Self::ShmOnly,
            Ok("getimage") => Self::GetImageOnly,
            Ok(other) => {
                eprintln!("deskgate-capture: ignoring {BACKEND_ENV}={other:?} (expected auto, shm or getimage)");
                Self::Auto
            }
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum CascadeError {
    #[error(transparent)]
    ConnectionLost(X11Error),
    #[error("every capture backend failed: {0}")]
    AllFailed(String),
}

struct Entry {
    name: &'static str,
    backend: Option<Box<dyn Backend>>,
    disabled: Option<String>,
}

pub struct Cascade {
    entries: Vec<Entry>,
}

impl Cascade {
    pub fn new(display: &Display, choice: BackendChoice) -> Self {
        let shm = match choice {
            BackendChoice::GetImageOnly => Err(format!("disabled by {BACKEND_ENV}=getimage")),
            _ => ShmBackend::probe(display).map_err(|e| e.to_string()),
        };
        let getimage = match choice {
            BackendChoice::ShmOnly => Err(format!("disabled by {BACKEND_ENV}=shm")),
            _ => Ok(GetImageBackend::default()),
        };
        let entry = |name, r: Result<Box<dyn Backend>, String>| match r {
            Ok(b) => Entry {
                name,
                backend: Some(b),
                disabled: None,
            },
            Err(why) => {
                eprintln!("deskgate-capture: backend {name} unavailable: {why}");
                Entry {
                    name,
                    backend: None,
                    disabled: Some(why),
                }
            }
        };
        let entries = vec![
            entry("shm", shm.map(|b| Box::new(b) as Box<dyn Backend>)),
            entry(
                "getimage",
                getimage.map(|b| Box::new(b) as Box<dyn Backend>),
            ),
        ];
        Self { entries }
    }

    /// The backend the next capture will try first ("none" if all are off).
    pub fn active(&self) -> &'static str {
        self.entries
            .iter()
            .find(|e| e.disabled.is_none())
            .map_or("none", |e| e.name)
    }

    /// Capture `rect`, returning the name of the backend that did it and its pixels.
    pub fn capture(
        &mut self,
        display: &Display,
        rect: &Rect,
    ) -> Result<(&'static str, RawFrame<'_>), CascadeError> {
        let i = self.grab(display, rect)?;
        let entry = &mut self.entries[i];
        let backend = entry
            .backend
            .as_mut()
            .expect("grab only returns live backends");
        Ok((entry.name, backend.frame()))
    }

    fn grab(&mut self, display: &Display, rect: &Rect) -> Result<usize, CascadeError> {
        let mut failed: Vec<(usize, String)> = Vec::new();
        for i in 0..self.entries.len() {
            let entry = &mut self.entries[i];
            let Some(backend) = entry.backend.as_mut().filter(|_| entry.disabled.is_none()) else {
                continue;
            };
            match backend.grab(display, rect) {
                Ok(()) => {
                    self.switch_off(&failed);
                    return Ok(i);
                }
                Err(e) if e.is_connection_lost() => return Err(CascadeError::ConnectionLost(e)),
                Err(e) => failed.push((i, e.to_string())),
            }
        }
        let reasons: Vec<String> = self
            .entries
            .iter()
            .enumerate()
            .map(
                |(i, e)| match (&e.disabled, failed.iter().find(|(j, _)| *j == i)) {
                    (_, Some((_, why))) => format!("{}: {why}", e.name),
                    (Some(why), None) => format!("{}: unavailable ({why})", e.name),
                    (None, None) => format!("{}: not tried", e.name),
                },
            )
            .collect();
        Err(CascadeError::AllFailed(reasons.join("; ")))
    }

    fn switch_off(&mut self, failed: &[(usize, String)]) {
        for (i, why) in failed {
            let entry = &mut self.entries[*i];
            eprintln!(
                "deskgate-capture: switching off backend {} for this process: {why}",
                entry.name
            );
            entry.disabled = Some(why.clone());
            entry.backend = None;
        }
    }
}
