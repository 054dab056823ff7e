//! The staleness guard against a real Xvfb: kept pixels vs a live patch.

use crate::common::{Helper, Xvfb};
use serde_json::{json, Value};

fn compare(h: &mut Helper, slot: &str, x: i32, y: i32) -> Value {
    h.request(json!({"id": "c", "op": "compare", "slot": slot, "x": x, "y": y}))
        .header
}

#[test]
fn detects_a_change_and_only_there() {
    let x = Xvfb::start(1280, 800);
    let red = x.window(0, 0, 200, 200, 0xff0000);
    x.window(200, 0, 200, 200, 0x00ff00);
    let mut h = Helper::start(&x.display, None);
    let kept = h.request(
        json!({"id": 1, "op": "capture", "format": "jpeg", "keep": "s1",
        "scale_to": {"width": 640, "height": 400}}),
    );
    assert_eq!(kept.header["ok"], true, "{}", kept.header);

    let c = compare(&mut h, "s1", 100, 100);
    assert_eq!(
        c,
        json!({"id": "c", "ok": true, "same": true, "differing": 0, "compared": 81})
    );

    x.recolor(red, 0xffff00);
    let c = compare(&mut h, "s1", 100, 100);
    assert_eq!(
        (
            c["same"].as_bool(),
            c["differing"].as_u64(),
            c["compared"].as_u64()
        ),
        (Some(false), Some(81), Some(81)),
        "{c}"
    );
    assert_eq!(
        compare(&mut h, "s1", 300, 100)["same"],
        true,
        "green untouched"
    );

    // Patch straddling the edge: only the red side differs.
    let c = h
        .request(json!({"id": 2, "op": "compare", "slot": "s1", "x": 200, "y": 100, "radius": 2}))
        .header;
    assert_eq!(
        (c["differing"].as_u64(), c["compared"].as_u64()),
        (Some(10), Some(25)),
        "{c}"
    );

    // Radius 0 compares one pixel; at the screen corner the patch is clipped.
    let c = h
        .request(json!({"id": 3, "op": "compare", "slot": "s1", "x": 0, "y": 0, "radius": 0}))
        .header;
    assert_eq!(c["compared"], 1);
    let c = h
        .request(json!({"id": 4, "op": "compare", "slot": "s1", "x": 1279, "y": 799}))
        .header;
    assert_eq!(c["compared"], 25, "{c}");

    // Re-keeping the slot makes the new colour the reference.
    h.request(json!({"id": 5, "op": "capture", "format": "png", "keep": "s1"}));
    assert_eq!(compare(&mut h, "s1", 100, 100)["same"], true);
}

#[test]
fn masked_windows_never_count_as_change() {
    let x = Xvfb::start(1280, 800);
    let secret = x.window(0, 0, 200, 200, 0xff0000);
    let mut h = Helper::start(&x.display, None);
    h.request(
        json!({"id": 1, "op": "capture", "format": "rgb", "keep": "m",
        "mask": [{"x": 0, "y": 0, "width": 200, "height": 200}]}),
    );
    x.recolor(secret, 0x0000ff);
    let c = h
        .request(json!({"id": 2, "op": "compare", "slot": "m", "x": 199, "y": 100}))
        .header;
    assert_eq!(
        (c["same"].as_bool(), c["compared"].as_u64()),
        (Some(true), Some(81)),
        "{c}"
    );
}

#[test]
fn slot_region_bounds_and_unknown_slots() {
    let x = Xvfb::start(1280, 800);
    let mut h = Helper::start(&x.display, None);
    h.request(
        json!({"id": 1, "op": "capture", "format": "png", "keep": "r",
        "region": {"x": 100, "y": 100, "width": 50, "height": 50}}),
    );

    let c = compare(&mut h, "r", 120, 120);
    assert_eq!(
        (c["same"].as_bool(), c["compared"].as_u64()),
        (Some(true), Some(81))
    );
    // Near the region's corner the patch is clipped to the region.
    assert_eq!(compare(&mut h, "r", 100, 100)["compared"], 25);

    let c = compare(&mut h, "r", 99, 120);
    assert_eq!(c["error"]["kind"], "bad_request", "{c}");
    assert!(
        c["error"]["message"]
            .as_str()
            .unwrap()
            .contains("outside slot"),
        "{c}"
    );

    let c = compare(&mut h, "nope", 120, 120);
    assert_eq!(
        (c["ok"].as_bool(), c["error"]["kind"].as_str()),
        (Some(false), Some("no_snapshot")),
        "{c}"
    );
}
