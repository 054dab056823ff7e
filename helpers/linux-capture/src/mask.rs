//! Blacks out rectangles (windows the agent may not see) in an RGB buffer.

use crate::contract::Rect;

/// Fill every part of `masks` that overlaps `area` with black. `rgb` holds exactly the
/// pixels of `area` (root coordinates); masks are in root coordinates too.
pub fn apply_masks(rgb: &mut [u8], area: &Rect, masks: &[Rect]) {
    let row_bytes = area.width as usize * 3;
    for mask in masks {
        let Some(hit) = area.intersect(mask) else {
            continue;
        };
        let left = (hit.x - area.x) as usize * 3;
        let top = (hit.y - area.y) as usize;
        let span = hit.width as usize * 3;
        for row in rgb
            .chunks_exact_mut(row_bytes)
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
        apply_masks(&mut rgb, &area, masks);
        rgb.chunks(area.width as usize * 3)
            .map(|row| row.chunks(3).map(|p| u8::from(p == [0, 0, 0])).collect())
            .collect()
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
