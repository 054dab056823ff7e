//! Capture against a real Xvfb: colours survive every format and both backends, and
//! region, scale_to and mask do what the protocol says.

use crate::common::{assert_near, decode, pixel, Helper, Xvfb};
use serde_json::json;

/// Known windows: (x, y, colour). Each is 200x200.
const SCENE: [(i16, i16, u32); 5] = [
    (0, 0, 0xff0000),
    (200, 0, 0x00ff00),
    (400, 0, 0x0000ff),
    (600, 0, 0xffffff),
    (0, 200, 0x123456),
];

fn rgb_of(c: u32) -> [u8; 3] {
    [(c >> 16) as u8, (c >> 8) as u8, c as u8]
}

fn scene() -> Xvfb {
    let x = Xvfb::start(1280, 800);
    for (wx, wy, c) in SCENE {
        x.window(wx, wy, 200, 200, c);
    }
    x
}

fn check_colours(backend: Option<&str>, expect_backend: &str) {
    let x = scene();
    let mut h = Helper::start(&x.display, backend);
    let info = h.request(json!({"id": 1, "op": "info"}));
    assert_eq!(info.header["backend"], expect_backend, "{}", info.header);

    // (requested, answered, tolerance): auto picks indexed PNG for this few-colour scene.
    let formats = [
        ("rgb", "rgb", 0),
        ("png", "png", 0),
        ("jpeg", "jpeg", 12),
        ("webp", "webp", 0),
        ("auto", "png", 0),
    ];
    for (requested, format, tolerance) in formats {
        let r = h.request(json!({"id": requested, "op": "capture", "format": requested}));
        let hd = &r.header;
        assert_eq!(
            (hd["id"].as_str(), hd["ok"].as_bool()),
            (Some(requested), Some(true)),
            "{hd}"
        );
        assert_eq!(
            (hd["width"].as_u64(), hd["height"].as_u64()),
            (Some(1280), Some(800))
        );
        assert_eq!(hd["backend"], expect_backend);
        assert_eq!(hd["format"], format);
        assert_eq!(
            hd["auto_reason"].as_str(),
            (requested == "auto").then_some("palette")
        );
        for key in ["capture_ms", "convert_ms", "scale_ms", "encode_ms"] {
            assert!(hd[key].as_f64().is_some(), "{key} missing: {hd}");
        }
        let (w, hgt, px) = if format == "rgb" {
            (1280, 800, r.payload.clone())
        } else {
            decode(format, &r.payload)
        };
        assert_eq!((w, hgt), (1280, 800));
        assert_eq!(px.len(), 1280 * 800 * 3);
        for (wx, wy, c) in SCENE {
            let got = pixel(&px, w, wx as u32 + 100, wy as u32 + 100);
            assert_near(
                got,
                rgb_of(c),
                tolerance,
                &format!("{format} window {c:06x} via {expect_backend}"),
            );
        }
    }
    assert!(h.finish().success(), "exits cleanly on stdin EOF");
}

#[test]
fn colours_are_right_with_shm() {
    check_colours(None, "shm");
}

#[test]
fn colours_are_right_with_getimage() {
    check_colours(Some("getimage"), "getimage");
}

#[test]
fn region_and_scale_to() {
    let x = scene();
    let mut h = Helper::start(&x.display, None);
    // 100x100 straddling red (x < 200) and green; scaled down 2x.
    let r = h.request(json!({
        "id": 5, "op": "capture", "format": "png",
        "region": {"x": 150, "y": 50, "width": 100, "height": 100},
        "scale_to": {"width": 50, "height": 50}
    }));
    assert_eq!(
        (r.header["width"].as_u64(), r.header["height"].as_u64()),
        (Some(50), Some(50)),
        "{}",
        r.header
    );
    let (w, hgt, px) = decode("png", &r.payload);
    assert_eq!((w, hgt), (50, 50));
    assert_near(
        pixel(&px, w, 5, 25),
        [255, 0, 0],
        0,
        "left of scaled region",
    );
    assert_near(
        pixel(&px, w, 45, 25),
        [0, 255, 0],
        0,
        "right of scaled region",
    );

    // Unscaled region, raw RGB: exact bytes, exact size.
    let r = h.request(json!({"id": 6, "op": "capture", "format": "rgb",
        "region": {"x": 390, "y": 10, "width": 20, "height": 10}}));
    assert_eq!(r.payload.len(), 20 * 10 * 3);
    assert_eq!(pixel(&r.payload, 20, 0, 0), [0, 255, 0]);
    assert_eq!(pixel(&r.payload, 20, 19, 9), [0, 0, 255]);

    // Upscaling works too, as long as each side stays within 8192.
    let r = h.request(json!({"id": 7, "op": "capture", "format": "jpeg", "scale_to": {"width": 2560, "height": 1600}}));
    let (w, hgt, _) = decode("jpeg", &r.payload);
    assert_eq!((w, hgt), (2560, 1600));
}

#[test]
fn mask_blacks_out_before_scaling() {
    let x = scene();
    let mut h = Helper::start(&x.display, None);
    // Mask the middle of the red window in root coordinates; region starts at 0,0.
    let r = h.request(json!({
        "id": 8, "op": "capture", "format": "rgb",
        "region": {"x": 0, "y": 0, "width": 400, "height": 200},
        "mask": [{"x": 50, "y": 50, "width": 100, "height": 100}, {"x": 390, "y": -20, "width": 50, "height": 40}]
    }));
    let px = &r.payload;
    assert_eq!(pixel(px, 400, 100, 100), [0, 0, 0], "masked red");
    assert_eq!(pixel(px, 400, 10, 10), [255, 0, 0], "unmasked red");
    assert_eq!(
        pixel(px, 400, 395, 5),
        [0, 0, 0],
        "mask hanging off the top edge"
    );
    assert_eq!(pixel(px, 400, 385, 5), [0, 255, 0], "left of that mask");

    // Scaled 2x down: the masked block stays black in the middle.
    let r = h.request(json!({
        "id": 9, "op": "capture", "format": "png",
        "region": {"x": 0, "y": 0, "width": 200, "height": 200},
        "scale_to": {"width": 100, "height": 100},
        "mask": [{"x": 50, "y": 50, "width": 100, "height": 100}]
    }));
    let (w, _, px) = decode("png", &r.payload);
    assert_eq!(pixel(&px, w, 50, 50), [0, 0, 0]);
    assert_eq!(pixel(&px, w, 5, 5), [255, 0, 0]);
}

#[test]
fn quality_changes_jpeg_size() {
    let x = scene();
    let mut h = Helper::start(&x.display, None);
    let size = |h: &mut Helper, q: u32| {
        h.request(
            json!({"id": q, "op": "capture", "format": "jpeg", "quality": q,
            "region": {"x": 150, "y": 150, "width": 300, "height": 100}}),
        )
        .payload
        .len()
    };
    assert!(size(&mut h, 10) < size(&mut h, 95));
}

#[test]
fn falls_back_to_getimage_when_the_server_cannot_see_our_shm() {
    if !Xvfb::can_isolate_ipc() {
        eprintln!("skipped: unshare --ipc is not permitted here");
        return;
    }
    let x = Xvfb::start_with(640, 480, true);
    x.window(0, 0, 100, 100, 0xff0000);
    let mut h = Helper::start(&x.display, None);
    assert_eq!(
        h.request(json!({"id": 1, "op": "info"})).header["backend"],
        "getimage"
    );
    let r = h.request(json!({"id": 2, "op": "capture", "format": "rgb"}));
    assert_eq!(r.header["backend"], "getimage", "{}", r.header);
    assert_eq!(pixel(&r.payload, 640, 50, 50), [255, 0, 0]);

    // With the fallback forbidden, the error names every backend's reason.
    let mut h = Helper::start(&x.display, Some("shm"));
    let r = h.request(json!({"id": 3, "op": "capture", "format": "png"}));
    assert_eq!(r.header["error"]["kind"], "capture_failed", "{}", r.header);
    let message = r.header["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("shm: ") && message.contains("ShmAttach"),
        "{message}"
    );
    assert!(
        message.contains("getimage: unavailable (disabled by DESKGATE_CAPTURE_BACKEND=shm)"),
        "{message}"
    );
}
