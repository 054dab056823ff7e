//! Image encoding: JPEG through the system libjpeg-turbo (TurboJPEG API), PNG (indexed for
//! screens of at most 256 colours, else RGB8 with fdeflate), lossless WebP (`image-webp`),
//! raw RGB, and `auto`, which picks PNG or JPEG per frame (`auto.rs`). One encoder per
//! process so the TurboJPEG handle and the scratch buffers are reused across captures.
//!
//! JPEG reads the pipeline's pixels as they are (libjpeg-turbo takes RGBX/BGRX/XRGB/XBGR
//! and converts to YCbCr in its own SIMD code), and so does the colour indexer, so a 32 bpp
//! frame is never converted to RGB on the way to JPEG or indexed PNG. RGB8 PNG, WebP and raw
//! `rgb` output are converted here at output size.

mod auto;
pub mod palette;
pub mod png;

use crate::contract::Format;
use crate::convert::{to_rgb, WorkFormat};

pub use auto::AutoReason;

#[derive(Debug, thiserror::Error)]
pub enum EncodeError {
    #[error("JPEG encoder: {0}")]
    Jpeg(#[from] turbojpeg::Error),
    #[error("PNG encoder: {0}")]
    Png(#[from] ::png::EncodingError),
    #[error("PNG encoder: deflate: {0}")]
    Deflate(#[from] std::io::Error),
    #[error("PNG encoder: image data of {0} bytes exceeds a PNG chunk")]
    TooLarge(usize),
    #[error("WebP encoder: {0}")]
    Webp(#[from] image_webp::EncodingError),
}

/// Borrowed, packed pixels (rows `width * bytes_per_pixel` bytes apart) in the pipeline's
/// work format.
#[derive(Debug, Clone, Copy)]
pub struct Pixels<'a> {
    pub data: &'a [u8],
    pub width: u32,
    pub height: u32,
    pub format: WorkFormat,
}

/// An encoded image and what it is (never `Format::Auto`).
#[derive(Debug)]
pub struct Encoded {
    pub bytes: Vec<u8>,
    pub format: Format,
    /// Why `auto` chose `format`; None for an explicit format.
    pub auto: Option<AutoReason>,
}

pub struct Encoder {
    jpeg: turbojpeg::Compressor,
    /// RGB8 scratch for RGB PNG and WebP, reused across calls.
    rgb: Vec<u8>,
    /// libjpeg-turbo's output, sized for the worst case and reused across calls (cheaper
    /// than letting it allocate and grow a fresh buffer each time).
    jpeg_out: Vec<u8>,
    indexer: palette::Indexer,
    /// Filtered rows of one band for the indexed PNG writer.
    band: Vec<u8>,
}

impl Encoder {
    pub fn new() -> Result<Self, EncodeError> {
        let mut jpeg = turbojpeg::Compressor::new()?;
        // 4:2:0 is libjpeg-turbo's default and the fastest; screenshots for a model do not
        // need full-resolution chroma.
        jpeg.set_subsamp(turbojpeg::Subsamp::Sub2x2);
        Ok(Self {
            jpeg,
            rgb: Vec::new(),
            jpeg_out: Vec::new(),
            indexer: palette::Indexer::default(),
            band: Vec::new(),
        })
    }

    /// Encode `px` as `format`. `quality` applies to JPEG only (and to `auto` when it
    /// chooses JPEG).
    pub fn encode(
        &mut self,
        px: Pixels<'_>,
        format: Format,
        quality: u32,
    ) -> Result<Encoded, EncodeError> {
        let bytes = match format {
            Format::Auto => return self.auto(px, quality),
            Format::Rgb => {
                let mut out = Vec::new();
                rgb_of(px, &mut out);
                out
            }
            Format::Jpeg => self.jpeg(px, quality)?,
            Format::Png => self.png(px)?,
            Format::Webp => {
                let mut rgb = std::mem::take(&mut self.rgb);
                rgb_of(px, &mut rgb);
                let out = webp(&rgb, px.width, px.height);
                self.rgb = rgb;
                out?
            }
        };
        Ok(Encoded {
            bytes,
            format,
            auto: None,
        })
    }

    /// Indexed PNG when the frame has at most 256 colours, else RGB8 PNG (lossless either way).
    fn png(&mut self, px: Pixels<'_>) -> Result<Vec<u8>, EncodeError> {
        if self.indexer.index(px, palette::Fit::Exact) == palette::Indexing::Exact {
            let ix = &self.indexer;
            match png::indexed(
                &ix.ids,
                &ix.remap,
                &ix.palette,
                px.width,
                px.height,
                None,
                &mut self.band,
            )? {
                png::Indexed::Done(bytes) => return Ok(bytes),
                other => unreachable!("indexed PNG without a budget gave up: {other:?}"),
            }
        }
        let mut rgb = std::mem::take(&mut self.rgb);
        rgb_of(px, &mut rgb);
        let out = png::rgb(&rgb, px.width, px.height);
        self.rgb = rgb;
        out
    }

    fn jpeg(&mut self, px: Pixels<'_>, quality: u32) -> Result<Vec<u8>, EncodeError> {
        self.jpeg.set_quality(quality.clamp(1, 100) as i32);
        let pitch = px.width as usize * px.format.bytes_per_pixel();
        let image = turbojpeg::Image {
            pixels: &px.data[..pitch * px.height as usize],
            width: px.width as usize,
            pitch,
            height: px.height as usize,
            format: jpeg_format(px.format),
        };
        let worst = self.jpeg.buf_len(image.width, image.height)?;
        if self.jpeg_out.len() < worst {
            // Zeroed by the allocator (calloc): only the pages libjpeg-turbo writes become
            // resident, not the whole worst case.
            self.jpeg_out = vec![0; worst];
        }
        let len = self.jpeg.compress_to_slice(image, &mut self.jpeg_out)?;
        Ok(self.jpeg_out[..len].to_vec())
    }
}

/// Lossless WebP (VP8L) from RGB8: `image-webp`'s encoder (subtract-green and a fixed
/// predictor, Huffman codes, no LZ77 matching).
fn webp(rgb: &[u8], width: u32, height: u32) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::with_capacity(rgb.len() / 8);
    image_webp::WebPEncoder::new(&mut out).encode(
        rgb,
        width,
        height,
        image_webp::ColorType::Rgb8,
    )?;
    Ok(out)
}

/// The TurboJPEG pixel format that reads `format` as it is.
fn jpeg_format(format: WorkFormat) -> turbojpeg::PixelFormat {
    use turbojpeg::PixelFormat as P;
    match format {
        WorkFormat::Rgb => P::RGB,
        WorkFormat::Native4 { red, green, blue } => match (red, green, blue) {
            (0, 1, 2) => P::RGBX,
            (2, 1, 0) => P::BGRX,
            (1, 2, 3) => P::XRGB,
            (3, 2, 1) => P::XBGR,
            // `PixelLayout::work_format` only yields the four orders above.
            other => unreachable!("4-byte order {other:?} has no TurboJPEG format"),
        },
    }
}

/// `px` as packed RGB8 in `out` (resized to fit).
fn rgb_of(px: Pixels<'_>, out: &mut Vec<u8>) {
    to_rgb(
        px.data,
        px.width as usize * px.format.bytes_per_pixel(),
        px.width,
        px.height,
        &px.format.layout(),
        out,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bgrx() -> WorkFormat {
        WorkFormat::Native4 {
            red: 2,
            green: 1,
            blue: 0,
        }
    }

    #[test]
    fn rgb_output_from_four_byte_pixels() {
        let data = [0, 0, 255, 7, 255, 0, 0, 7];
        let px = Pixels {
            data: &data,
            width: 2,
            height: 1,
            format: bgrx(),
        };
        let out = Encoder::new()
            .unwrap()
            .encode(px, Format::Rgb, 75)
            .unwrap()
            .bytes;
        assert_eq!(out, [255, 0, 0, 0, 0, 255]);
    }

    #[test]
    fn jpeg_from_every_four_byte_order_keeps_red_red() {
        let mut enc = Encoder::new().unwrap();
        for (red, green, blue) in [(0, 1, 2), (2, 1, 0), (1, 2, 3), (3, 2, 1)] {
            let mut pixel = [0u8; 4];
            pixel[red] = 255;
            let data = pixel.repeat(16 * 16);
            let format = WorkFormat::Native4 { red, green, blue };
            let px = Pixels {
                data: &data,
                width: 16,
                height: 16,
                format,
            };
            let jpeg = enc.encode(px, Format::Jpeg, 90).unwrap().bytes;
            let mut d = turbojpeg::Decompressor::new().unwrap();
            let header = d.read_header(&jpeg).unwrap();
            let mut rgb = turbojpeg::Image {
                pixels: vec![0u8; 16 * 16 * 3],
                width: header.width,
                pitch: header.width * 3,
                height: header.height,
                format: turbojpeg::PixelFormat::RGB,
            };
            d.decompress(&jpeg, rgb.as_deref_mut()).unwrap();
            let p = &rgb.pixels[8 * 48 + 24..8 * 48 + 27];
            assert!(
                p[0] > 240 && p[1] < 16 && p[2] < 16,
                "{format:?} decoded as {p:?}"
            );
        }
    }
}
