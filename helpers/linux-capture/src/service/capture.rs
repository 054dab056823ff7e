//! `capture`: grab → mask (in place) → keep → scale → encode, timing each stage.

use std::time::Instant;

use super::{elapsed_ms, Desktop, Outcome, Tools};
use crate::contract::{CaptureReply, CaptureRequest, Rect, Reply};
use crate::encode::Pixels;
use crate::error::ServiceError;
use crate::request::DEFAULT_QUALITY;
use crate::slots::SlotStore;

pub fn run(
    desktop: &mut Desktop,
    slots: &mut SlotStore,
    tools: &mut Tools,
    req: &CaptureRequest,
) -> Result<Outcome, ServiceError> {
    let screen = desktop.display.root_rect()?;
    let region = req.region.unwrap_or(screen);
    if !screen.contains(&region) {
        return Err(ServiceError::BadRequest(format!(
            "region {} is not inside the {}x{} screen",
            describe(&region),
            screen.width,
            screen.height
        )));
    }

    let start = Instant::now();
    let grabbed = desktop.grab_masked(&region, &req.mask)?;
    let (backend, capture_ms) = (grabbed.backend, grabbed.grab_ms);
    // `keep` copies the unscaled masked pixels into the slot (recycling its buffer) and
    // the rest reads them from there; otherwise the pipeline reads the grabbed frame in
    // place. Either way nothing is converted when the server's layout is one TurboJPEG
    // reads (see convert.rs), so `convert_ms` is masking plus the keep copy.
    let pixels = match &req.keep {
        Some(name) => {
            let slot = slots.put_with(name, region, &req.mask, |buf| grabbed.pack_into(buf));
            Pixels {
                data: &slot.pixels,
                width: region.width,
                height: region.height,
                format: grabbed.format(),
            }
        }
        None => grabbed.pixels(&mut tools.frame),
    };
    let convert_ms = elapsed_ms(start) - capture_ms;

    let start = Instant::now();
    let (width, height) = req
        .scale_to
        .map_or((region.width, region.height), |s| (s.width, s.height));
    let out = if (width, height) == (region.width, region.height) {
        pixels
    } else {
        tools
            .scaler
            .scale(
                pixels.data,
                pixels.format.bytes_per_pixel(),
                region.width,
                region.height,
                width,
                height,
                &mut tools.scaled,
            )
            .map_err(|e| ServiceError::CaptureFailed(e.to_string()))?;
        Pixels {
            data: &tools.scaled,
            width,
            height,
            format: pixels.format,
        }
    };
    let scale_ms = elapsed_ms(start);

    let start = Instant::now();
    let quality = req.quality.unwrap_or(DEFAULT_QUALITY);
    let encoded = tools
        .encoder
        .encode(out, req.format, quality)
        .map_err(|e| ServiceError::CaptureFailed(e.to_string()))?;
    let encode_ms = elapsed_ms(start);

    let reply = CaptureReply {
        width,
        height,
        format: encoded.format,
        auto_reason: encoded.auto,
        backend,
        capture_ms,
        convert_ms,
        scale_ms,
        encode_ms,
    };
    Ok((Reply::Capture(reply), encoded.bytes))
}

pub(super) fn describe(r: &Rect) -> String {
    format!("{}x{}+{}+{}", r.width, r.height, r.x, r.y)
}
