//! Wire types of the capture protocol, shared in spirit with the Node worker
//! (`docs/capture-helper.md` is the reference). Types only: parsing and range checks
//! live in `request.rs`, behaviour in `service/`.

use serde::{Deserialize, Serialize};

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
    Png,
    /// Raw packed RGB8, row-major, no padding.
    Rgb,
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
    pub format: Format,
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

/// The op-specific part of a success header; flattened next to `id` and `ok`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Reply {
    Pong {},
    Info(InfoReply),
    Capture(CaptureReply),
    Compare(CompareReply),
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
