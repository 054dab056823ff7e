//! Pixel layouts. X hands back pixels in the server's layout (on a little-endian depth-24
//! server: B,G,R,pad per pixel, rows padded to the scanline pad). When that layout is one
//! libjpeg-turbo reads natively (32 bpp RGBX/BGRX/XRGB/XBGR — every depth-24 server in
//! practice) the pipeline keeps it (`WorkFormat::Native4`): masks, kept slots, scaling and
//! JPEG encoding all work on those 4-byte pixels and nothing is converted. Otherwise
//! (packed 24 bpp, odd channel orders) the frame is converted to packed RGB8 first
//! (`WorkFormat::Rgb`). PNG and raw `rgb` output are converted to RGB8 at the very end.

/// Where the colour bytes sit inside one pixel of a ZPixmap image.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PixelLayout {
    /// 3 or 4 (24 or 32 bits per pixel).
    pub bytes_per_pixel: usize,
    pub red: usize,
    pub green: usize,
    pub blue: usize,
    /// Each row is padded to a multiple of this many bits.
    pub scanline_pad: u32,
}

impl PixelLayout {
    /// Derive the layout from what the server's setup reports for the root visual.
    /// Only 8-bit byte-aligned channels at 24/32 bpp are supported (every TrueColor
    /// depth-24 server in practice); anything else is an error naming the format.
    pub fn from_server(
        bits_per_pixel: u8,
        scanline_pad: u8,
        lsb_first: bool,
        masks: [u32; 3],
    ) -> Result<Self, String> {
        let bytes_per_pixel = match bits_per_pixel {
            24 => 3,
            32 => 4,
            other => return Err(format!("{other} bits per pixel (need 24 or 32)")),
        };
        let mut offsets = [0usize; 3];
        for (slot, mask) in offsets.iter_mut().zip(masks) {
            let shift = mask.trailing_zeros();
            if shift % 8 != 0 || mask >> shift != 0xff || (shift / 8) as usize >= bytes_per_pixel {
                return Err(format!(
                    "colour masks {:#08x}/{:#08x}/{:#08x} are not 8-bit byte-aligned",
                    masks[0], masks[1], masks[2]
                ));
            }
            let byte = (shift / 8) as usize;
            *slot = if lsb_first {
                byte
            } else {
                bytes_per_pixel - 1 - byte
            };
        }
        if scanline_pad == 0 || !scanline_pad.is_multiple_of(8) {
            return Err(format!("scanline pad of {scanline_pad} bits"));
        }
        Ok(Self {
            bytes_per_pixel,
            red: offsets[0],
            green: offsets[1],
            blue: offsets[2],
            scanline_pad: scanline_pad.into(),
        })
    }

    /// The pixel format the pipeline works in after the grab (see the module docs).
    pub fn work_format(&self) -> WorkFormat {
        let offsets = (self.red, self.green, self.blue);
        if self.bytes_per_pixel == 4
            && matches!(offsets, (0, 1, 2) | (2, 1, 0) | (1, 2, 3) | (3, 2, 1))
        {
            WorkFormat::Native4 {
                red: self.red,
                green: self.green,
                blue: self.blue,
            }
        } else {
            WorkFormat::Rgb
        }
    }

    /// Bytes per row of a ZPixmap image `width` pixels wide.
    pub fn stride(&self, width: u32) -> usize {
        let bits = width as usize * self.bytes_per_pixel * 8;
        let pad = self.scanline_pad as usize;
        bits.div_ceil(pad) * pad / 8
    }
}

/// How pixels sit in the pipeline's buffers between the grab and the encoder: packed
/// rows (no padding), one format per display, shared by capture, kept slots and compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkFormat {
    /// The server's own 32-bit pixels, used as they are; `red`/`green`/`blue` are byte
    /// offsets inside a pixel (the fourth byte is padding and is never compared or
    /// encoded). Always one of libjpeg-turbo's RGBX, BGRX, XRGB or XBGR.
    Native4 {
        red: usize,
        green: usize,
        blue: usize,
    },
    /// Packed RGB8, converted from a layout libjpeg-turbo cannot read.
    Rgb,
}

impl WorkFormat {
    pub fn bytes_per_pixel(&self) -> usize {
        match self {
            Self::Native4 { .. } => 4,
            Self::Rgb => 3,
        }
    }

    /// Byte offsets of red, green and blue inside one pixel.
    pub fn offsets(&self) -> [usize; 3] {
        match *self {
            Self::Native4 { red, green, blue } => [red, green, blue],
            Self::Rgb => [0, 1, 2],
        }
    }

    /// The same pixels described as a (padding-free) `PixelLayout`, for `to_rgb`.
    pub fn layout(&self) -> PixelLayout {
        let [red, green, blue] = self.offsets();
        PixelLayout {
            bytes_per_pixel: self.bytes_per_pixel(),
            red,
            green,
            blue,
            scanline_pad: 8,
        }
    }
}

/// Copy (Native4) or convert (Rgb) `height` rows of a ZPixmap image, `stride` bytes apart,
/// into packed `format` pixels in `out` (resized to fit; its capacity is reused).
pub fn pack(
    src: &[u8],
    stride: usize,
    width: u32,
    height: u32,
    layout: &PixelLayout,
    format: WorkFormat,
    out: &mut Vec<u8>,
) {
    match format {
        WorkFormat::Native4 { .. } => {
            let row = width as usize * 4;
            let len = row * height as usize;
            out.clear();
            if stride == row {
                out.extend_from_slice(&src[..len]);
            } else {
                out.reserve(len);
                for src_row in src.chunks(stride).take(height as usize) {
                    out.extend_from_slice(&src_row[..row]);
                }
            }
        }
        WorkFormat::Rgb => to_rgb(src, stride, width, height, layout, out),
    }
}

/// Convert `height` rows of `width` pixels, `stride` bytes apart, into packed RGB8 in `out`
/// (resized to fit; its capacity is reused).
pub fn to_rgb(
    src: &[u8],
    stride: usize,
    width: u32,
    height: u32,
    layout: &PixelLayout,
    out: &mut Vec<u8>,
) {
    let (w, h) = (width as usize, height as usize);
    let bpp = layout.bytes_per_pixel;
    // Every byte is overwritten below, so only a growing buffer needs zero-filling.
    out.resize(w * h * 3, 0);
    let rows = src.chunks(stride).take(h).zip(out.chunks_exact_mut(w * 3));
    if bpp == 4 && (layout.red, layout.green, layout.blue) == (2, 1, 0) {
        // The common little-endian BGRX case: a fixed-offset loop the compiler vectorises.
        for (src_row, dst_row) in rows {
            for (s, d) in src_row[..w * 4]
                .chunks_exact(4)
                .zip(dst_row.chunks_exact_mut(3))
            {
                d[0] = s[2];
                d[1] = s[1];
                d[2] = s[0];
            }
        }
        return;
    }
    let (r, g, b) = (layout.red, layout.green, layout.blue);
    for (src_row, dst_row) in rows {
        for (s, d) in src_row[..w * bpp]
            .chunks_exact(bpp)
            .zip(dst_row.chunks_exact_mut(3))
        {
            d[0] = s[r];
            d[1] = s[g];
            d[2] = s[b];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRUECOLOR: [u32; 3] = [0xff0000, 0x00ff00, 0x0000ff];

    #[test]
    fn little_endian_32bpp_is_bgrx() {
        let l = PixelLayout::from_server(32, 32, true, TRUECOLOR).unwrap();
        assert_eq!((l.bytes_per_pixel, l.red, l.green, l.blue), (4, 2, 1, 0));
        // red, green, blue, white pixels as an LSB-first server sends them (pad 0).
        let src = [0, 0, 255, 0, 0, 255, 0, 0, 255, 0, 0, 0, 255, 255, 255, 0];
        let mut out = Vec::new();
        to_rgb(&src, 16, 4, 1, &l, &mut out);
        assert_eq!(out, [255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255]);
    }

    #[test]
    fn big_endian_32bpp_is_xrgb() {
        let l = PixelLayout::from_server(32, 32, false, TRUECOLOR).unwrap();
        assert_eq!((l.red, l.green, l.blue), (1, 2, 3));
        let mut out = Vec::new();
        to_rgb(&[0, 10, 20, 30], 4, 1, 1, &l, &mut out);
        assert_eq!(out, [10, 20, 30]);
    }

    #[test]
    fn packed_24bpp_honours_row_padding() {
        let l = PixelLayout::from_server(24, 32, true, TRUECOLOR).unwrap();
        assert_eq!(l.stride(1), 4);
        assert_eq!(l.stride(3), 12);
        // Two rows of one pixel each, each row padded to 4 bytes.
        let src = [0, 0, 255, 99, 255, 0, 0, 99];
        let mut out = Vec::new();
        to_rgb(&src, 4, 1, 2, &l, &mut out);
        assert_eq!(out, [255, 0, 0, 0, 0, 255]);
    }

    #[test]
    fn stride_for_32bpp_is_width_times_four() {
        let l = PixelLayout::from_server(32, 32, true, TRUECOLOR).unwrap();
        assert_eq!(l.stride(1280), 5120);
    }

    #[test]
    fn work_format_keeps_turbojpeg_orders_and_converts_the_rest() {
        let bgrx = PixelLayout::from_server(32, 32, true, TRUECOLOR).unwrap();
        assert_eq!(
            bgrx.work_format(),
            WorkFormat::Native4 {
                red: 2,
                green: 1,
                blue: 0
            }
        );
        let xrgb = PixelLayout::from_server(32, 32, false, TRUECOLOR).unwrap();
        assert_eq!(xrgb.work_format().offsets(), [1, 2, 3]);
        let packed24 = PixelLayout::from_server(24, 32, true, TRUECOLOR).unwrap();
        assert_eq!(packed24.work_format(), WorkFormat::Rgb);
        // Green in the top byte, red/blue below: no TurboJPEG order reads that.
        let odd = PixelLayout::from_server(32, 32, true, [0xff, 0xff000000, 0xff00]).unwrap();
        assert_eq!(odd.work_format(), WorkFormat::Rgb);
    }

    #[test]
    fn pack_copies_four_byte_rows_without_padding_and_converts_24bpp() {
        let bgrx = PixelLayout::from_server(32, 32, true, TRUECOLOR).unwrap();
        // One pixel per row, rows 8 bytes apart (4 bytes of junk after each).
        let src = [1, 2, 3, 0, 9, 9, 9, 9, 4, 5, 6, 0, 9, 9, 9, 9];
        let mut out = vec![7; 100];
        pack(&src, 8, 1, 2, &bgrx, bgrx.work_format(), &mut out);
        assert_eq!(out, [1, 2, 3, 0, 4, 5, 6, 0]);
        let packed24 = PixelLayout::from_server(24, 32, true, TRUECOLOR).unwrap();
        pack(
            &[0, 0, 255, 99],
            4,
            1,
            1,
            &packed24,
            WorkFormat::Rgb,
            &mut out,
        );
        assert_eq!(out, [255, 0, 0]);
    }

    #[test]
    fn rejects_unsupported_formats() {
        assert!(PixelLayout::from_server(16, 32, true, [0xf800, 0x07e0, 0x001f]).is_err());
        assert!(PixelLayout::from_server(32, 32, true, [0x3ff00000, 0xffc00, 0x3ff]).is_err());
    }
}
