//! Resizing with `fast_image_resize` (SIMD convolution). Lanczos3 keeps small text
//! legible when a large screen is shrunk for the model; see docs/capture-helper.md for
//! the measured cost against bilinear.

use fast_image_resize::images::{Image, ImageRef};
use fast_image_resize::{FilterType, PixelType, ResizeAlg, ResizeOptions, Resizer};

#[derive(Debug, thiserror::Error)]
#[error("scaling {from_w}x{from_h} to {to_w}x{to_h} failed: {reason}")]
pub struct ScaleError {
    from_w: u32,
    from_h: u32,
    to_w: u32,
    to_h: u32,
    reason: String,
}

pub struct Scaler {
    resizer: Resizer,
    options: ResizeOptions,
}

impl Default for Scaler {
    fn default() -> Self {
        Self::new(FilterType::Lanczos3)
    }
}

impl Scaler {
    pub fn new(filter: FilterType) -> Self {
        Self {
            resizer: Resizer::new(),
            options: ResizeOptions::new().resize_alg(ResizeAlg::Convolution(filter)),
        }
    }

    /// Resize packed RGB8 `src` (`w`x`h`) to `to_w`x`to_h`.
    pub fn scale(
        &mut self,
        src: &[u8],
        w: u32,
        h: u32,
        to_w: u32,
        to_h: u32,
    ) -> Result<Vec<u8>, ScaleError> {
        let fail = |reason: String| ScaleError {
            from_w: w,
            from_h: h,
            to_w,
            to_h,
            reason,
        };
        let src = ImageRef::new(w, h, src, PixelType::U8x3).map_err(|e| fail(e.to_string()))?;
        let mut dst = Image::new(to_w, to_h, PixelType::U8x3);
        self.resizer
            .resize(&src, &mut dst, &self.options)
            .map_err(|e| fail(e.to_string()))?;
        Ok(dst.into_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halves_a_solid_image_keeping_its_colour() {
        let src: Vec<u8> = [200u8, 10, 30].repeat(40 * 20);
        let out = Scaler::default().scale(&src, 40, 20, 20, 10).unwrap();
        assert_eq!(out.len(), 20 * 10 * 3);
        assert!(out.chunks(3).all(|p| p == [200, 10, 30]));
    }

    #[test]
    fn left_and_right_halves_stay_apart() {
        // Left half red, right half blue; after 4x downscale the outer columns keep colour.
        let row: Vec<u8> = (0..64)
            .flat_map(|x| if x < 32 { [255, 0, 0] } else { [0, 0, 255] })
            .collect();
        let src = row.repeat(16);
        let out = Scaler::default().scale(&src, 64, 16, 16, 4).unwrap();
        assert_eq!(&out[0..3], &[255, 0, 0]);
        assert_eq!(&out[15 * 3..16 * 3], &[0, 0, 255]);
    }
}
