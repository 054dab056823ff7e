//! A deterministic photo-like frame for the encoder bench: smooth colour fields at four
//! scales (value noise) plus per-pixel grain, so it has the statistics that matter to an
//! encoder — thousands of colours, no repeats, soft gradients, sensor-like noise — without
//! shipping a photograph. JPEG q75 needs ~0.1 byte a pixel for it; lossless codecs ~2.

const OCTAVES: [(u32, f32); 5] = [(8, 110.0), (24, 50.0), (72, 24.0), (216, 16.0), (640, 12.0)];

/// `width`×`height` BGRX pixels (the usual depth-24 server layout).
pub fn photo_bgrx(width: u32, height: u32) -> Vec<u8> {
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let grids: Vec<Vec<[f32; 3]>> = OCTAVES
        .iter()
        .map(|&(cells, _)| {
            (0..(cells + 1) * (cells + 1))
                .map(|_| {
                    let v = next();
                    [0, 8, 16].map(|s| ((v >> s) & 255) as f32 / 255.0 - 0.5)
                })
                .collect()
        })
        .collect();
    let mut out = Vec::with_capacity(width as usize * height as usize * 4);
    for y in 0..height {
        for x in 0..width {
            let mut rgb = [128.0f32, 118.0, 100.0];
            for (grid, &(cells, amplitude)) in grids.iter().zip(&OCTAVES) {
                let fx = x as f32 * cells as f32 / width as f32;
                let fy = y as f32 * cells as f32 / height as f32;
                let (ix, iy) = (fx as u32, fy as u32);
                let (tx, ty) = (smooth(fx - ix as f32), smooth(fy - iy as f32));
                let at =
                    |a: u32, b: u32| grid[(b.min(cells) * (cells + 1) + a.min(cells)) as usize];
                for (c, value) in rgb.iter_mut().enumerate() {
                    let top = at(ix, iy)[c] * (1.0 - tx) + at(ix + 1, iy)[c] * tx;
                    let bottom = at(ix, iy + 1)[c] * (1.0 - tx) + at(ix + 1, iy + 1)[c] * tx;
                    *value += (top * (1.0 - ty) + bottom * ty) * amplitude;
                }
            }
            let grain = next();
            let [r, g, b] = [0, 1, 2].map(|c| {
                (rgb[c] + ((grain >> (c * 8)) & 31) as f32 - 15.5).clamp(0.0, 255.0) as u8
            });
            out.extend_from_slice(&[b, g, r, 0]);
        }
    }
    out
}

fn smooth(t: f32) -> f32 {
    t * t * (3.0 - 2.0 * t)
}
