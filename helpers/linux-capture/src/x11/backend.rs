//! The seam between capture strategies and the pipeline: a backend grabs a root-window
//! rectangle into its own buffer and lends it out as a `RawFrame` in server layout.

use super::{Display, X11Error};
use crate::contract::Rect;

/// Pixels as the server delivered them (see `Display::layout`), `stride` bytes per row.
/// Mutable so masks can be painted in place before anything reads the frame; the next
/// grab overwrites it anyway.
#[derive(Debug)]
pub struct RawFrame<'a> {
    pub data: &'a mut [u8],
    pub stride: usize,
    pub width: u32,
    pub height: u32,
}

pub trait Backend {
    /// Name reported on the wire ("shm", "getimage").
    fn name(&self) -> &'static str;
    /// Capture `rect` (inside the root window) into the backend's buffer.
    fn grab(&mut self, display: &Display, rect: &Rect) -> Result<(), X11Error>;
    /// The last successful grab. Split from `grab` so a failed grab can fall through to
    /// the next backend without holding a borrow of this one.
    fn frame(&mut self) -> RawFrame<'_>;
}
