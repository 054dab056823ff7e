//! Kept frames for the staleness guard: at most `capacity` named slots, least recently
//! used evicted first. Pixels are unscaled, masked and packed in the display's work format
//! (`convert::WorkFormat`) — the same format compare reads live pixels in. A replaced or
//! evicted slot's buffer is reused, so re-keeping the same slot allocates nothing.

use crate::contract::Rect;

pub const MAX_SLOTS: usize = 8;

#[derive(Debug, Clone, PartialEq)]
pub struct Slot {
    pub region: Rect,
    pub pixels: Vec<u8>,
    /// The masks applied when the frame was kept; compare re-applies them to live pixels
    /// so a hidden window never counts as a change.
    pub masks: Vec<Rect>,
}

#[derive(Debug)]
pub struct SlotStore {
    capacity: usize,
    clock: u64,
    entries: Vec<(String, u64, Slot)>,
}

impl Default for SlotStore {
    fn default() -> Self {
        Self::with_capacity(MAX_SLOTS)
    }
}

impl SlotStore {
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            capacity: capacity.max(1),
            clock: 0,
            entries: Vec::new(),
        }
    }

    /// Store a slot under `name`, replacing its previous content; `fill` writes the pixels
    /// into a buffer recycled from the replaced (or evicted) slot. Returns the stored slot.
    pub fn put_with(
        &mut self,
        name: &str,
        region: Rect,
        masks: &[Rect],
        fill: impl FnOnce(&mut Vec<u8>),
    ) -> &Slot {
        let tick = self.tick();
        let index = match self.entries.iter().position(|(n, _, _)| n == name) {
            Some(i) => i,
            None => {
                let pixels = if self.entries.len() >= self.capacity {
                    self.evict_oldest().map(|s| s.pixels).unwrap_or_default()
                } else {
                    Vec::new()
                };
                let slot = Slot {
                    region,
                    pixels,
                    masks: Vec::new(),
                };
                self.entries.push((name.to_owned(), tick, slot));
                self.entries.len() - 1
            }
        };
        let (_, used, slot) = &mut self.entries[index];
        *used = tick;
        slot.region = region;
        slot.masks.clear();
        slot.masks.extend_from_slice(masks);
        fill(&mut slot.pixels);
        slot
    }

    /// Look a slot up, marking it as recently used.
    pub fn get(&mut self, name: &str) -> Option<&Slot> {
        let tick = self.tick();
        let entry = self.entries.iter_mut().find(|(n, _, _)| n == name)?;
        entry.1 = tick;
        Some(&entry.2)
    }

    /// Forget every slot (a worker's connection ended: its screenshots are not the next one's).
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    pub fn names(&self) -> Vec<&str> {
        self.entries.iter().map(|(n, _, _)| n.as_str()).collect()
    }

    fn tick(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }

    fn evict_oldest(&mut self) -> Option<Slot> {
        let i = (0..self.entries.len()).min_by_key(|&i| self.entries[i].1)?;
        Some(self.entries.swap_remove(i).2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(s: &mut SlotStore, name: &str, tag: u8) {
        s.put_with(name, Rect::new(0, 0, 1, 1), &[], |px| {
            px.clear();
            px.extend_from_slice(&[tag; 3]);
        });
    }

    #[test]
    fn replaces_existing_slot() {
        let mut s = SlotStore::default();
        put(&mut s, "a", 1);
        let masks = [Rect::new(1, 2, 3, 4)];
        s.put_with("a", Rect::new(5, 5, 1, 1), &masks, |px| px[0] = 2);
        assert_eq!(s.names(), ["a"]);
        let a = s.get("a").unwrap();
        // The buffer was handed back with its old content, then overwritten in part.
        assert_eq!(a.pixels, [2, 1, 1]);
        assert_eq!(
            (a.region, &a.masks[..]),
            (Rect::new(5, 5, 1, 1), &masks[..])
        );
    }

    #[test]
    fn evicts_least_recently_used() {
        let mut s = SlotStore::with_capacity(3);
        put(&mut s, "a", 1);
        put(&mut s, "b", 2);
        put(&mut s, "c", 3);
        assert!(s.get("a").is_some()); // "b" is now the oldest
        put(&mut s, "d", 4);
        let mut names = s.names();
        names.sort();
        assert_eq!(names, ["a", "c", "d"]);
        assert!(s.get("b").is_none());
    }

    #[test]
    fn default_capacity_is_eight() {
        let mut s = SlotStore::default();
        for i in 0..10u8 {
            put(&mut s, &format!("s{i}"), i);
        }
        assert_eq!(s.names().len(), MAX_SLOTS);
        assert!(s.get("s0").is_none() && s.get("s1").is_none() && s.get("s9").is_some());
    }
}
