//! `capture`: grab → RGB → mask → keep → scale → encode, timing each stage.

use std::time::Instant;

use super::{elapsed_ms, Desktop, Outcome, Tools};
use crate::contract::{CaptureReply, CaptureRequest, Rect, Reply};
use crate::error::ServiceError;
use crate::request::DEFAULT_QUALITY;
use crate::slots::{Slot, SlotStore};

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
    let (backend, capture_ms, rgb) = desktop.masked_rgb(&region, &req.mask)?;
    let convert_ms = elapsed_ms(start) - capture_ms;

    // Keep stores the unscaled masked pixels; encode then reads them from the slot, so
    // keeping costs no copy.
    let pixels: &[u8] = match &req.keep {
        Some(name) => {
            &slots
                .put(
                    name,
                    Slot {
                        region,
                        rgb,
                        masks: req.mask.clone(),
                    },
                )
                .rgb
        }
        None => &rgb,
    };

    let start = Instant::now();
    let (width, height) = req
        .scale_to
        .map_or((region.width, region.height), |s| (s.width, s.height));
    let scaled;
    let out = if (width, height) == (region.width, region.height) {
        pixels
    } else {
        scaled = tools
            .scaler
            .scale(pixels, region.width, region.height, width, height)
            .map_err(|e| ServiceError::CaptureFailed(e.to_string()))?;
        &scaled[..]
    };
    let scale_ms = elapsed_ms(start);

    let start = Instant::now();
    let quality = req.quality.unwrap_or(DEFAULT_QUALITY);
    let payload = tools
        .encoder
        .encode(out, width, height, req.format, quality)
        .map_err(|e| ServiceError::CaptureFailed(e.to_string()))?;
    let encode_ms = elapsed_ms(start);

    let reply = CaptureReply {
        width,
        height,
        format: req.format,
        backend,
        capture_ms,
        convert_ms,
        scale_ms,
        encode_ms,
    };
    Ok((Reply::Capture(reply), payload))
}

pub(super) fn describe(r: &Rect) -> String {
    format!("{}x{}+{}+{}", r.width, r.height, r.x, r.y)
}
