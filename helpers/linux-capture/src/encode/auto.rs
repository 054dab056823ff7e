//! `format: "auto"`: indexed PNG when the frame is screen content that compresses well,
//! JPEG otherwise. The rule, in order:
//!
//! 1. Index the colours (`palette.rs`, `Fit::Near`): at most 256 colours → an exact palette;
//!    up to 4096 → the 192 most frequent plus 64 picked greedily, every other colour drawn
//!    as its nearest palette colour, accepted only if no pixel moves more than 32 (RGB
//!    distance; a desktop's title-bar gradients and icons, never the text). Otherwise
//!    (photos, video, scaled frames, a web page with pictures) → JPEG.
//! 2. Write the indexed PNG in bands of rows. If, after any band, the output exceeds
//!    `MAX_BYTES_PER_PIXEL` (0.25 bytes a pixel: a text-heavy screen's JPEG q75 is ~0.3,
//!    its indexed PNG ~0.07) or the time since step 1 began exceeds `MS_PER_MEGAPIXEL` ×
//!    the frame's megapixels, stop and encode JPEG instead.
//! 3. Otherwise the PNG is the answer.
//!
//! The size check is what catches content that indexes but does not compress (dithering,
//! noise): incompressible input crosses it a quarter of the way through. The time check is
//! a safety net (about three times JPEG's own encode time on the reference machine): it
//! bounds auto at budget + one JPEG encode even on a starved CPU, and makes the choice
//! load-dependent only there. So a frame costs the index pass plus one encoder in the usual
//! cases. The reply says why it chose (`auto_reason`).

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde::Serialize;

use super::palette::{Fit, Indexing};
use super::png::{self, Budget, Indexed};
use super::{EncodeError, Encoded, Encoder, Pixels};
use crate::contract::Format;

/// Time budget for the index pass plus the indexed PNG, per megapixel of output.
pub const MS_PER_MEGAPIXEL: f64 = 12.0;
/// Overrides `MS_PER_MEGAPIXEL` (a slower host; tests that check the choice by content alone).
pub const BUDGET_ENV: &str = "DESKGATE_CAPTURE_AUTO_MS_PER_MEGAPIXEL";

/// The time budget per megapixel: `BUDGET_ENV` when it is a positive number, else the default
/// (an unusable value is named on stderr once, as `DESKGATE_CAPTURE_BACKEND`'s is).
fn ms_per_megapixel() -> f64 {
    static VALUE: OnceLock<f64> = OnceLock::new();
    *VALUE.get_or_init(|| match std::env::var(BUDGET_ENV) {
        Err(_) => MS_PER_MEGAPIXEL,
        Ok(text) => match text.parse::<f64>() {
            Ok(v) if v.is_finite() && v > 0.0 => v,
            _ => {
                eprintln!("deskgate-capture: ignoring {BUDGET_ENV}={text:?} (expected a positive number of ms)");
                MS_PER_MEGAPIXEL
            }
        },
    })
}
/// Never less than this, so tiny frames are not refused on timer noise.
const MIN_BUDGET_MS: f64 = 1.0;
/// Largest indexed PNG `auto` sends, in bytes per pixel.
pub const MAX_BYTES_PER_PIXEL: f64 = 0.25;

/// Why `auto` picked the format it did (reported as `auto_reason`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AutoReason {
    /// ≤ 256 colours and the indexed PNG fit the budget: PNG, lossless.
    Palette,
    /// More than 256 colours, all within reach of a 256-colour palette, and the indexed PNG
    /// fit the budget: PNG, with the rare colours moved to their nearest palette colour.
    NearPalette,
    /// Too many colours for a palette (or too far from one): JPEG.
    Colours,
    /// The indexed PNG ran over the time budget: JPEG.
    Time,
    /// The indexed PNG ran over the size budget: JPEG.
    Bytes,
}

impl Encoder {
    pub(super) fn auto(&mut self, px: Pixels<'_>, quality: u32) -> Result<Encoded, EncodeError> {
        let pixels = f64::from(px.width) * f64::from(px.height);
        let budget_ms = (pixels / 1e6 * ms_per_megapixel()).max(MIN_BUDGET_MS);
        self.auto_with(px, quality, budget_ms)
    }

    fn auto_with(
        &mut self,
        px: Pixels<'_>,
        quality: u32,
        budget_ms: f64,
    ) -> Result<Encoded, EncodeError> {
        let start = Instant::now();
        let pixels = px.width as usize * px.height as usize;
        let indexing = self.indexer.index(px, Fit::Near);
        let reason = if indexing != Indexing::TooMany {
            let budget = Budget {
                deadline: start + Duration::from_secs_f64(budget_ms / 1e3),
                max_bytes: (pixels as f64 * MAX_BYTES_PER_PIXEL) as usize,
            };
            let ix = &self.indexer;
            let outcome = png::indexed(
                &ix.ids,
                &ix.remap,
                &ix.palette,
                px.width,
                px.height,
                Some(&budget),
                &mut self.band,
            )?;
            match outcome {
                Indexed::Done(bytes) => {
                    let reason = match indexing {
                        Indexing::Exact => AutoReason::Palette,
                        _ => AutoReason::NearPalette,
                    };
                    return Ok(Encoded {
                        bytes,
                        format: Format::Png,
                        auto: Some(reason),
                    });
                }
                Indexed::OverTime => AutoReason::Time,
                Indexed::OverBytes => AutoReason::Bytes,
            }
        } else {
            AutoReason::Colours
        };
        Ok(Encoded {
            bytes: self.jpeg(px, quality)?,
            format: Format::Jpeg,
            auto: Some(reason),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::WorkFormat;

    const BGRX: WorkFormat = WorkFormat::Native4 {
        red: 2,
        green: 1,
        blue: 0,
    };

    /// A `w`×`h` BGRX frame whose pixel (x, y) is `colour(x, y)` (RGB).
    fn frame(w: u32, h: u32, colour: impl Fn(u32, u32) -> [u8; 3]) -> Vec<u8> {
        (0..h)
            .flat_map(|y| (0..w).map(move |x| (x, y)))
            .flat_map(|(x, y)| {
                let [r, g, b] = colour(x, y);
                [b, g, r, 0]
            })
            .collect()
    }

    fn px(data: &[u8], w: u32, h: u32) -> Pixels<'_> {
        Pixels {
            data,
            width: w,
            height: h,
            format: BGRX,
        }
    }

    #[test]
    fn few_colours_become_png_many_become_jpeg() {
        let mut enc = Encoder::new().unwrap();
        let stripes = frame(64, 64, |x, _| {
            if x % 8 < 4 {
                [250, 250, 250]
            } else {
                [20, 40, 200]
            }
        });
        let e = enc.auto_with(px(&stripes, 64, 64), 75, 1e6).unwrap();
        assert_eq!((e.format, e.auto), (Format::Png, Some(AutoReason::Palette)));
        assert!(e.bytes.starts_with(b"\x89PNG"));

        // 16,384 colours: past what a palette could stand for.
        let gradient = frame(128, 128, |x, y| {
            [(x * 2) as u8, (y * 2) as u8, (x + y) as u8]
        });
        let e = enc.auto_with(px(&gradient, 128, 128), 75, 1e6).unwrap();
        assert_eq!(
            (e.format, e.auto),
            (Format::Jpeg, Some(AutoReason::Colours))
        );
        assert!(e.bytes.starts_with(&[0xff, 0xd8]));
    }

    #[test]
    fn budget_overruns_fall_back_to_jpeg() {
        let mut enc = Encoder::new().unwrap();
        // ≤ 256 colours but noise: the indexed PNG is far above 0.25 bytes a pixel.
        let noise = frame(256, 256, |x, y| {
            let s = (y * 256 + x).wrapping_mul(2_654_435_761).rotate_left(13);
            let v = (s.wrapping_mul(1_103_515_245) >> 24) as u8;
            [v, v, v]
        });
        let e = enc.auto_with(px(&noise, 256, 256), 75, 1e6).unwrap();
        assert_eq!((e.format, e.auto), (Format::Jpeg, Some(AutoReason::Bytes)));

        // A zero budget has run out by the first check (after the first band of rows).
        let stripes = frame(64, 64, |x, _| {
            if x % 8 < 4 {
                [250, 250, 250]
            } else {
                [0, 0, 0]
            }
        });
        let e = enc.auto_with(px(&stripes, 64, 64), 75, 0.0).unwrap();
        assert_eq!((e.format, e.auto), (Format::Jpeg, Some(AutoReason::Time)));
    }
}
