//! Wire types of the capture protocol, shared in spirit with the Node worker
//! (`docs/capture-helper.md` is the reference). Types only: parsing and range checks
//! live in `request.rs`, behaviour in `service/`.

use serde::{Deserialize, Serialize};

pub use crate::encode::AutoReason;

/// A rectangle in root-window coordinates. Signed origin because masks may describe
/// windows that hang off the screen edge; `region` additionally requires x, y >= 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Rect {
    pub x: i32,
    pub y: i32,
    pub width: u32,
    pub height: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Size {
    pub width: u32,
    pub height: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Jpeg,
    /// Indexed (8-bit palette) when the frame has at most 256 colours, else RGB8.
    Png,
    /// Lossless WebP (VP8L).
    Webp,
    /// Raw packed RGB8, row-major, no padding.
    Rgb,
    /// Indexed PNG or JPEG, chosen per frame (`encode/auto.rs`); replies name the choice.
    Auto,
}

/// `{"op":"capture", …}` after the envelope (`id`, `op`) is removed.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaptureRequest {
    pub region: Option<Rect>,
    pub scale_to: Option<Size>,
    pub format: Format,
    pub quality: Option<u32>,
    #[serde(default)]
    pub mask: Vec<Rect>,
    pub keep: Option<String>,
}

/// `{"op":"compare", …}`: is the live patch around (x, y) still what slot `slot` holds?
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompareRequest {
    pub slot: String,
    pub x: i32,
    pub y: i32,
    pub radius: Option<u32>,
}

/// `{"op":"settle", …}`: wait until the screen has had no damage for `quiet_ms`, counted
/// from the later of the request's arrival and the last damage; give up at `max_ms`.
/// With `since_ms` (the action began that long before the request): once the screen has
/// been damaged since the action began — the app reacted — the quiet window is
/// `react_quiet_ms` instead, counted from the last damage, so an app that answers in
/// steps (a press, a pause, a redraw) is waited for, while a still screen costs `quiet_ms`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SettleRequest {
    pub quiet_ms: u32,
    pub max_ms: u32,
    #[serde(default)]
    pub react_quiet_ms: Option<u32>,
    #[serde(default)]
    pub since_ms: u32,
}

/// `{"op":"frame", …}`: the live view's next frame. Waits until the screen has had more than
/// `after` damage notifications (the count a previous `frame` answered; 0 at first), then
/// captures the whole screen, scaled to `scale_to` and encoded as `format`. Gives up at
/// `max_ms` (or on a `cancel`) with no frame. Never polls the screen: no damage, no capture.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FrameRequest {
    pub after: u64,
    pub max_ms: u32,
    pub scale_to: Option<Size>,
    pub format: Format,
    pub quality: Option<u32>,
}

/// Placeholder for ops that take no arguments; rejects stray fields like the others.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    Ping,
    Info,
    Capture(CaptureRequest),
    Compare(CompareRequest),
    Settle(SettleRequest),
    Frame(FrameRequest),
    /// Ends the settle or frame wait in progress (answered before this), if any.
    Cancel,
}

/// A parsed request. `id` is echoed verbatim (number, string or null).
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub id: serde_json::Value,
    pub op: Op,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    BadRequest,
    CaptureFailed,
    NoSnapshot,
    DisplayError,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Monitor {
    pub name: String,
    pub x: i32,
    pub y: i32,
    pub width: u32,
    pub height: u32,
    pub primary: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InfoReply {
    pub width: u32,
    pub height: u32,
    pub depth: u8,
    pub backend: &'static str,
    pub monitors: Vec<Monitor>,
}

/// Timings are wall-clock milliseconds for each pipeline stage of this request.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CaptureReply {
    pub width: u32,
    pub height: u32,
    /// The format of the payload: for `auto`, the one chosen.
    pub format: Format,
    /// Why `auto` chose `format` (absent for an explicit format).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto_reason: Option<AutoReason>,
    pub backend: &'static str,
    pub capture_ms: f64,
    pub convert_ms: f64,
    pub scale_ms: f64,
    pub encode_ms: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CompareReply {
    pub same: bool,
    pub differing: u64,
    pub compared: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SettleReply {
    /// True when `quiet_ms` passed without damage; false at `max_ms` or when cancelled.
    pub settled: bool,
    /// From the request's arrival to the answer.
    pub waited_ms: f64,
    /// Damage notifications received while waiting.
    pub damage_events: u64,
    /// True when a `cancel` request ended the wait.
    pub cancelled: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FrameReply {
    /// True when the screen changed and a frame (the payload) follows; false at `max_ms` or on a cancel.
    pub changed: bool,
    /// Damage notifications so far: pass it as `after` to wait for the next change.
    pub damage_events: u64,
    /// From the request's arrival to the damage that ended the wait (or the give-up).
    pub waited_ms: f64,
    /// The capture's own fields, when a frame follows.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub frame: Option<CaptureReply>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CancelReply {
    /// Whether this cancel ended a settle wait.
    pub cancelled: bool,
}

/// The op-specific part of a success header; flattened next to `id` and `ok`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Reply {
    Pong {},
    Info(InfoReply),
    Capture(CaptureReply),
    Compare(CompareReply),
    Settle(SettleReply),
    Frame(FrameReply),
    Cancel(CancelReply),
}

#[derive(Debug, Serialize)]
pub struct OkHeader<'a> {
    pub id: &'a serde_json::Value,
    pub ok: bool,
    #[serde(flatten)]
    pub reply: &'a Reply,
}

#[derive(Debug, Serialize)]
pub struct ErrorBody<'a> {
    pub kind: ErrorKind,
    pub message: &'a str,
}

#[derive(Debug, Serialize)]
pub struct ErrorHeader<'a> {
    pub id: &'a serde_json::Value,
    pub ok: bool,
    pub error: ErrorBody<'a>,
}
