//! Image encoding: JPEG through the system libjpeg-turbo (TurboJPEG API), PNG through
//! the `png` crate at its fastest level, or raw RGB. One encoder per process so the
//! TurboJPEG handle is reused across captures.

use crate::contract::Format;

#[derive(Debug, thiserror::Error)]
pub enum EncodeError {
    #[error("JPEG encoder: {0}")]
    Jpeg(#[from] turbojpeg::Error),
    #[error("PNG encoder: {0}")]
    Png(#[from] png::EncodingError),
}

pub struct Encoder {
    jpeg: turbojpeg::Compressor,
}

impl Encoder {
    pub fn new() -> Result<Self, EncodeError> {
        let mut jpeg = turbojpeg::Compressor::new()?;
        // 4:2:0 is libjpeg-turbo's default and the fastest; screenshots for a model do not
        // need full-resolution chroma.
        jpeg.set_subsamp(turbojpeg::Subsamp::Sub2x2);
        Ok(Self { jpeg })
    }

    /// Encode packed RGB8 (`width`x`height`). `quality` applies to JPEG only.
    pub fn encode(
        &mut self,
        rgb: &[u8],
        width: u32,
        height: u32,
        format: Format,
        quality: u32,
    ) -> Result<Vec<u8>, EncodeError> {
        match format {
            Format::Rgb => Ok(rgb.to_vec()),
            Format::Jpeg => self.jpeg(rgb, width, height, quality),
            Format::Png => png_encode(rgb, width, height),
        }
    }

    fn jpeg(
        &mut self,
        rgb: &[u8],
        width: u32,
        height: u32,
        quality: u32,
    ) -> Result<Vec<u8>, EncodeError> {
        self.jpeg.set_quality(quality.clamp(1, 100) as i32);
        let image = turbojpeg::Image {
            pixels: rgb,
            width: width as usize,
            pitch: width as usize * 3,
            height: height as usize,
            format: turbojpeg::PixelFormat::RGB,
        };
        Ok(self.jpeg.compress_to_vec(image)?)
    }
}

fn png_encode(rgb: &[u8], width: u32, height: u32) -> Result<Vec<u8>, EncodeError> {
    // Screens compress well; a quarter of the raw size is a fair first guess.
    let mut out = Vec::with_capacity(rgb.len() / 4);
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Fast);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(rgb)?;
    writer.finish()?;
    Ok(out)
}
