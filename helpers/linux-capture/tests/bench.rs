//! `deskgate-capture bench` prints one JSON line with p50/p90 for each stage.

mod common;

use std::process::Command;

use common::Xvfb;

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
