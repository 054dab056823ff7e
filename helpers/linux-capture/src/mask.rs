//! Blacks out rectangles (windows the agent may not see) in a pixel buffer — the grabbed
//! frame itself, in the server's layout, before anything reads it.

use crate::contract::Rect;

/// Fill every part of `masks` that overlaps `area` with zero bytes (black, padding
/// included). `pixels` holds exactly the pixels of `area` (root coordinates), `bpp` bytes
/// each, rows `stride` bytes apart; masks are in root coordinates too.
pub fn apply_masks(pixels: &mut [u8], stride: usize, bpp: usize, area: &Rect, masks: &[Rect]) {
    for mask in masks {
        let Some(hit) = area.intersect(mask) else {
            continue;
        };
        let left = (hit.x - area.x) as usize * bpp;
        let top = (hit.y - area.y) as usize;
        let span = hit.width as usize * bpp;
        for row in pixels
            .chunks_mut(stride)
            .skip(top)
            .take(hit.height as usize)
        {
            row[left..left + span].fill(0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Which pixels of a `w`x`h` all-white image end up black.
    fn black_map(area: Rect, masks: &[Rect]) -> Vec<Vec<u8>> {
        let mut rgb = vec![255u8; (area.width * area.height * 3) as usize];
        apply_masks(&mut rgb, area.width as usize * 3, 3, &area, masks);
        rgb.chunks(area.width as usize * 3)
            .map(|row| row.chunks(3).map(|p| u8::from(p == [0, 0, 0])).collect())
            .collect()
    }

    #[test]
    fn four_byte_pixels_with_padded_rows() {
        // 2x2 area, 4 bytes per pixel, rows padded to 12 bytes; mask the right column.
        let area = Rect::new(0, 0, 2, 2);
        let mut px = vec![255u8; 24];
        apply_masks(&mut px, 12, 4, &area, &[Rect::new(1, 0, 1, 2)]);
        let row = [255, 255, 255, 255, 0, 0, 0, 0, 255, 255, 255, 255];
        assert_eq!(px, [row, row].concat());
    }

    #[test]
    fn masks_in_root_coordinates_relative_to_area() {
        let area = Rect::new(10, 20, 4, 3);
        let got = black_map(area, &[Rect::new(11, 21, 2, 1)]);
        assert_eq!(
            got,
            vec![vec![0, 0, 0, 0], vec![0, 1, 1, 0], vec![0, 0, 0, 0]]
        );
    }

    #[test]
    fn clips_masks_that_overhang_or_miss() {
        let area = Rect::new(0, 0, 3, 2);
        let got = black_map(area, &[Rect::new(-5, -5, 6, 6), Rect::new(50, 50, 5, 5)]);
        assert_eq!(got, vec![vec![1, 0, 0], vec![0, 0, 0]]);
    }
}
