//! The staleness guard's arithmetic: count raw pixels whose colour differs between a kept
//! frame and a freshly captured patch of it. Never compares decoded JPEG.

use crate::contract::Rect;
use crate::convert::WorkFormat;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Difference {
    pub differing: u64,
    pub compared: u64,
}

/// `kept` holds the pixels of `kept_area`; `live` holds the pixels of `patch`, which must
/// lie inside `kept_area`. Both are packed `format` pixels, already masked the same way.
/// Only the red, green and blue bytes count (a 4-byte pixel's padding byte never does).
pub fn compare_patch(
    kept: &[u8],
    kept_area: &Rect,
    live: &[u8],
    patch: &Rect,
    format: WorkFormat,
) -> Difference {
    debug_assert!(kept_area.contains(patch));
    let bpp = format.bytes_per_pixel();
    let [r, g, b] = format.offsets();
    let kept_row = kept_area.width as usize * bpp;
    let live_row = patch.width as usize * bpp;
    let left = (patch.x - kept_area.x) as usize * bpp;
    let top = (patch.y - kept_area.y) as usize;
    let mut differing = 0u64;
    for (live_line, kept_line) in live
        .chunks_exact(live_row)
        .zip(kept.chunks_exact(kept_row).skip(top))
    {
        let kept_line = &kept_line[left..left + live_row];
        differing += live_line
            .chunks_exact(bpp)
            .zip(kept_line.chunks_exact(bpp))
            .filter(|(x, y)| x[r] != y[r] || x[g] != y[g] || x[b] != y[b])
            .count() as u64;
    }
    Difference {
        differing,
        compared: u64::from(patch.width) * u64::from(patch.height),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 4x3 frame at (10, 10) where pixel value encodes its position.
    fn kept() -> (Vec<u8>, Rect) {
        let area = Rect::new(10, 10, 4, 3);
        let px = (0..12u8).flat_map(|i| [i, i, i]).collect();
        (px, area)
    }

    #[test]
    fn identical_patch_is_same() {
        let (k, area) = kept();
        // Patch covering columns 1-2 of rows 1-2: indices 5,6,9,10.
        let live: Vec<u8> = [5u8, 6, 9, 10].iter().flat_map(|&i| [i, i, i]).collect();
        let d = compare_patch(&k, &area, &live, &Rect::new(11, 11, 2, 2), WorkFormat::Rgb);
        assert_eq!(
            d,
            Difference {
                differing: 0,
                compared: 4
            }
        );
    }

    #[test]
    fn counts_each_changed_pixel_once() {
        let (k, area) = kept();
        let mut live: Vec<u8> = [5u8, 6, 9, 10].iter().flat_map(|&i| [i, i, i]).collect();
        live[0] = 200; // one channel of the first pixel
        live[9..12].copy_from_slice(&[1, 2, 3]); // the whole last pixel
        let d = compare_patch(&k, &area, &live, &Rect::new(11, 11, 2, 2), WorkFormat::Rgb);
        assert_eq!(
            d,
            Difference {
                differing: 2,
                compared: 4
            }
        );
    }

    #[test]
    fn whole_frame_patch() {
        let (k, area) = kept();
        let d = compare_patch(&k, &area, &k, &area, WorkFormat::Rgb);
        assert_eq!(
            d,
            Difference {
                differing: 0,
                compared: 12
            }
        );
    }

    #[test]
    fn four_byte_pixels_ignore_padding() {
        let xrgb = WorkFormat::Native4 {
            red: 1,
            green: 2,
            blue: 3,
        };
        let area = Rect::new(0, 0, 3, 1);
        let kept = [0, 1, 2, 3, 0, 4, 5, 6, 0, 7, 8, 9];
        // Pixel 0: only the pad byte changed; pixel 2: blue changed.
        let live = [99, 1, 2, 3, 0, 4, 5, 6, 0, 7, 8, 10];
        let d = compare_patch(&kept, &area, &live, &area, xrgb);
        assert_eq!(
            d,
            Difference {
                differing: 1,
                compared: 3
            }
        );
    }
}
