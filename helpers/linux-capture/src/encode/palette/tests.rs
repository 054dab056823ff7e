use super::*;

const BGRX: WorkFormat = WorkFormat::Native4 {
    red: 2,
    green: 1,
    blue: 0,
};

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

/// The colour each pixel is drawn as.
fn drawn(ix: &Indexer) -> Vec<[u8; 3]> {
    (0..ix.ids.len())
        .map(|i| {
            let p = &ix.palette[usize::from(ix.index_of(i)) * 3..][..3];
            [p[0], p[1], p[2]]
        })
        .collect()
}

fn indices(ix: &Indexer) -> Vec<u8> {
    (0..ix.ids.len()).map(|i| ix.index_of(i)).collect()
}

/// `frequent` grey shades of 40 pixels each, then `rare` (2 pixels each).
fn scene(frequent: usize, rare: &[[u8; 3]]) -> Vec<[u8; 3]> {
    let mut out = Vec::new();
    for g in 0..frequent {
        let v = g as u8;
        out.extend(std::iter::repeat_n([v, v, v], 40));
    }
    for &c in rare {
        out.extend([c, c]);
    }
    out
}

#[test]
fn exact_indexes_colours_in_order_of_appearance_ignoring_padding() {
    let mut data = bgrx(&[[255, 0, 0], [0, 255, 0], [255, 0, 0], [1, 2, 3]]);
    data[11] = 0x00; // a different pad byte is the same colour
    let mut ix = Indexer::default();
    assert_eq!(ix.index(px(&data, 2, 2, BGRX), Fit::Exact), Indexing::Exact);
    assert_eq!(indices(&ix), [0, 1, 0, 2]);
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
        assert_eq!(
            ix.index(px(&pixel, 1, 1, format), Fit::Exact),
            Indexing::Exact
        );
        assert_eq!(ix.palette, [10, 20, 30], "{format:?}");
    }
    let mut ix = Indexer::default();
    let rgb = [10, 20, 30, 40, 50, 60];
    assert_eq!(
        ix.index(px(&rgb, 2, 1, WorkFormat::Rgb), Fit::Near),
        Indexing::Exact
    );
    assert_eq!(ix.palette, rgb);
}

#[test]
fn exact_gives_up_at_the_257th_colour_and_recovers_on_the_next_frame() {
    let many: Vec<[u8; 3]> = (0..257u32).map(|i| [i as u8, (i >> 8) as u8, 7]).collect();
    let mut ix = Indexer::default();
    assert_eq!(
        ix.index(px(&bgrx(&many), 257, 1, BGRX), Fit::Exact),
        Indexing::TooMany
    );
    let data = bgrx(&many[..256]);
    assert_eq!(
        ix.index(px(&data, 256, 1, BGRX), Fit::Exact),
        Indexing::Exact
    );
    assert_eq!((ix.colours(), ix.index_of(255)), (256, 255));
    assert_eq!(
        ix.index(px(&bgrx(&[[9, 9, 9]]), 1, 1, BGRX), Fit::Exact),
        Indexing::Exact
    );
    assert_eq!((ix.colours(), ix.ids.len()), (1, 1));
}

#[test]
fn near_keeps_frequent_colours_exact_and_moves_rare_ones_a_little() {
    // 250 greys, plus 60 rare colours just off them: more than 256 in all.
    let rare: Vec<[u8; 3]> = (0..60u8).map(|i| [i * 4 + 1, i * 4 + 3, i * 4]).collect();
    let pixels = scene(250, &rare);
    let data = bgrx(&pixels);
    let mut ix = Indexer::default();
    let w = pixels.len() as u32;
    assert_eq!(
        ix.index(px(&data, w, 1, BGRX), Fit::Exact),
        Indexing::TooMany
    );
    let Indexing::Near { moved, max_error } = ix.index(px(&data, w, 1, BGRX), Fit::Near) else {
        panic!("not indexed")
    };
    assert!(
        moved > 0 && max_error <= f64::from(MAX_NEAR_ERROR),
        "{moved} {max_error}"
    );
    assert_eq!(ix.colours(), 256);
    for (got, want) in drawn(&ix).iter().zip(&pixels) {
        if want[0] == want[1] && want[1] == want[2] {
            assert_eq!(got, want, "frequent colours stay exact");
        }
        assert!(distance2(*got, *want) <= MAX_NEAR_ERROR * MAX_NEAR_ERROR);
    }
}

#[test]
fn near_keeps_a_small_distinct_colour() {
    // 250 greys, 30 rare near-greys, and a little red icon (8 shades of red).
    let mut rare: Vec<[u8; 3]> = (0..30u8).map(|i| [i * 8 + 2, i * 8, i * 8 + 1]).collect();
    rare.extend((0..8u8).map(|i| [250 - i, 20 + i, 10]));
    let pixels = scene(250, &rare);
    let data = bgrx(&pixels);
    let mut ix = Indexer::default();
    let w = pixels.len() as u32;
    assert!(matches!(
        ix.index(px(&data, w, 1, BGRX), Fit::Near),
        Indexing::Near { .. }
    ));
    let last = drawn(&ix)[pixels.len() - 1];
    assert!(
        last[0] > 200 && last[1] < 60 && last[2] < 60,
        "red stays red: {last:?}"
    );
}

#[test]
fn near_refuses_when_some_colour_would_move_too_far() {
    // 256 frequent greys plus 100 vivid rare colours far from them and from each other:
    // 64 picks cannot cover them all.
    let rare: Vec<[u8; 3]> = (0..100u32)
        .map(|i| {
            [
                (i * 97 % 256) as u8,
                (i * 57 % 256) as u8 ^ 0x80,
                (i * 31 % 256) as u8,
            ]
        })
        .collect();
    let pixels = scene(256, &rare);
    let data = bgrx(&pixels);
    let mut ix = Indexer::default();
    let w = pixels.len() as u32;
    assert_eq!(
        ix.index(px(&data, w, 1, BGRX), Fit::Near),
        Indexing::TooMany
    );
}

#[test]
fn near_gives_up_past_max_distinct() {
    let many: Vec<[u8; 3]> = (0..=MAX_DISTINCT as u32)
        .map(|i| [i as u8, (i >> 8) as u8, 1])
        .collect();
    let data = bgrx(&many);
    let mut ix = Indexer::default();
    let w = many.len() as u32;
    assert_eq!(
        ix.index(px(&data, w, 1, BGRX), Fit::Near),
        Indexing::TooMany
    );
}
