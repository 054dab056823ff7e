use serde_json::json;

use super::*;
use crate::contract::{Format, Size};

fn parse(v: serde_json::Value) -> Result<Request, RequestError> {
    parse_request(v.to_string().as_bytes())
}

fn err(v: serde_json::Value) -> RequestError {
    parse(v).expect_err("should be refused")
}

#[test]
fn parses_ping_and_info_and_echoes_id() {
    let r = parse(json!({"id": 1, "op": "ping"})).unwrap();
    assert_eq!(
        r,
        Request {
            id: json!(1),
            op: Op::Ping
        }
    );
    let r = parse(json!({"id": "abc", "op": "info"})).unwrap();
    assert_eq!(r.id, json!("abc"));
    assert_eq!(r.op, Op::Info);
}

#[test]
fn parses_full_capture() {
    let r = parse(json!({
        "id": 3, "op": "capture",
        "region": {"x": 10, "y": 20, "width": 300, "height": 200},
        "scale_to": {"width": 150, "height": 100},
        "format": "png", "quality": 90,
        "mask": [{"x": -5, "y": 0, "width": 10, "height": 10}],
        "keep": "before"
    }))
    .unwrap();
    let Op::Capture(c) = r.op else {
        panic!("not a capture")
    };
    assert_eq!(
        c.region,
        Some(Rect {
            x: 10,
            y: 20,
            width: 300,
            height: 200
        })
    );
    assert_eq!(
        c.scale_to,
        Some(Size {
            width: 150,
            height: 100
        })
    );
    assert_eq!(c.format, Format::Png);
    assert_eq!(c.quality, Some(90));
    assert_eq!(c.mask.len(), 1);
    assert_eq!(c.keep.as_deref(), Some("before"));
}

#[test]
fn capture_defaults() {
    let Op::Capture(c) = parse(json!({"id": 1, "op": "capture", "format": "rgb"}))
        .unwrap()
        .op
    else {
        panic!("not a capture")
    };
    assert_eq!(
        (c.region, c.scale_to, c.quality, c.keep),
        (None, None, None, None)
    );
    assert!(c.mask.is_empty());
}

#[test]
fn parses_compare() {
    let r = parse(json!({"id": 4, "op": "compare", "slot": "s", "x": 5, "y": 6})).unwrap();
    let Op::Compare(c) = r.op else {
        panic!("not a compare")
    };
    assert_eq!((c.slot.as_str(), c.x, c.y, c.radius), ("s", 5, 6, None));
}

#[test]
fn malformed_frames_have_null_id() {
    for bytes in [&b"{not json"[..], b"\xff\xfe", b"[1,2]", b"42"] {
        let e = parse_request(bytes).unwrap_err();
        assert_eq!(e.id, serde_json::Value::Null, "{bytes:?}");
    }
}

#[test]
fn refusals_keep_the_id_and_say_why() {
    let cases = [
        (json!({"id": 7}), "missing \"op\""),
        (json!({"id": 7, "op": 3}), "must be a string"),
        (json!({"id": 7, "op": "explode"}), "unknown op \"explode\""),
        (
            json!({"id": 7, "op": "ping", "extra": 1}),
            "unknown field `extra`",
        ),
        (json!({"id": 7, "op": "capture"}), "missing field `format`"),
        (
            json!({"id": 7, "op": "capture", "format": "gif"}),
            "unknown variant `gif`",
        ),
        (
            json!({"id": 7, "op": "capture", "format": "jpeg", "quality": 0}),
            "quality 0",
        ),
        (
            json!({"id": 7, "op": "capture", "format": "jpeg", "quality": 101}),
            "quality 101",
        ),
        (
            json!({"id": 7, "op": "capture", "format": "jpeg", "scale_to": {"width": 8193, "height": 10}}),
            "scale_to size 8193x10",
        ),
        (
            json!({"id": 7, "op": "capture", "format": "jpeg", "region": {"x": 0, "y": 0, "width": 0, "height": 10}}),
            "region size 0x10",
        ),
        (
            json!({"id": 7, "op": "capture", "format": "jpeg", "region": {"x": -1, "y": 0, "width": 5, "height": 10}}),
            "must not be negative",
        ),
        (
            json!({"id": 7, "op": "capture", "format": "jpeg", "region": {"x": 0, "y": 0, "width": -5, "height": 10}}),
            "expected u32",
        ),
        (
            json!({"id": 7, "op": "capture", "format": "jpeg", "mask": [{"x": 0, "y": 0, "width": 0, "height": 1}]}),
            "mask[0]",
        ),
        (
            json!({"id": 7, "op": "capture", "format": "jpeg", "keep": ""}),
            "keep slot name",
        ),
        (
            json!({"id": 7, "op": "compare", "slot": "s", "x": 1, "y": 1, "radius": 33}),
            "radius 33",
        ),
        (
            json!({"id": 7, "op": "compare", "x": 1, "y": 1}),
            "missing field `slot`",
        ),
    ];
    for (request, needle) in cases {
        let e = err(request.clone());
        assert_eq!(e.id, json!(7), "{request}");
        assert!(
            e.message.contains(needle),
            "{request}: {:?} lacks {needle:?}",
            e.message
        );
    }
}
