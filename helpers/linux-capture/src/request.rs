//! Turns one request frame into a checked `Request`. Pure: everything that does not
//! depend on the live screen is validated here, so the service only checks bounds.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::contract::{
    CaptureRequest, CompareRequest, FrameRequest, NoArgs, Op, Rect, Request, SettleRequest,
};

/// Largest request body accepted; bigger frames are skipped and answered `bad_request`.
pub const MAX_REQUEST_BYTES: usize = 65536;
pub const MAX_SCALE: u32 = 8192;
pub const MAX_RADIUS: u32 = 32;
pub const DEFAULT_RADIUS: u32 = 4;
pub const DEFAULT_QUALITY: u32 = 75;
pub const MAX_SLOT_NAME: usize = 64;
/// `settle` bounds: quiet_ms in 10–2000, max_ms in quiet_ms–30000.
pub const MIN_QUIET_MS: u32 = 10;
pub const MAX_QUIET_MS: u32 = 2000;
pub const MAX_SETTLE_MS: u32 = 30_000;
/// Masks are window rectangles; anything beyond X's 16-bit coordinate space is a bug.
const MAX_COORD: i64 = 1 << 16;

/// Why a frame was refused, with whatever `id` could be recovered (null otherwise).
#[derive(Debug, Clone, PartialEq)]
pub struct RequestError {
    pub id: Value,
    pub message: String,
}

pub fn parse_request(bytes: &[u8]) -> Result<Request, RequestError> {
    let fail = |id: &Value, message: String| RequestError {
        id: id.clone(),
        message,
    };
    let text = std::str::from_utf8(bytes)
        .map_err(|e| fail(&Value::Null, format!("request is not valid UTF-8: {e}")))?;
    let value: Value = serde_json::from_str(text)
        .map_err(|e| fail(&Value::Null, format!("request is not valid JSON: {e}")))?;
    let Value::Object(mut fields) = value else {
        return Err(fail(&Value::Null, "request must be a JSON object".into()));
    };
    let id = fields.remove("id").unwrap_or(Value::Null);
    let op = match fields.remove("op") {
        Some(Value::String(op)) => op,
        Some(_) => return Err(fail(&id, "\"op\" must be a string".into())),
        None => {
            return Err(fail(
                &id,
                "missing \"op\" (ping, info, capture, compare, settle, frame or cancel)".into(),
            ))
        }
    };
    let op = parse_op(&op, fields).map_err(|message| fail(&id, message))?;
    Ok(Request { id, op })
}

fn parse_op(op: &str, fields: Map<String, Value>) -> Result<Op, String> {
    match op {
        "ping" => args::<NoArgs>(op, fields).map(|_| Op::Ping),
        "info" => args::<NoArgs>(op, fields).map(|_| Op::Info),
        "capture" => {
            let req = args::<CaptureRequest>(op, fields)?;
            check_capture(&req)?;
            Ok(Op::Capture(req))
        }
        "compare" => {
            let req = args::<CompareRequest>(op, fields)?;
            check_compare(&req)?;
            Ok(Op::Compare(req))
        }
        "settle" => {
            let req = args::<SettleRequest>(op, fields)?;
            check_settle(&req)?;
            Ok(Op::Settle(req))
        }
        "frame" => {
            let req = args::<FrameRequest>(op, fields)?;
            check_frame(&req)?;
            Ok(Op::Frame(req))
        }
        "cancel" => args::<NoArgs>(op, fields).map(|_| Op::Cancel),
        other => Err(format!(
            "unknown op {other:?} (expected ping, info, capture, compare, settle, frame or cancel)"
        )),
    }
}

fn args<T: DeserializeOwned>(op: &str, fields: Map<String, Value>) -> Result<T, String> {
    serde_json::from_value(Value::Object(fields)).map_err(|e| format!("bad {op} request: {e}"))
}

fn check_capture(req: &CaptureRequest) -> Result<(), String> {
    if let Some(r) = req.region {
        if r.x < 0 || r.y < 0 {
            return Err(format!(
                "region origin ({}, {}) must not be negative",
                r.x, r.y
            ));
        }
        check_size("region", r.width, r.height, u32::MAX)?;
    }
    if let Some(s) = req.scale_to {
        check_size("scale_to", s.width, s.height, MAX_SCALE)?;
    }
    if let Some(q) = req.quality {
        if !(1..=100).contains(&q) {
            return Err(format!("quality {q} is out of range 1-100"));
        }
    }
    for (i, m) in req.mask.iter().enumerate() {
        check_mask(i, m)?;
    }
    if let Some(name) = &req.keep {
        check_slot_name("keep", name)?;
    }
    Ok(())
}

fn check_compare(req: &CompareRequest) -> Result<(), String> {
    check_slot_name("slot", &req.slot)?;
    if let Some(r) = req.radius {
        if r > MAX_RADIUS {
            return Err(format!("radius {r} is out of range 0-{MAX_RADIUS}"));
        }
    }
    Ok(())
}

fn check_settle(req: &SettleRequest) -> Result<(), String> {
    let SettleRequest {
        quiet_ms,
        max_ms,
        react_quiet_ms,
        since_ms,
    } = *req;
    if let Some(react) = react_quiet_ms {
        if !(quiet_ms..=max_ms).contains(&react) {
            return Err(format!(
                "react_quiet_ms {react} is out of range {quiet_ms}-{max_ms} (quiet_ms-max_ms)"
            ));
        }
    }
    if since_ms > MAX_SETTLE_MS {
        return Err(format!(
            "since_ms {since_ms} is out of range 0-{MAX_SETTLE_MS}"
        ));
    }
    if !(MIN_QUIET_MS..=MAX_QUIET_MS).contains(&quiet_ms) {
        return Err(format!(
            "quiet_ms {quiet_ms} is out of range {MIN_QUIET_MS}-{MAX_QUIET_MS}"
        ));
    }
    if !(quiet_ms..=MAX_SETTLE_MS).contains(&max_ms) {
        return Err(format!(
            "max_ms {max_ms} is out of range {quiet_ms}-{MAX_SETTLE_MS} (quiet_ms-{MAX_SETTLE_MS})"
        ));
    }
    Ok(())
}

fn check_frame(req: &FrameRequest) -> Result<(), String> {
    // 0 answers at once: a frame if the screen changed past `after`, else none.
    if req.max_ms > MAX_SETTLE_MS {
        return Err(format!(
            "max_ms {} is out of range 0-{MAX_SETTLE_MS}",
            req.max_ms
        ));
    }
    if let Some(s) = req.scale_to {
        check_size("scale_to", s.width, s.height, MAX_SCALE)?;
    }
    if let Some(q) = req.quality {
        if !(1..=100).contains(&q) {
            return Err(format!("quality {q} is out of range 1-100"));
        }
    }
    Ok(())
}

fn check_size(what: &str, width: u32, height: u32, max: u32) -> Result<(), String> {
    if width == 0 || height == 0 || width > max || height > max {
        return Err(format!(
            "{what} size {width}x{height} is out of range (each side 1-{max})"
        ));
    }
    Ok(())
}

fn check_mask(index: usize, m: &Rect) -> Result<(), String> {
    let in_range = |v: i64| (-MAX_COORD..=MAX_COORD).contains(&v);
    let ok = m.width >= 1
        && m.height >= 1
        && in_range(m.x.into())
        && in_range(m.y.into())
        && in_range(m.width.into())
        && in_range(m.height.into());
    if ok {
        Ok(())
    } else {
        Err(format!(
            "mask[{index}] {}x{}+{}+{} is out of range (sides >= 1, coordinates within ±{MAX_COORD})",
            m.width, m.height, m.x, m.y
        ))
    }
}

fn check_slot_name(field: &str, name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > MAX_SLOT_NAME {
        return Err(format!(
            "{field} slot name must be 1-{MAX_SLOT_NAME} bytes, got {}",
            name.len()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
