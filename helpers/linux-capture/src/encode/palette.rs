//! Colour indexing for screen content: one pass over the work-format pixels that builds
//! a palette of at most 256 colours and one index byte per pixel, giving up at the 257th
//! distinct colour. Text, terminals and flat UI usually fit (anti-aliased text on one
//! background is a few dozen to ~250 shades); photos and scaled frames do not, and they
//! give up within the first rows, so the failed attempt costs next to nothing.

use super::Pixels;
use crate::convert::WorkFormat;

pub const MAX_COLOURS: usize = 256;

/// Open-addressing table size: 4 × the most colours kept, so probes stay short.
const SLOTS: usize = 1024;
const EMPTY: u16 = u16::MAX;
/// No key equals this: keys have their pad (or top) byte cleared.
const NO_KEY: u32 = u32::MAX;

/// Reused across frames: the table, the palette and the index buffer.
pub struct Indexer {
    keys: Box<[u32; SLOTS]>,
    values: Box<[u16; SLOTS]>,
    /// RGB triples, in order of first appearance (PLTE order).
    pub palette: Vec<u8>,
    /// One palette index per pixel, row-major (valid after a successful `index`).
    pub indices: Vec<u8>,
}

impl Default for Indexer {
    fn default() -> Self {
        Self {
            keys: Box::new([NO_KEY; SLOTS]),
            values: Box::new([EMPTY; SLOTS]),
            palette: Vec::with_capacity(MAX_COLOURS * 3),
            indices: Vec::new(),
        }
    }
}

impl Indexer {
    /// Index `px`. Returns false as soon as a 257th colour shows up.
    pub fn index(&mut self, px: Pixels<'_>) -> bool {
        self.palette.clear();
        self.values.fill(EMPTY);
        let n = px.width as usize * px.height as usize;
        self.indices.clear();
        self.indices.resize(n, 0);
        let bpp = px.format.bytes_per_pixel();
        let data = &px.data[..n * bpp];
        match px.format {
            WorkFormat::Native4 { red, green, blue } => {
                // The fourth byte is padding: cleared so it never splits a colour.
                let pad = 6 - red - green - blue;
                let mask = !(0xffu32 << (pad * 8));
                let keys = data
                    .chunks_exact(4)
                    .map(|p| u32::from_le_bytes([p[0], p[1], p[2], p[3]]) & mask);
                self.run(keys, [red * 8, green * 8, blue * 8])
            }
            WorkFormat::Rgb => {
                let keys = data
                    .chunks_exact(3)
                    .map(|p| u32::from_le_bytes([p[0], p[1], p[2], 0]));
                self.run(keys, [0, 8, 16])
            }
        }
    }

    /// Number of colours found by the last successful `index`.
    pub fn colours(&self) -> usize {
        self.palette.len() / 3
    }

    fn run(&mut self, keys: impl Iterator<Item = u32>, shifts: [usize; 3]) -> bool {
        let mut indices = std::mem::take(&mut self.indices);
        // Screens are mostly runs of one colour: only a change of colour costs a lookup.
        let (mut last, mut last_index) = (NO_KEY, 0u8);
        let mut ok = true;
        for (out, key) in indices.iter_mut().zip(keys) {
            if key != last {
                match self.lookup_or_insert(key, shifts) {
                    Some(i) => last_index = i,
                    None => {
                        ok = false;
                        break;
                    }
                }
                last = key;
            }
            *out = last_index;
        }
        self.indices = indices;
        ok
    }

    fn lookup_or_insert(&mut self, key: u32, shifts: [usize; 3]) -> Option<u8> {
        let mut slot = (key.wrapping_mul(0x9E37_79B1) >> 22) as usize;
        loop {
            let value = self.values[slot];
            if value == EMPTY {
                let index = self.colours();
                if index == MAX_COLOURS {
                    return None;
                }
                self.keys[slot] = key;
                self.values[slot] = index as u16;
                self.palette.extend(shifts.map(|s| (key >> s) as u8));
                return Some(index as u8);
            }
            if self.keys[slot] == key {
                return Some(value as u8);
            }
            slot = (slot + 1) & (SLOTS - 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bgrx(pixels: &[[u8; 3]]) -> Vec<u8> {
        pixels
            .iter()
            .flat_map(|&[r, g, b]| [b, g, r, 0x5a])
            .collect()
    }

    fn px(data: &[u8], width: u32, height: u32, format: WorkFormat) -> Pixels<'_> {
        Pixels {
            data,
            width,
            height,
            format,
        }
    }

    const BGRX: WorkFormat = WorkFormat::Native4 {
        red: 2,
        green: 1,
        blue: 0,
    };

    #[test]
    fn indexes_colours_in_order_of_appearance_ignoring_padding() {
        let mut data = bgrx(&[[255, 0, 0], [0, 255, 0], [255, 0, 0], [1, 2, 3]]);
        data[11] = 0x00; // a different pad byte is the same colour
        let mut ix = Indexer::default();
        assert!(ix.index(px(&data, 2, 2, BGRX)));
        assert_eq!(ix.indices, [0, 1, 0, 2]);
        assert_eq!(ix.palette, [255, 0, 0, 0, 255, 0, 1, 2, 3]);
        assert_eq!(ix.colours(), 3);
    }

    #[test]
    fn reads_every_four_byte_order_and_packed_rgb() {
        for (red, green, blue) in [(0, 1, 2), (2, 1, 0), (1, 2, 3), (3, 2, 1)] {
            let mut pixel = [0u8; 4];
            (pixel[red], pixel[green], pixel[blue]) = (10, 20, 30);
            let mut ix = Indexer::default();
            let format = WorkFormat::Native4 { red, green, blue };
            assert!(ix.index(px(&pixel, 1, 1, format)));
            assert_eq!(ix.palette, [10, 20, 30], "{format:?}");
        }
        let mut ix = Indexer::default();
        assert!(ix.index(px(&[10, 20, 30, 40, 50, 60], 2, 1, WorkFormat::Rgb)));
        assert_eq!(ix.palette, [10, 20, 30, 40, 50, 60]);
    }

    #[test]
    fn gives_up_at_the_257th_colour_and_recovers_on_the_next_frame() {
        let many: Vec<[u8; 3]> = (0..257u32).map(|i| [i as u8, (i >> 8) as u8, 7]).collect();
        let mut ix = Indexer::default();
        assert!(!ix.index(px(&bgrx(&many), 257, 1, BGRX)));
        assert!(ix.index(px(&bgrx(&many[..256]), 256, 1, BGRX)));
        assert_eq!(ix.colours(), 256);
        assert_eq!(ix.indices[255], 255);
        assert!(ix.index(px(&bgrx(&[[9, 9, 9]]), 1, 1, BGRX)));
        assert_eq!((ix.colours(), ix.indices.len()), (1, 1));
    }
}
