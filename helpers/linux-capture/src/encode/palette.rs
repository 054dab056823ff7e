//! Colour indexing for screen content: one pass over the work-format pixels counts the
//! distinct colours (giving up past a cap), then the frame becomes a palette of at most 256
//! colours and one index byte per pixel.
//!
//! - `Fit::Exact` (lossless): at most 256 colours, or nothing. Text, terminals and flat UI
//!   alone usually fit (anti-aliased text on one background is a few dozen to ~250 shades).
//! - `Fit::Near` (for `auto`): up to `MAX_DISTINCT` colours. A real desktop's decorations
//!   (gradient title bars, icons, the panel) push a text screen to several hundred colours
//!   in a few thousand pixels, so the palette is the 192 most frequent colours plus up to
//!   64 picked greedily (each time the colour with the largest count × squared distance to
//!   its nearest palette colour), and every other colour is drawn as its nearest palette
//!   colour. Accepted only when no pixel moves further than `MAX_NEAR_ERROR`, so a red icon
//!   stays red and text stays exact (its colours are the frequent ones).
//!
//! Photos and scaled frames pass `MAX_DISTINCT` within their first rows, so the attempt
//! costs next to nothing there.

use super::Pixels;
use crate::convert::WorkFormat;

pub const MAX_COLOURS: usize = 256;
/// Most distinct colours `Fit::Near` considers before declaring the frame a photo.
pub const MAX_DISTINCT: usize = 4096;
/// Colours kept as they are (by frequency) before the greedy picks in `Fit::Near`.
const FREQUENT: usize = 192;
/// Largest distance (Euclidean, RGB 0-255) a pixel may move in `Fit::Near`. On the bench's
/// text-heavy desktop frame JPEG q75 moves 18,205 pixels further than this (p99 36, max 183);
/// the near palette moves ~1% of the pixels, by 2.3 on average and 26 at most. Too small to
/// change a hue: a red icon stays red.
pub const MAX_NEAR_ERROR: u32 = 32;

/// Open-addressing table: twice the most colours kept, so probes stay short.
const SLOTS: usize = 2 * MAX_DISTINCT;
const EMPTY: u16 = u16::MAX;
/// No key equals this: keys have their pad (or top) byte cleared.
const NO_KEY: u32 = u32::MAX;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fit {
    Exact,
    Near,
}

/// What `index` made of the frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Indexing {
    /// Every pixel is exactly its palette colour.
    Exact,
    /// `moved` pixels are drawn as a palette colour at most `max_error` away.
    Near { moved: u64, max_error: f64 },
    /// Too many colours (or, for `Fit::Near`, too far from any palette of 256).
    TooMany,
}

/// Reused across frames: the table, the colours seen, and the per-pixel buffers.
pub struct Indexer {
    keys: Box<[u32; SLOTS]>,
    slots: Box<[u16; SLOTS]>,
    /// Distinct colours in order of first appearance (keys), and their pixel counts.
    colours: Vec<u32>,
    counts: Vec<u32>,
    /// Each pixel's colour number (position in `colours`), row-major.
    pub ids: Vec<u16>,
    /// Colour number → palette index (valid after `Exact` or `Near`). Applied while the PNG
    /// rows are written, so no separate pass over the frame makes index bytes.
    pub remap: Vec<u8>,
    shifts: [usize; 3],
    /// RGB triples (PLTE order).
    pub palette: Vec<u8>,
}

impl Default for Indexer {
    fn default() -> Self {
        Self {
            keys: Box::new([NO_KEY; SLOTS]),
            slots: Box::new([EMPTY; SLOTS]),
            colours: Vec::with_capacity(MAX_DISTINCT),
            counts: Vec::with_capacity(MAX_DISTINCT),
            ids: Vec::new(),
            remap: Vec::with_capacity(MAX_DISTINCT),
            shifts: [0, 8, 16],
            palette: Vec::with_capacity(MAX_COLOURS * 3),
        }
    }
}

impl Indexer {
    pub fn index(&mut self, px: Pixels<'_>, fit: Fit) -> Indexing {
        let cap = match fit {
            Fit::Exact => MAX_COLOURS,
            Fit::Near => MAX_DISTINCT,
        };
        if !self.count(px, cap) {
            return Indexing::TooMany;
        }
        let n = self.colours.len();
        let mut remap = std::mem::take(&mut self.remap);
        remap.clear();
        remap.resize(n, 0);
        let outcome = if n <= MAX_COLOURS {
            for (id, r) in remap.iter_mut().enumerate() {
                *r = id as u8;
            }
            self.palette.clear();
            for &key in &self.colours {
                self.palette.extend(rgb_of(key, self.shifts));
            }
            Indexing::Exact
        } else {
            self.reduce(&mut remap).unwrap_or(Indexing::TooMany)
        };
        self.remap = remap;
        outcome
    }

    /// Palette index of pixel `i` (after `Exact` or `Near`).
    pub fn index_of(&self, i: usize) -> u8 {
        self.remap[usize::from(self.ids[i])]
    }

    /// Count distinct colours into `colours`/`counts` and number every pixel; false past `cap`.
    fn count(&mut self, px: Pixels<'_>, cap: usize) -> bool {
        self.colours.clear();
        self.counts.clear();
        self.slots.fill(EMPTY);
        let n = px.width as usize * px.height as usize;
        let data = &px.data[..n * px.format.bytes_per_pixel()];
        let mut ids = std::mem::take(&mut self.ids);
        ids.clear();
        ids.resize(n, 0);
        let ok = match px.format {
            WorkFormat::Native4 { red, green, blue } => {
                self.shifts = [red * 8, green * 8, blue * 8];
                // The fourth byte is padding: cleared so it never splits a colour.
                let pad = 6 - red - green - blue;
                let mask = !(0xffu32 << (pad * 8));
                let keys = data
                    .chunks_exact(4)
                    .map(|p| u32::from_le_bytes([p[0], p[1], p[2], p[3]]) & mask);
                self.number(keys, &mut ids, cap)
            }
            WorkFormat::Rgb => {
                self.shifts = [0, 8, 16];
                let keys = data
                    .chunks_exact(3)
                    .map(|p| u32::from_le_bytes([p[0], p[1], p[2], 0]));
                self.number(keys, &mut ids, cap)
            }
        };
        self.ids = ids;
        ok
    }

    fn number(&mut self, keys: impl Iterator<Item = u32>, ids: &mut [u16], cap: usize) -> bool {
        // Screens are mostly runs of one colour: only a change of colour costs a lookup.
        let (mut last, mut last_id, mut run) = (NO_KEY, 0u16, 0u32);
        for (out, key) in ids.iter_mut().zip(keys) {
            if key != last {
                if run > 0 {
                    self.counts[usize::from(last_id)] += run;
                }
                match self.lookup_or_insert(key, cap) {
                    Some(id) => last_id = id,
                    None => return false,
                }
                (last, run) = (key, 0);
            }
            run += 1;
            *out = last_id;
        }
        if run > 0 {
            self.counts[usize::from(last_id)] += run;
        }
        true
    }

    fn lookup_or_insert(&mut self, key: u32, cap: usize) -> Option<u16> {
        let mut slot = (key.wrapping_mul(0x9E37_79B1) >> (32 - SLOTS.trailing_zeros())) as usize;
        loop {
            let id = self.slots[slot];
            if id == EMPTY {
                let id = self.colours.len();
                if id == cap {
                    return None;
                }
                self.keys[slot] = key;
                self.slots[slot] = id as u16;
                self.colours.push(key);
                self.counts.push(0);
                return Some(id as u16);
            }
            if self.keys[slot] == key {
                return Some(id);
            }
            slot = (slot + 1) & (SLOTS - 1);
        }
    }

    /// `Fit::Near` for more than 256 colours: choose the palette, fill `remap` (colour
    /// number → palette index); None when some pixel would move too far.
    fn reduce(&mut self, remap: &mut [u8]) -> Option<Indexing> {
        let rgb: Vec<[u8; 3]> = self
            .colours
            .iter()
            .map(|&k| rgb_of(k, self.shifts))
            .collect();
        let mut order: Vec<usize> = (0..rgb.len()).collect();
        order.sort_unstable_by_key(|&id| std::cmp::Reverse(self.counts[id]));
        let mut chosen: Vec<usize> = order[..FREQUENT].to_vec();
        for (p, &id) in chosen.iter().enumerate() {
            remap[id] = p as u8;
        }
        // Every other colour's nearest chosen colour (squared distance, palette index).
        let rest = &order[FREQUENT..];
        let mut nearest: Vec<(u32, u8)> = rest
            .iter()
            .map(|&id| {
                chosen
                    .iter()
                    .enumerate()
                    .fold((u32::MAX, 0u8), |best, (p, &c)| {
                        let d = distance2(rgb[id], rgb[c]);
                        if d < best.0 {
                            (d, p as u8)
                        } else {
                            best
                        }
                    })
            })
            .collect();
        while chosen.len() < MAX_COLOURS {
            let cost = |j: usize| u64::from(self.counts[rest[j]]) * u64::from(nearest[j].0);
            let Some(worst) = (0..rest.len()).max_by_key(|&j| cost(j)) else {
                break;
            };
            if cost(worst) == 0 {
                break;
            }
            let p = chosen.len() as u8;
            let added = rgb[rest[worst]];
            chosen.push(rest[worst]);
            for (j, &id) in rest.iter().enumerate() {
                let d = distance2(rgb[id], added);
                if d < nearest[j].0 {
                    nearest[j] = (d, p);
                }
            }
        }
        let (mut moved, mut worst) = (0u64, 0u32);
        for (j, &id) in rest.iter().enumerate() {
            let (d, p) = nearest[j];
            remap[id] = p;
            if d > 0 {
                moved += u64::from(self.counts[id]);
                worst = worst.max(d);
            }
        }
        if worst > MAX_NEAR_ERROR * MAX_NEAR_ERROR {
            return None;
        }
        self.palette.clear();
        for &id in &chosen {
            self.palette.extend(rgb[id]);
        }
        Some(Indexing::Near {
            moved,
            max_error: f64::from(worst).sqrt(),
        })
    }

    /// Number of colours in the last palette made.
    pub fn colours(&self) -> usize {
        self.palette.len() / 3
    }
}

fn rgb_of(key: u32, shifts: [usize; 3]) -> [u8; 3] {
    shifts.map(|s| (key >> s) as u8)
}

fn distance2(a: [u8; 3], b: [u8; 3]) -> u32 {
    (0..3)
        .map(|c| {
            let d = i32::from(a[c]) - i32::from(b[c]);
            (d * d) as u32
        })
        .sum()
}

#[cfg(test)]
mod tests;
