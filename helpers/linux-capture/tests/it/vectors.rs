//! The shared test vectors (packages/helper-protocol/vectors/capture.json) against this
//! helper's own code: its frame reader and request parser accept and refuse exactly what the
//! vectors say (with the id the answer carries), its serializer writes the vectors' response
//! frames byte for byte, its constants are the vectors', and the real binary on an Xvfb
//! answers every vector request and refusal as listed. The TypeScript package and the Python
//! runtime check the same files.

use std::path::PathBuf;

use crate::common::{Helper, Xvfb};
use deskgate_capture::contract::{
    AutoReason, CancelReply, CaptureReply, CompareReply, ErrorBody, ErrorHeader, ErrorKind, Format,
    FrameReply, InfoReply, Monitor, OkHeader, Op, Reply, SettleReply,
};
use deskgate_capture::frame::{read_frame, write_frame, Incoming};
use deskgate_capture::request::{self, parse_request};
use deskgate_capture::slots::MAX_SLOTS;
use serde_json::{json, Value};

fn vectors() -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../packages/helper-protocol/vectors/capture.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).expect("capture.json is JSON")
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn list<'a>(v: &'a Value, key: &str) -> &'a Vec<Value> {
    v[key]
        .as_array()
        .unwrap_or_else(|| panic!("vectors have {key}"))
}

fn name(v: &Value) -> &str {
    v["name"].as_str().unwrap()
}

/// The frame bytes of an invalid vector: its hex, or an oversized frame of spaces.
fn invalid_frame(v: &Value) -> Vec<u8> {
    match v["oversized"].as_u64() {
        Some(n) => {
            let mut f = (n as u32).to_le_bytes().to_vec();
            f.resize(4 + n as usize, b' ');
            f
        }
        None => unhex(v["frame_hex"].as_str().unwrap()),
    }
}

fn op_name(op: &Op) -> &'static str {
    match op {
        Op::Ping => "ping",
        Op::Info => "info",
        Op::Capture(_) => "capture",
        Op::Compare(_) => "compare",
        Op::Settle(_) => "settle",
        Op::Frame(_) => "frame",
        Op::Cancel => "cancel",
    }
}

#[test]
fn constants_are_the_vectors() {
    let v = vectors();
    let c = &v["constants"];
    let ours = json!({
        "max_request_bytes": request::MAX_REQUEST_BYTES,
        "max_scale": request::MAX_SCALE,
        "max_radius": request::MAX_RADIUS,
        "default_radius": request::DEFAULT_RADIUS,
        "default_quality": request::DEFAULT_QUALITY,
        "max_slot_name": request::MAX_SLOT_NAME,
        "max_slots": MAX_SLOTS,
        "min_quiet_ms": request::MIN_QUIET_MS,
        "max_quiet_ms": request::MAX_QUIET_MS,
        "max_settle_ms": request::MAX_SETTLE_MS,
    });
    for (key, value) in ours.as_object().unwrap() {
        assert_eq!(&c[key], value, "constant {key}");
    }
    // The limits kept private in request.rs, by what the parser does at and past them.
    let accepts = |body: Value| parse_request(body.to_string().as_bytes()).is_ok();
    let (min_q, max_q) = (
        c["min_quality"].as_i64().unwrap(),
        c["max_quality"].as_i64().unwrap(),
    );
    for (q, ok) in [
        (min_q, true),
        (max_q, true),
        (min_q - 1, false),
        (max_q + 1, false),
    ] {
        assert_eq!(
            accepts(json!({"op": "capture", "format": "jpeg", "quality": q})),
            ok,
            "quality {q}"
        );
    }
    let m = c["max_coord"].as_i64().unwrap();
    for (x, ok) in [(m, true), (-m, true), (m + 1, false), (-m - 1, false)] {
        let mask = json!([{"x": x, "y": 0, "width": 1, "height": 1}]);
        assert_eq!(
            accepts(json!({"op": "capture", "format": "png", "mask": mask})),
            ok,
            "mask x {x}"
        );
    }
    let kinds: Vec<Value> = [
        ErrorKind::BadRequest,
        ErrorKind::CaptureFailed,
        ErrorKind::NoSnapshot,
        ErrorKind::DisplayError,
    ]
    .iter()
    .map(|k| serde_json::to_value(k).unwrap())
    .collect();
    assert_eq!(&kinds, list(&v, "error_kinds"));
}

#[test]
fn requests_parse_as_the_vectors_say() {
    let v = vectors();
    for r in list(&v, "requests") {
        let bytes = unhex(r["frame_hex"].as_str().unwrap());
        let mut reader = &bytes[..];
        let Incoming::Frame(body) = read_frame(&mut reader, request::MAX_REQUEST_BYTES).unwrap()
        else {
            panic!("{}: not one frame", name(r));
        };
        assert!(reader.is_empty(), "{}: bytes left over", name(r));
        let parsed = parse_request(&body).unwrap_or_else(|e| panic!("{}: {}", name(r), e.message));
        let want_id = r["request"].get("id").cloned().unwrap_or(Value::Null);
        assert_eq!(parsed.id, want_id, "{}", name(r));
        assert_eq!(op_name(&parsed.op), r["request"]["op"], "{}", name(r));
    }
    for r in list(&v, "invalid") {
        let bytes = invalid_frame(r);
        let mut reader = &bytes[..];
        let id = match read_frame(&mut reader, request::MAX_REQUEST_BYTES).unwrap() {
            // The server answers a too-large frame with id null (server.rs).
            Incoming::TooLarge(_) => Value::Null,
            Incoming::Frame(body) => match parse_request(&body) {
                Ok(_) => panic!("{}: accepted", name(r)),
                Err(e) => e.id,
            },
            Incoming::Eof => panic!("{}: no frame", name(r)),
        };
        assert!(reader.is_empty(), "{}: bytes left over", name(r));
        assert_eq!(id, r["id"], "{}", name(r));
        // Every parse refusal is answered bad_request (server.rs).
        assert_eq!(r["kind"], "bad_request", "{}", name(r));
    }
}

fn static_str(s: &str) -> &'static str {
    match s {
        "shm" => "shm",
        "getimage" => "getimage",
        "none" => "none",
        other => panic!("unknown backend {other}"),
    }
}

fn reply_of(op: &str, h: &Value) -> Reply {
    let n = |k: &str| h[k].as_u64().unwrap_or_else(|| panic!("{k}"));
    let f = |k: &str| h[k].as_f64().unwrap_or_else(|| panic!("{k}"));
    let b = |k: &str| h[k].as_bool().unwrap_or_else(|| panic!("{k}"));
    match op {
        "ping" => Reply::Pong {},
        "info" => Reply::Info(InfoReply {
            width: n("width") as u32,
            height: n("height") as u32,
            depth: n("depth") as u8,
            backend: static_str(h["backend"].as_str().unwrap()),
            monitors: h["monitors"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| Monitor {
                    name: m["name"].as_str().unwrap().into(),
                    x: m["x"].as_i64().unwrap() as i32,
                    y: m["y"].as_i64().unwrap() as i32,
                    width: m["width"].as_u64().unwrap() as u32,
                    height: m["height"].as_u64().unwrap() as u32,
                    primary: m["primary"].as_bool().unwrap(),
                })
                .collect(),
        }),
        "capture" => Reply::Capture(CaptureReply {
            width: n("width") as u32,
            height: n("height") as u32,
            format: serde_json::from_value::<Format>(h["format"].clone()).unwrap(),
            auto_reason: h.get("auto_reason").map(|r| match r.as_str().unwrap() {
                "palette" => AutoReason::Palette,
                "near_palette" => AutoReason::NearPalette,
                "colours" => AutoReason::Colours,
                "time" => AutoReason::Time,
                "bytes" => AutoReason::Bytes,
                other => panic!("auto_reason {other}"),
            }),
            backend: static_str(h["backend"].as_str().unwrap()),
            capture_ms: f("capture_ms"),
            convert_ms: f("convert_ms"),
            scale_ms: f("scale_ms"),
            encode_ms: f("encode_ms"),
        }),
        "compare" => Reply::Compare(CompareReply {
            same: b("same"),
            differing: n("differing"),
            compared: n("compared"),
        }),
        "settle" => Reply::Settle(SettleReply {
            settled: b("settled"),
            waited_ms: f("waited_ms"),
            damage_events: n("damage_events"),
            cancelled: b("cancelled"),
        }),
        "frame" => Reply::Frame(FrameReply {
            changed: b("changed"),
            damage_events: n("damage_events"),
            waited_ms: f("waited_ms"),
            frame: if b("changed") {
                match reply_of("capture", h) {
                    Reply::Capture(c) => Some(c),
                    _ => unreachable!(),
                }
            } else {
                None
            },
        }),
        "cancel" => Reply::Cancel(CancelReply {
            cancelled: b("cancelled"),
        }),
        other => panic!("op {other}"),
    }
}

#[test]
fn responses_are_written_byte_for_byte() {
    let v = vectors();
    for r in list(&v, "responses") {
        let h = &r["header"];
        let payload = unhex(r["payload_hex"].as_str().unwrap());
        let header = if h["ok"] == true {
            let reply = reply_of(r["op"].as_str().unwrap(), h);
            serde_json::to_vec(&OkHeader {
                id: &h["id"],
                ok: true,
                reply: &reply,
            })
        } else {
            let kind = match h["error"]["kind"].as_str().unwrap() {
                "bad_request" => ErrorKind::BadRequest,
                "capture_failed" => ErrorKind::CaptureFailed,
                "no_snapshot" => ErrorKind::NoSnapshot,
                "display_error" => ErrorKind::DisplayError,
                other => panic!("kind {other}"),
            };
            serde_json::to_vec(&ErrorHeader {
                id: &h["id"],
                ok: false,
                error: ErrorBody {
                    kind,
                    message: h["error"]["message"].as_str().unwrap(),
                },
            })
        }
        .unwrap();
        let mut frame = Vec::new();
        write_frame(&mut frame, &header, &payload).unwrap();
        assert_eq!(hex(&frame), r["frame_hex"], "{}", name(r));
    }
}

/// The JSON type of each field, to compare a live answer with a vector response's shape.
fn shape(h: &Value) -> Vec<(String, &'static str)> {
    let mut out: Vec<_> = h
        .as_object()
        .unwrap()
        .iter()
        .filter(|(k, _)| *k != "auto_reason")
        .map(|(k, v)| {
            let t = match v {
                Value::Null => "null",
                Value::Bool(_) => "bool",
                Value::Number(_) => "number",
                Value::String(_) => "string",
                Value::Array(_) => "array",
                Value::Object(_) => "object",
            };
            (k.clone(), if k == "id" { "id" } else { t })
        })
        .collect();
    out.sort();
    out
}

#[test]
fn the_binary_answers_as_the_vectors_say() {
    let v = vectors();
    let screen = &v["screen"];
    let x = Xvfb::start(
        screen["width"].as_u64().unwrap() as u32,
        screen["height"].as_u64().unwrap() as u32,
    );
    let mut h = Helper::start(&x.display, None);
    let responses = list(&v, "responses");
    for r in list(&v, "requests") {
        let bytes = unhex(r["frame_hex"].as_str().unwrap());
        h.send_raw(&bytes[4..]);
        let answer = h.receive();
        let want_id = r["request"].get("id").cloned().unwrap_or(Value::Null);
        assert_eq!(answer.header["id"], want_id, "{}", name(r));
        if r["answer"] == "ok" {
            assert_eq!(answer.header["ok"], true, "{}: {}", name(r), answer.header);
            let op = &r["request"]["op"];
            let like = responses
                .iter()
                .find(|x| &x["op"] == op && x["header"]["ok"] == true)
                .unwrap_or_else(|| panic!("no response vector for {op}"));
            assert_eq!(shape(&answer.header), shape(&like["header"]), "{}", name(r));
        } else {
            assert_eq!(
                answer.header["error"]["kind"],
                r["answer"],
                "{}: {}",
                name(r),
                answer.header
            );
        }
    }
    for r in list(&v, "invalid") {
        let bytes = invalid_frame(r);
        h.send_raw(&bytes[4..]);
        let answer = h.receive();
        assert_eq!(
            answer.header["id"],
            r["id"],
            "{}: {}",
            name(r),
            answer.header
        );
        assert_eq!(
            answer.header["error"]["kind"],
            r["kind"],
            "{}: {}",
            name(r),
            answer.header
        );
        assert!(answer.payload.is_empty());
    }
    assert_eq!(
        h.request(json!({"id": "end", "op": "ping"})).header,
        json!({"id": "end", "ok": true})
    );
    assert!(h.finish().success());
}
