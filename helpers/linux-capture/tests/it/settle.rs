//! `settle` against a real Xvfb: a still screen answers after quiet_ms, a redraw delays the
//! answer until it stops, max_ms bounds an endless animation, and `cancel` ends a wait.
//! Lower bounds are exact (never answered early); upper bounds allow for a loaded machine.

use std::time::{Duration, Instant};

use crate::common::{Animation, Helper, Xvfb};
use serde_json::json;

/// Allowed lateness of an answer (thread wake-ups, a busy CI host).
const SLACK_MS: f64 = 250.0;

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn settle(h: &mut Helper, id: u32, quiet_ms: u32, max_ms: u32) -> serde_json::Value {
    let r = h.request(json!({"id": id, "op": "settle", "quiet_ms": quiet_ms, "max_ms": max_ms}));
    assert_eq!(r.header["ok"], true, "{}", r.header);
    assert!(r.payload.is_empty());
    r.header
}

#[test]
fn a_still_screen_settles_after_quiet_ms() {
    let x = Xvfb::start(320, 240);
    x.window(10, 10, 50, 50, 0x336699);
    let mut h = Helper::start(&x.display, None);
    assert_eq!(h.request(json!({"id": 1, "op": "ping"})).header["ok"], true);
    // On a busy machine the window's first paint can land after the helper starts: wait it
    // out, so the screen is still when the measured settle begins.
    settle(&mut h, 2, 200, 5000);
    let sent = Instant::now();
    let r = settle(&mut h, 3, 100, 2000);
    let took = ms(sent.elapsed());
    assert_eq!(
        (r["settled"].as_bool(), r["cancelled"].as_bool()),
        (Some(true), Some(false)),
        "{r}"
    );
    assert_eq!(r["damage_events"], 0, "{r}");
    let waited = r["waited_ms"].as_f64().unwrap();
    assert!((100.0..100.0 + SLACK_MS).contains(&waited), "{r}");
    assert!(took >= 100.0, "answered after {took} ms");
}

#[test]
fn a_redraw_delays_the_answer_until_it_stops() {
    let x = Xvfb::start(320, 240);
    let mut h = Helper::start(&x.display, None);
    assert_eq!(h.request(json!({"id": 1, "op": "ping"})).header["ok"], true);
    // Repaint every 20 ms for 300 ms, starting just before the request.
    let animation = Animation::start(
        &x.display,
        Duration::from_millis(20),
        Some(Duration::from_millis(300)),
    );
    let sent = Instant::now();
    let r = settle(&mut h, 2, 100, 5000);
    let answered = Instant::now();
    let (last_frame, frames) = animation.finish();
    assert_eq!(r["settled"], true, "{r}");
    assert!(frames >= 5, "only {frames} frames drawn");
    // Never before quiet_ms after the last repaint (1 ms for the damage thread's clock
    // reading preceding the animation's own).
    let after_last = ms(answered.duration_since(last_frame));
    assert!(
        after_last >= 99.0,
        "answered {after_last} ms after the last frame: {r}"
    );
    assert!(
        ms(answered.duration_since(sent)) < ms(last_frame.duration_since(sent)) + 100.0 + SLACK_MS,
        "answered long after the redraw stopped: {r}"
    );
    let events = r["damage_events"].as_u64().unwrap();
    assert!(
        events >= 5,
        "{events} damage events for {frames} frames: {r}"
    );
}

#[test]
fn max_ms_bounds_an_endless_animation() {
    let x = Xvfb::start(320, 240);
    let mut h = Helper::start(&x.display, None);
    let _animation = Animation::start(&x.display, Duration::from_millis(20), None);
    let r = settle(&mut h, 1, 100, 500);
    assert_eq!(
        (r["settled"].as_bool(), r["cancelled"].as_bool()),
        (Some(false), Some(false)),
        "{r}"
    );
    let waited = r["waited_ms"].as_f64().unwrap();
    assert!((500.0..500.0 + SLACK_MS).contains(&waited), "{r}");
    assert!(r["damage_events"].as_u64().unwrap() >= 10, "{r}");
}

#[test]
fn cancel_ends_a_wait_and_replies_stay_in_order() {
    let x = Xvfb::start(320, 240);
    let mut h = Helper::start(&x.display, None);
    let _animation = Animation::start(&x.display, Duration::from_millis(20), None);
    h.send_raw(br#"{"id":1,"op":"settle","quiet_ms":100,"max_ms":20000}"#);
    h.send_raw(br#"{"id":2,"op":"ping"}"#);
    std::thread::sleep(Duration::from_millis(150));
    h.send_raw(br#"{"id":3,"op":"cancel"}"#);
    let r = h.receive().header;
    assert_eq!(r["id"], 1);
    assert_eq!(
        (r["settled"].as_bool(), r["cancelled"].as_bool()),
        (Some(false), Some(true)),
        "{r}"
    );
    assert!(r["waited_ms"].as_f64().unwrap() < 5000.0, "{r}");
    assert_eq!(h.receive().header, json!({"id": 2, "ok": true}));
    assert_eq!(
        h.receive().header,
        json!({"id": 3, "ok": true, "cancelled": true})
    );
    // Nothing to cancel now.
    let r = h.request(json!({"id": 4, "op": "cancel"}));
    assert_eq!(r.header, json!({"id": 4, "ok": true, "cancelled": false}));
}

#[test]
fn a_cancel_sent_right_behind_the_settle_ends_it() {
    let x = Xvfb::start(320, 240);
    let mut h = Helper::start(&x.display, None);
    h.send_raw(br#"{"id":1,"op":"settle","quiet_ms":2000,"max_ms":2000}"#);
    h.send_raw(br#"{"id":2,"op":"cancel"}"#);
    let r = h.receive().header;
    assert_eq!(
        (r["id"].as_u64(), r["cancelled"].as_bool()),
        (Some(1), Some(true)),
        "{r}"
    );
    assert!(r["waited_ms"].as_f64().unwrap() < 1000.0, "{r}");
    assert_eq!(h.receive().header["cancelled"], true);
}

#[test]
fn settle_bounds_are_checked() {
    let x = Xvfb::start(320, 240);
    let mut h = Helper::start(&x.display, None);
    let bad = [
        (
            json!({"id": 1, "op": "settle", "quiet_ms": 9, "max_ms": 100}),
            "quiet_ms 9",
        ),
        (
            json!({"id": 2, "op": "settle", "quiet_ms": 2001, "max_ms": 3000}),
            "quiet_ms 2001",
        ),
        (
            json!({"id": 3, "op": "settle", "quiet_ms": 100, "max_ms": 99}),
            "max_ms 99",
        ),
        (
            json!({"id": 4, "op": "settle", "quiet_ms": 100, "max_ms": 30001}),
            "max_ms 30001",
        ),
        (
            json!({"id": 5, "op": "settle", "quiet_ms": 100}),
            "missing field `max_ms`",
        ),
        (
            json!({"id": 6, "op": "settle", "quiet_ms": 100, "max_ms": 200, "x": 1}),
            "unknown field `x`",
        ),
        (
            json!({"id": 7, "op": "cancel", "id2": 1}),
            "unknown field `id2`",
        ),
    ];
    for (request, needle) in bad {
        let r = h.request(request.clone()).header;
        assert_eq!(r["error"]["kind"], "bad_request", "{request} → {r}");
        let message = r["error"]["message"].as_str().unwrap();
        assert!(
            message.contains(needle),
            "{request}: {message:?} lacks {needle:?}"
        );
    }
    // The edges are accepted (answered, not refused). Whether a 10 ms quiet window fits in a
    // 10 ms bound depends on the machine's load, so only the answer's shape is checked.
    assert!(settle(&mut h, 8, 10, 10)["settled"].is_boolean());
}
