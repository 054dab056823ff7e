//! `deskgate-capture bench` prints one JSON line with p50/p90 for each stage.

use std::process::Command;

use crate::common::{choice_by_content, Xvfb};

#[test]
fn bench_prints_one_json_line() {
    let x = Xvfb::start(640, 480);
    let out = Command::new(env!("CARGO_BIN_EXE_deskgate-capture"))
        .args(["bench", "--display", &x.display, "--iterations", "3"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 1, "{text}");
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        (v["width"].as_u64(), v["iterations"].as_u64()),
        (Some(640), Some(3))
    );
    for stage in [
        "shm_capture",
        "getimage_capture",
        "pack",
        "convert",
        "jpeg_q75",
        "jpeg_q75_from_rgb",
        "png",
        "scale_lanczos3",
        "scale_catmullrom",
        "shm_jpeg_total",
        "shm_keep_scale_jpeg_total",
    ] {
        let s = &v[format!("{stage}_ms")];
        assert!(
            s["p50"].as_f64().is_some() && s["p90"].as_f64().is_some(),
            "{stage}: {v}"
        );
    }
}

fn encoders(args: &[&str]) -> serde_json::Value {
    let out = choice_by_content(&mut Command::new(env!("CARGO_BIN_EXE_deskgate-capture")))
        .arg("encoders")
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 1, "{text}");
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    for format in ["jpeg", "png", "webp", "auto"] {
        let f = &v[format];
        assert!(f["bytes"].as_u64().is_some_and(|b| b > 0), "{format}: {v}");
        assert!(f["ms"]["p50"].as_f64().is_some(), "{format}: {v}");
    }
    assert!(v["index_ms"]["p50"].as_f64().is_some(), "{v}");
    v
}

#[test]
fn encoders_reports_each_format_on_the_screen_and_the_photo() {
    let x = Xvfb::start(320, 200);
    x.window(0, 0, 100, 100, 0xff0000);
    let v = encoders(&["--display", &x.display, "--iterations", "2"]);
    assert_eq!(
        (v["frame"].as_str(), v["width"].as_u64()),
        (Some("screen"), Some(320))
    );
    assert_eq!(
        (v["auto"]["chose"].as_str(), v["auto"]["reason"].as_str()),
        (Some("png"), Some("palette")),
        "{v}"
    );
    assert_eq!(v["auto"]["bytes"], v["png"]["bytes"]);

    let v = encoders(&["--photo", "320x200", "--iterations", "2"]);
    assert_eq!(
        (v["frame"].as_str(), v["height"].as_u64()),
        (Some("photo"), Some(200))
    );
    assert_eq!(
        (v["auto"]["chose"].as_str(), v["auto"]["reason"].as_str()),
        (Some("jpeg"), Some("colours")),
        "{v}"
    );
    assert_eq!(v["auto"]["bytes"], v["jpeg"]["bytes"]);
}

#[test]
fn an_unusable_auto_budget_is_named_and_the_default_kept() {
    let out = Command::new(env!("CARGO_BIN_EXE_deskgate-capture"))
        .args(["encoders", "--photo", "64x48", "--iterations", "1"])
        .env("DESKGATE_CAPTURE_AUTO_MS_PER_MEGAPIXEL", "banana")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("ignoring DESKGATE_CAPTURE_AUTO_MS_PER_MEGAPIXEL=\"banana\""),
        "{stderr}"
    );
}
