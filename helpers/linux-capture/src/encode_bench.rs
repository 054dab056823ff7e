//! `deskgate-capture encoders`: bytes and encode time of every output format on one frame
//! (the live screen, or the synthetic photo-like frame), printed as one JSON line for the
//! benchmark harness and docs/capture-helper.md.

use serde_json::json;

use crate::bench::{BenchError, Samples};
use crate::contract::Format;
use crate::convert::{pack, WorkFormat};
use crate::encode::palette::{Fit, Indexer};
use crate::encode::{Encoder, Pixels};
use crate::synthetic::photo_bgrx;
use crate::x11::{Backend, Display, GetImageBackend};

const WARMUP: usize = 2;
const FORMATS: [(&str, Format); 4] = [
    ("jpeg", Format::Jpeg),
    ("png", Format::Png),
    ("webp", Format::Webp),
    ("auto", Format::Auto),
];

/// Which frame to encode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Frame {
    /// The screen of `--display`, grabbed once.
    Screen,
    /// `synthetic::photo_bgrx` at the given size (no display needed).
    Photo { width: u32, height: u32 },
}

pub fn run(display: Option<&str>, frame: Frame, iterations: usize) -> Result<String, BenchError> {
    let (pixels, width, height, format) = match frame {
        Frame::Photo { width, height } => {
            let bgrx = WorkFormat::Native4 {
                red: 2,
                green: 1,
                blue: 0,
            };
            (photo_bgrx(width, height), width, height, bgrx)
        }
        Frame::Screen => {
            let display = Display::connect(display)?;
            let screen = display.root_rect()?;
            let layout = *display.layout();
            let mut grab = GetImageBackend::default();
            grab.grab(&display, &screen)?;
            let f = grab.frame();
            let mut work = Vec::new();
            let format = layout.work_format();
            pack(
                f.data, f.stride, f.width, f.height, &layout, format, &mut work,
            );
            (work, screen.width, screen.height, format)
        }
    };
    let px = Pixels {
        data: &pixels,
        width,
        height,
        format,
    };
    let mut encoder = Encoder::new()?;
    let mut out = json!({
        "frame": match frame { Frame::Screen => "screen", Frame::Photo { .. } => "photo" },
        "width": width, "height": height, "iterations": iterations,
    });
    for (name, f) in FORMATS {
        let mut samples = Samples::default();
        let mut last = None;
        for round in 0..WARMUP + iterations {
            let encoded = if round < WARMUP {
                encoder.encode(px, f, 75)?
            } else {
                samples.time(|| encoder.encode(px, f, 75))?
            };
            last = Some(encoded);
        }
        let last = last.expect("at least one round");
        let mut entry = json!({ "bytes": last.bytes.len(), "ms": samples.summary() });
        if f == Format::Auto {
            entry["chose"] = json!(last.format);
            entry["reason"] = json!(last.auto);
        }
        out[name] = entry;
    }
    // The colour-index pass alone (auto's first step; it stops at the 257th colour).
    let mut indexer = Indexer::default();
    let mut samples = Samples::default();
    for _ in 0..iterations {
        samples.time(|| indexer.index(px, Fit::Near));
    }
    out["index_ms"] = samples.summary();
    Ok(out.to_string())
}
