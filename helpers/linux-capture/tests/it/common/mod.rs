//! Test fixtures against real things: a private Xvfb, windows of known colours drawn
//! with x11rb, and the built helper binary spoken to over its pipes.
#![allow(dead_code, unused_imports)] // each test module uses a different subset

mod animate;
mod helper;
mod xvfb;

pub use animate::Animation;
pub use helper::{choice_by_content, Helper, Response};
pub use xvfb::Xvfb;

/// Decode a payload of `format` into (width, height, packed RGB8).
pub fn decode(format: &str, payload: &[u8]) -> (u32, u32, Vec<u8>) {
    match format {
        "jpeg" => {
            let mut d = jpeg_decoder::Decoder::new(payload);
            let pixels = d.decode().expect("valid JPEG");
            let info = d.info().expect("JPEG info");
            assert_eq!(info.pixel_format, jpeg_decoder::PixelFormat::RGB24);
            (info.width.into(), info.height.into(), pixels)
        }
        "png" => {
            // Indexed PNGs (screens of ≤ 256 colours) expand to RGB8 like RGB ones.
            let mut decoder = png::Decoder::new(payload);
            decoder.set_transformations(png::Transformations::EXPAND);
            let mut reader = decoder.read_info().expect("valid PNG");
            let mut buf = vec![0; reader.output_buffer_size()];
            let info = reader.next_frame(&mut buf).expect("PNG frame");
            assert_eq!(info.color_type, png::ColorType::Rgb);
            buf.truncate(info.buffer_size());
            (info.width, info.height, buf)
        }
        "webp" => {
            let mut d =
                image_webp::WebPDecoder::new(std::io::Cursor::new(payload)).expect("valid WebP");
            assert!(!d.is_lossy(), "WebP is lossless");
            assert!(!d.has_alpha(), "WebP has no alpha");
            let (w, h) = d.dimensions();
            let mut buf = vec![0; d.output_buffer_size().expect("WebP size")];
            d.read_image(&mut buf).expect("WebP image");
            (w, h, buf)
        }
        other => panic!("cannot decode {other}"),
    }
}

/// The RGB pixel at (x, y) of a packed image `width` wide.
pub fn pixel(rgb: &[u8], width: u32, x: u32, y: u32) -> [u8; 3] {
    let i = ((y * width + x) * 3) as usize;
    [rgb[i], rgb[i + 1], rgb[i + 2]]
}

/// Colours compared with a tolerance for lossy JPEG.
pub fn assert_near(got: [u8; 3], want: [u8; 3], tolerance: u8, what: &str) {
    let close = got
        .iter()
        .zip(want)
        .all(|(g, w)| g.abs_diff(w) <= tolerance);
    assert!(close, "{what}: got {got:?}, want {want:?} (±{tolerance})");
}
