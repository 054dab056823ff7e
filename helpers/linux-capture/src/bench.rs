//! `deskgate-capture bench`: the in-process floor for each stage on the full screen,
//! printed as one JSON line (p50/p90 milliseconds) for the benchmark harness.

use std::time::Instant;

use fast_image_resize::FilterType;
use serde_json::{json, Value};

use crate::contract::Format;
use crate::convert::{pack, to_rgb, WorkFormat};
use crate::encode::{EncodeError, Encoder, Pixels};
use crate::scale::{ScaleError, Scaler};
use crate::x11::{Backend, Display, GetImageBackend, ShmBackend, X11Error};

#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error(transparent)]
    X11(#[from] X11Error),
    #[error(transparent)]
    Encode(#[from] EncodeError),
    #[error(transparent)]
    Scale(#[from] ScaleError),
}

const WARMUP: usize = 2;

/// Wall-clock samples in ms, summarised as p50/p90.
#[derive(Default)]
pub struct Samples(Vec<f64>);

impl Samples {
    pub fn time<T>(&mut self, f: impl FnOnce() -> T) -> T {
        let start = Instant::now();
        let out = f();
        self.0.push(start.elapsed().as_secs_f64() * 1e3);
        out
    }

    pub fn summary(mut self) -> Value {
        if self.0.is_empty() {
            return Value::Null;
        }
        self.0.sort_by(f64::total_cmp);
        let pick = |p: f64| {
            let i = ((self.0.len() as f64 * p).ceil() as usize).clamp(1, self.0.len()) - 1;
            (self.0[i] * 1e3).round() / 1e3
        };
        json!({ "p50": pick(0.5), "p90": pick(0.9) })
    }
}

pub fn run(display: Option<&str>, iterations: usize) -> Result<String, BenchError> {
    let display = Display::connect(display)?;
    let screen = display.root_rect()?;
    let (w, h) = (screen.width, screen.height);
    let (sw, sh) = ((w * 3 / 4).max(1), (h * 3 / 4).max(1));
    let mut shm = ShmBackend::probe(&display);
    let mut getimage = GetImageBackend::default();
    let mut encoder = Encoder::new()?;
    let mut lanczos = Scaler::new(FilterType::Lanczos3);
    let mut catmull_rom = Scaler::new(FilterType::CatmullRom);
    let mut bilinear = Scaler::new(FilterType::Bilinear);
    let layout = *display.layout();
    let format = layout.work_format();
    let bpp = format.bytes_per_pixel();
    // Stages on the full-screen frame, as the capture pipeline runs them: the work format
    // is the server's own 4-byte layout where TurboJPEG reads it (see convert.rs).
    let names = [
        "shm_capture",
        "getimage_capture",
        // Copy into packed work-format pixels: what `keep` costs.
        "pack",
        // The old BGRX → RGB conversion (still used for png/rgb output and 24 bpp).
        "convert",
        "jpeg_q75",
        "jpeg_q75_from_rgb",
        "png",
        "scale_lanczos3",
        "scale_lanczos3_rgb",
        "scale_catmullrom",
        "scale_bilinear",
        // SHM grab + JPEG straight from the grabbed frame (no keep, no scaling).
        "shm_jpeg_total",
        // The screenshot tool's path: SHM grab + keep copy + default filter (Catmull-Rom)
        // to 3/4 + JPEG.
        "shm_keep_scale_jpeg_total",
    ];
    let mut samples: Vec<Samples> = names.iter().map(|_| Samples::default()).collect();
    let mut shm_error = None;
    let (mut work, mut rgb, mut scaled, mut kept) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut jpeg_bytes, mut png_bytes) = (0, 0);

    for round in 0..WARMUP + iterations {
        let mut s: Vec<Samples> = names.iter().map(|_| Samples::default()).collect();
        if let Ok(backend) = shm.as_mut() {
            if let Err(e) = s[0].time(|| backend.grab(&display, &screen)) {
                shm_error = Some(e.to_string());
                shm = Err(e);
            }
        }
        s[1].time(|| getimage.grab(&display, &screen))?;
        let frame = getimage.frame();
        s[2].time(|| pack(frame.data, frame.stride, w, h, &layout, format, &mut work));
        s[3].time(|| to_rgb(frame.data, frame.stride, w, h, &layout, &mut rgb));
        jpeg_bytes = s[4]
            .time(|| encoder.encode(px(format, &work, w, h), Format::Jpeg, 75))?
            .bytes
            .len();
        s[5].time(|| encoder.encode(px(WorkFormat::Rgb, &rgb, w, h), Format::Jpeg, 75))?;
        png_bytes = s[6]
            .time(|| encoder.encode(px(format, &work, w, h), Format::Png, 0))?
            .bytes
            .len();
        s[7].time(|| lanczos.scale(&work, bpp, w, h, sw, sh, &mut scaled))?;
        s[8].time(|| lanczos.scale(&rgb, 3, w, h, sw, sh, &mut scaled))?;
        s[9].time(|| catmull_rom.scale(&work, bpp, w, h, sw, sh, &mut scaled))?;
        s[10].time(|| bilinear.scale(&work, bpp, w, h, sw, sh, &mut scaled))?;
        if let Ok(backend) = shm.as_mut() {
            s[11].time(|| -> Result<(), BenchError> {
                backend.grab(&display, &screen)?;
                let frame = backend.frame();
                if format.bytes_per_pixel() == layout.bytes_per_pixel {
                    encoder.encode(
                        px(format, &frame.data[..w as usize * h as usize * 4], w, h),
                        Format::Jpeg,
                        75,
                    )?;
                } else {
                    pack(frame.data, frame.stride, w, h, &layout, format, &mut work);
                    encoder.encode(px(format, &work, w, h), Format::Jpeg, 75)?;
                }
                Ok(())
            })?;
            s[12].time(|| -> Result<(), BenchError> {
                backend.grab(&display, &screen)?;
                let frame = backend.frame();
                pack(frame.data, frame.stride, w, h, &layout, format, &mut kept);
                catmull_rom.scale(&kept, bpp, w, h, sw, sh, &mut scaled)?;
                encoder.encode(px(format, &scaled, sw, sh), Format::Jpeg, 75)?;
                Ok(())
            })?;
        }
        if round >= WARMUP {
            for (all, one) in samples.iter_mut().zip(s) {
                all.0.extend(one.0);
            }
        }
    }

    let mut out = json!({
        "width": w, "height": h, "iterations": iterations,
        "scale_to": format!("{sw}x{sh}"), "jpeg_bytes": jpeg_bytes, "png_bytes": png_bytes,
        "work_format": format!("{format:?}"),
        "shm_error": shm_error.or_else(|| shm.as_ref().err().map(|e| e.to_string())),
    });
    for (name, s) in names.iter().zip(samples) {
        out[format!("{name}_ms")] = s.summary();
    }
    Ok(out.to_string())
}

fn px(format: WorkFormat, data: &[u8], width: u32, height: u32) -> Pixels<'_> {
    Pixels {
        data,
        width,
        height,
        format,
    }
}
