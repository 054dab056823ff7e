//! `info` reflects the RandR monitor layout, including monitors set with xrandr.

use crate::common::{Helper, Xvfb};
use serde_json::json;

#[test]
fn single_screen_reports_one_monitor() {
    let x = Xvfb::start(1280, 800);
    let mut h = Helper::start(&x.display, None);
    let r = h.request(json!({"id": 1, "op": "info"})).header;
    assert_eq!(
        (
            r["width"].as_u64(),
            r["height"].as_u64(),
            r["depth"].as_u64()
        ),
        (Some(1280), Some(800), Some(24))
    );
    let monitors = r["monitors"].as_array().unwrap();
    assert_eq!(monitors.len(), 1, "{r}");
    assert_eq!(
        (monitors[0]["x"].as_i64(), monitors[0]["width"].as_u64()),
        (Some(0), Some(1280))
    );
}

#[test]
fn two_monitors_set_with_xrandr() {
    let x = Xvfb::start(1280, 800);
    // Giving "left" Xvfb's only output replaces the automatic whole-screen monitor.
    x.xrandr(&["--setmonitor", "left", "640/169x800/211+0+0", "screen"]);
    x.xrandr(&["--setmonitor", "right", "640/169x800/211+640+0", "none"]);
    let mut h = Helper::start(&x.display, None);
    let r = h.request(json!({"id": 2, "op": "info"})).header;
    let mut monitors = r["monitors"].as_array().unwrap().clone();
    monitors.sort_by_key(|m| m["x"].as_i64());
    assert_eq!(
        monitors,
        vec![
            json!({"name": "left", "x": 0, "y": 0, "width": 640, "height": 800, "primary": false}),
            json!({"name": "right", "x": 640, "y": 0, "width": 640, "height": 800, "primary": false}),
        ],
        "{r}"
    );
}
