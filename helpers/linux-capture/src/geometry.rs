//! Rectangle arithmetic in root coordinates, done in i64 so edges never overflow.

use crate::contract::Rect;

impl Rect {
    pub const fn new(x: i32, y: i32, width: u32, height: u32) -> Rect {
        Rect {
            x,
            y,
            width,
            height,
        }
    }

    pub fn right(&self) -> i64 {
        i64::from(self.x) + i64::from(self.width)
    }

    pub fn bottom(&self) -> i64 {
        i64::from(self.y) + i64::from(self.height)
    }

    pub fn contains_point(&self, x: i32, y: i32) -> bool {
        x >= self.x && y >= self.y && i64::from(x) < self.right() && i64::from(y) < self.bottom()
    }

    /// True when `inner` lies entirely inside `self`.
    pub fn contains(&self, inner: &Rect) -> bool {
        inner.x >= self.x
            && inner.y >= self.y
            && inner.right() <= self.right()
            && inner.bottom() <= self.bottom()
    }

    /// The overlap of two rectangles, or None when they do not overlap.
    pub fn intersect(&self, other: &Rect) -> Option<Rect> {
        let x = self.x.max(other.x);
        let y = self.y.max(other.y);
        let right = self.right().min(other.right());
        let bottom = self.bottom().min(other.bottom());
        (right > i64::from(x) && bottom > i64::from(y)).then(|| Rect {
            x,
            y,
            width: (right - i64::from(x)) as u32,
            height: (bottom - i64::from(y)) as u32,
        })
    }

    /// The square of side 2r+1 centred on (x, y); may extend past any screen edge.
    pub fn around(x: i32, y: i32, radius: u32) -> Rect {
        let r = radius as i32;
        Rect {
            x: x - r,
            y: y - r,
            width: 2 * radius + 1,
            height: 2 * radius + 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intersects_and_clips() {
        let screen = Rect::new(0, 0, 100, 50);
        assert_eq!(
            screen.intersect(&Rect::new(-10, -10, 20, 20)),
            Some(Rect::new(0, 0, 10, 10))
        );
        assert_eq!(
            screen.intersect(&Rect::new(90, 40, 20, 20)),
            Some(Rect::new(90, 40, 10, 10))
        );
        assert_eq!(screen.intersect(&Rect::new(100, 0, 5, 5)), None);
    }

    #[test]
    fn containment_is_half_open() {
        let r = Rect::new(10, 10, 5, 5);
        assert!(r.contains_point(10, 10) && r.contains_point(14, 14));
        assert!(!r.contains_point(15, 10) && !r.contains_point(9, 10));
        assert!(r.contains(&Rect::new(10, 10, 5, 5)) && !r.contains(&Rect::new(11, 10, 5, 5)));
    }

    #[test]
    fn square_around_point() {
        assert_eq!(Rect::around(5, 5, 2), Rect::new(3, 3, 5, 5));
        assert_eq!(Rect::around(0, 0, 0), Rect::new(0, 0, 1, 1));
    }
}
