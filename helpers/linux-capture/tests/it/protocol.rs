//! Protocol robustness through the real binary: refusals are answered, in order, and
//! the helper keeps serving; display failures are reported, never a crash.

use crate::common::{Helper, Xvfb};
use serde_json::json;

#[test]
fn bad_requests_get_bad_request_and_serving_continues() {
    let x = Xvfb::start(640, 480);
    let mut h = Helper::start(&x.display, None);
    assert_eq!(
        h.request(json!({"id": 1, "op": "ping"})).header,
        json!({"id": 1, "ok": true})
    );

    let bad = [
        json!({"id": 2, "op": "explode"}),
        json!({"id": 3, "op": "capture", "format": "bmp"}),
        json!({"id": 4, "op": "capture", "format": "png", "region": {"x": 600, "y": 0, "width": 100, "height": 10}}),
        json!({"id": 5, "op": "capture", "format": "png", "scale_to": {"width": 9000, "height": 10}}),
        json!({"id": 6, "op": "capture", "format": "jpeg", "quality": 0}),
        json!({"id": 7, "op": "compare", "slot": "s", "x": 1, "y": 1, "radius": 99}),
        json!({"id": 8, "op": "info", "verbose": true}),
    ];
    for request in bad {
        let r = h.request(request.clone());
        assert_eq!(r.header["id"], request["id"], "{}", r.header);
        assert_eq!(r.header["ok"], false);
        assert_eq!(
            r.header["error"]["kind"], "bad_request",
            "{request} → {}",
            r.header
        );
        assert!(r.header["error"]["message"]
            .as_str()
            .is_some_and(|m| m.len() > 10));
        assert!(r.payload.is_empty());
    }
    let r = h.request(json!({"id": 4, "op": "capture", "format": "png", "region": {"x": 600, "y": 0, "width": 100, "height": 10}}));
    assert!(
        r.header["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not inside the 640x480 screen"),
        "{}",
        r.header
    );

    // Unparseable frames are answered with id null.
    h.send_raw(b"{this is not json");
    let r = h.receive();
    assert_eq!(
        (r.header["id"].is_null(), r.header["error"]["kind"].as_str()),
        (true, Some("bad_request"))
    );

    // An oversized frame is skipped whole; the next one is served normally.
    h.send_raw(&vec![b' '; 70_000]);
    let r = h.receive();
    assert_eq!(r.header["error"]["kind"], "bad_request");
    assert!(
        r.header["error"]["message"]
            .as_str()
            .unwrap()
            .contains("70000"),
        "{}",
        r.header
    );

    assert_eq!(
        h.request(json!({"id": "last", "op": "ping"})).header,
        json!({"id": "last", "ok": true})
    );
    assert!(h.finish().success());
}

#[test]
fn lost_x_connection_is_display_error() {
    let mut x = Xvfb::start(640, 480);
    let mut h = Helper::start(&x.display, None);
    assert_eq!(
        h.request(json!({"id": 1, "op": "capture", "format": "png"}))
            .header["ok"],
        true
    );
    x.kill();
    for (id, op) in [
        (2, json!({"id": 2, "op": "capture", "format": "png"})),
        (3, json!({"id": 3, "op": "info"})),
    ] {
        let r = h.request(op);
        assert_eq!(r.header["id"], id);
        assert_eq!(r.header["error"]["kind"], "display_error", "{}", r.header);
    }
    assert!(h.finish().success());
}

#[test]
fn unreachable_display_is_display_error() {
    let mut h = Helper::start(":4999", None);
    let r = h.request(json!({"id": 1, "op": "info"}));
    assert_eq!(r.header["error"]["kind"], "display_error", "{}", r.header);
    assert!(
        r.header["error"]["message"]
            .as_str()
            .unwrap()
            .contains(":4999"),
        "{}",
        r.header
    );
    assert!(h.finish().success());
}
