//! PNG output. Frames of at most 256 colours are written as 8-bit indexed PNG: one byte a
//! pixel, no row filter (filters turn repeated glyphs into different byte strings and
//! hurt text), deflated by zlib-rs at a low level — on a text-heavy 1280×800 screen a
//! third of the JPEG's bytes at about its encode time (docs/capture-helper.md). The
//! writer works in bands of rows so `auto` can give up part-way when the frame turns out
//! to be too slow or too big. Other frames go through the `png` crate as RGB8 with
//! fdeflate (`Compression::Fast`), which bounds the time on photos.

use std::io::Write;
use std::time::Instant;

use flate2::write::ZlibEncoder;
use flate2::{Compression, Crc};

use super::EncodeError;

/// zlib level for indexed frames: level 2 (zlib-rs `deflate_fast`) gave 76 KB in ~2 ms on
/// the text-heavy bench frame, level 1 99 KB in ~1.3 ms, level 3 68 KB in ~2.9 ms.
pub const INDEXED_LEVEL: u32 = 2;
/// Rows deflated between two budget checks.
const BAND_ROWS: usize = 32;
const SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1a, b'\n'];

/// Limits for one indexed encode; crossing either abandons it.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    pub deadline: Instant,
    pub max_bytes: usize,
}

#[derive(Debug)]
pub enum Indexed {
    Done(Vec<u8>),
    OverTime,
    OverBytes,
}

/// An 8-bit indexed PNG of pixels `ids` (row-major, `width` per row), pixel `i` being
/// palette entry `remap[ids[i]]` of `palette` (RGB triples). `band` is scratch reused
/// across calls.
pub fn indexed(
    ids: &[u16],
    remap: &[u8],
    palette: &[u8],
    width: u32,
    height: u32,
    budget: Option<&Budget>,
    band: &mut Vec<u8>,
) -> Result<Indexed, EncodeError> {
    let w = width as usize;
    let mut out = Vec::with_capacity(ids.len() / 8 + palette.len() + 64);
    out.extend_from_slice(&SIGNATURE);
    let mut ihdr = [0u8; 13];
    ihdr[..4].copy_from_slice(&width.to_be_bytes());
    ihdr[4..8].copy_from_slice(&height.to_be_bytes());
    // bit depth 8, colour type 3 (indexed), deflate, adaptive-filter method, no interlace
    ihdr[8..].copy_from_slice(&[8, 3, 0, 0, 0]);
    chunk(&mut out, b"IHDR", &ihdr);
    chunk(&mut out, b"PLTE", palette);

    // One IDAT holding the whole zlib stream: its length is patched in at the end.
    let idat = out.len();
    out.extend_from_slice(&[0, 0, 0, 0]);
    out.extend_from_slice(b"IDAT");
    let mut z = ZlibEncoder::new(out, Compression::new(INDEXED_LEVEL));
    for rows in ids[..w * height as usize].chunks(w * BAND_ROWS) {
        band.clear();
        for row in rows.chunks_exact(w) {
            band.push(0); // filter type None
            band.extend(row.iter().map(|&id| remap[usize::from(id)]));
        }
        z.write_all(band)?;
        if let Some(b) = budget {
            if z.get_ref().len() > b.max_bytes {
                return Ok(Indexed::OverBytes);
            }
            if Instant::now() > b.deadline {
                return Ok(Indexed::OverTime);
            }
        }
    }
    let mut out = z.finish()?;
    let len = out.len() - idat - 8;
    let len = u32::try_from(len).map_err(|_| EncodeError::TooLarge(len))?;
    out[idat..idat + 4].copy_from_slice(&len.to_be_bytes());
    let crc = crc32(&out[idat + 4..]);
    out.extend_from_slice(&crc.to_be_bytes());
    chunk(&mut out, b"IEND", &[]);
    if budget.is_some_and(|b| out.len() > b.max_bytes) {
        return Ok(Indexed::OverBytes);
    }
    Ok(Indexed::Done(out))
}

/// RGB8 PNG through the `png` crate at its fastest level (fdeflate, adaptive filters).
pub fn rgb(rgb: &[u8], width: u32, height: u32) -> Result<Vec<u8>, EncodeError> {
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

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let start = out.len();
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let crc = crc32(&out[start..]);
    out.extend_from_slice(&crc.to_be_bytes());
}

/// PNG's CRC-32 (the same polynomial as gzip's) over a chunk's type and data.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = Crc::new();
    crc.update(bytes);
    crc.sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn decode(png_bytes: &[u8]) -> (png::OutputInfo, Vec<u8>) {
        let mut decoder = png::Decoder::new(png_bytes);
        decoder.set_transformations(png::Transformations::EXPAND);
        let mut reader = decoder.read_info().expect("valid PNG");
        let mut buf = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buf).expect("PNG frame");
        buf.truncate(info.buffer_size());
        (info, buf)
    }

    #[test]
    fn indexed_png_decodes_to_the_palette_colours() {
        // 70 rows: more than two bands, the last one partial.
        let (w, h) = (5u32, 70u32);
        // Colour numbers 0-5, two for each palette entry.
        let ids: Vec<u16> = (0..w * h).map(|i| (i % 6) as u16).collect();
        let remap = [0, 1, 2, 0, 1, 2];
        let palette = [255, 0, 0, 0, 255, 0, 0, 0, 255];
        let Indexed::Done(bytes) =
            indexed(&ids, &remap, &palette, w, h, None, &mut Vec::new()).unwrap()
        else {
            panic!("no budget, no give-up")
        };
        let (info, rgb) = decode(&bytes);
        assert_eq!(
            (info.width, info.height, info.color_type),
            (w, h, png::ColorType::Rgb)
        );
        for (i, px) in rgb.chunks_exact(3).enumerate() {
            let want = &palette[(i % 3) * 3..][..3];
            assert_eq!(px, want, "pixel {i}");
        }
    }

    #[test]
    fn budget_gives_up_on_bytes_or_time() {
        let (w, h) = (64u32, 128u32);
        // Pseudo-random indices: incompressible.
        let mut s = 1u32;
        let ids: Vec<u16> = (0..w * h)
            .map(|_| {
                s = s.wrapping_mul(1_103_515_245).wrapping_add(12345);
                (s >> 24) as u16
            })
            .collect();
        let remap: Vec<u8> = (0..=255).collect();
        let palette: Vec<u8> = (0..=255u8).flat_map(|i| [i, i, i]).collect();
        let far = Instant::now() + Duration::from_secs(60);
        let tight = Budget {
            deadline: far,
            max_bytes: 1000,
        };
        let r = indexed(&ids, &remap, &palette, w, h, Some(&tight), &mut Vec::new()).unwrap();
        assert!(matches!(r, Indexed::OverBytes), "{r:?}");
        let past = Budget {
            deadline: Instant::now(),
            max_bytes: usize::MAX,
        };
        std::thread::sleep(Duration::from_millis(2));
        let r = indexed(&ids, &remap, &palette, w, h, Some(&past), &mut Vec::new()).unwrap();
        assert!(matches!(r, Indexed::OverTime), "{r:?}");
        let roomy = Budget {
            deadline: far,
            max_bytes: usize::MAX,
        };
        let r = indexed(&ids, &remap, &palette, w, h, Some(&roomy), &mut Vec::new()).unwrap();
        assert!(matches!(r, Indexed::Done(_)), "{r:?}");
    }
}
