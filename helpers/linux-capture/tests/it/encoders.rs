//! Every output format decodes to the screen's colours, and `auto` picks indexed PNG for
//! screen content (exact, or with a title-bar gradient's rare colours moved slightly) and
//! JPEG for a photo-like frame.

use crate::common::{decode, pixel, Helper, Xvfb};
use serde_json::json;

const W: u32 = 640;
const H: u32 = 400;

/// Smooth colour fields plus per-pixel grain: thousands of colours, like a photo.
fn photo(x: u32, y: u32) -> [u8; 3] {
    let grain = (x.wrapping_mul(2_654_435_761) ^ y.wrapping_mul(40_503)).rotate_left(7) % 9;
    [
        (x * 255 / W) as u8 ^ grain as u8,
        (y * 255 / H) as u8,
        ((x + y) % 256) as u8,
    ]
}

/// Dark "glyphs" on a light background with two grey anti-aliasing shades.
fn text(x: u32, y: u32) -> [u8; 3] {
    match (x % 7, y % 12) {
        (_, 10..) | (6, _) => [250, 250, 250],
        (0 | 5, _) => [160, 160, 160],
        (c, r) if (c + r) % 3 == 0 => [30, 30, 30],
        _ => [220, 220, 220],
    }
}

/// `text` with a title-bar-like strip on top: a gentle 300-step gradient, 4 rows high
/// (hundreds of colours in 1% of the frame, each a few steps from its neighbours).
fn decorated_text(x: u32, y: u32) -> [u8; 3] {
    if y < 4 {
        let v = x * 300 / W;
        [
            (40 + v / 2) as u8,
            (90 + v / 3) as u8,
            (150 + v % 2 * 3) as u8,
        ]
    } else {
        text(x, y)
    }
}

fn mean_abs_diff(a: &[u8], b: &[u8]) -> f64 {
    assert_eq!(a.len(), b.len());
    let sum: u64 = a
        .iter()
        .zip(b)
        .map(|(x, y)| u64::from(x.abs_diff(*y)))
        .sum();
    sum as f64 / a.len() as f64
}

/// Capture `format` and decode it; returns (answered format, auto_reason, RGB pixels).
fn capture(h: &mut Helper, format: &str) -> (String, Option<String>, Vec<u8>) {
    let r = h.request(json!({"id": format, "op": "capture", "format": format}));
    assert_eq!(r.header["ok"], true, "{}", r.header);
    assert!(r.header["encode_ms"].as_f64().is_some(), "{}", r.header);
    let answered = r.header["format"].as_str().unwrap().to_owned();
    let reason = r.header["auto_reason"].as_str().map(str::to_owned);
    let px = if answered == "rgb" {
        r.payload
    } else {
        let (w, h, px) = decode(&answered, &r.payload);
        assert_eq!((w, h), (W, H));
        px
    };
    (answered, reason, px)
}

fn check(frame: fn(u32, u32) -> [u8; 3], auto_format: &str, auto_reason: &str) {
    let x = Xvfb::start(W, H);
    x.image(0, 0, W as u16, H as u16, frame);
    let mut h = Helper::start(&x.display, None);
    let (_, _, exact) = capture(&mut h, "rgb");
    assert_eq!(
        pixel(&exact, W, 123, 45),
        frame(123, 45),
        "the image is on screen"
    );
    for format in ["png", "webp"] {
        let (answered, reason, px) = capture(&mut h, format);
        assert_eq!((answered.as_str(), reason), (format, None));
        assert!(px == exact, "{format} is lossless");
    }
    let (_, _, px) = capture(&mut h, "jpeg");
    let diff = mean_abs_diff(&px, &exact);
    assert!(diff < 8.0, "jpeg mean error {diff}");
    let (answered, reason, px) = capture(&mut h, "auto");
    assert_eq!(
        (answered.as_str(), reason.as_deref()),
        (auto_format, Some(auto_reason))
    );
    if reason.as_deref() == Some("near_palette") {
        // Rare colours moved at most 32 (RGB distance); the text is exact.
        for (i, (got, want)) in px.chunks_exact(3).zip(exact.chunks_exact(3)).enumerate() {
            let d2: u32 = got
                .iter()
                .zip(want)
                .map(|(a, b)| u32::from(a.abs_diff(*b)).pow(2))
                .sum();
            assert!(d2 <= 32 * 32, "pixel {i}: {got:?} for {want:?}");
            if i >= 4 * W as usize {
                assert_eq!(got, want, "text pixel {i}");
            }
        }
    } else if answered == "png" {
        assert!(px == exact, "auto's PNG is lossless");
    } else {
        assert!(mean_abs_diff(&px, &exact) < 8.0);
    }
}

#[test]
fn text_like_frames_are_indexed_png_under_auto() {
    check(text, "png", "palette");
}

#[test]
fn decorated_text_is_near_palette_png_under_auto() {
    check(decorated_text, "png", "near_palette");
}

#[test]
fn photo_like_frames_are_jpeg_under_auto() {
    check(photo, "jpeg", "colours");
}
