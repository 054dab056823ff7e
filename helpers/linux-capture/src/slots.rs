//! Kept frames for the staleness guard: at most `capacity` named slots, least recently
//! used evicted first. Pixels are unscaled, masked RGB8 of `region`.

use crate::contract::Rect;

pub const MAX_SLOTS: usize = 8;

#[derive(Debug, Clone, PartialEq)]
pub struct Slot {
    pub region: Rect,
    pub rgb: Vec<u8>,
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

    /// Store `slot` under `name`, replacing its previous content; returns the stored slot.
    pub fn put(&mut self, name: &str, slot: Slot) -> &Slot {
        let tick = self.tick();
        let index = match self.entries.iter().position(|(n, _, _)| n == name) {
            Some(i) => {
                self.entries[i] = (name.to_owned(), tick, slot);
                i
            }
            None => {
                if self.entries.len() >= self.capacity {
                    self.evict_oldest();
                }
                self.entries.push((name.to_owned(), tick, slot));
                self.entries.len() - 1
            }
        };
        &self.entries[index].2
    }

    /// Look a slot up, marking it as recently used.
    pub fn get(&mut self, name: &str) -> Option<&Slot> {
        let tick = self.tick();
        let entry = self.entries.iter_mut().find(|(n, _, _)| n == name)?;
        entry.1 = tick;
        Some(&entry.2)
    }

    pub fn names(&self) -> Vec<&str> {
        self.entries.iter().map(|(n, _, _)| n.as_str()).collect()
    }

    fn tick(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }

    fn evict_oldest(&mut self) {
        if let Some(i) = (0..self.entries.len()).min_by_key(|&i| self.entries[i].1) {
            self.entries.swap_remove(i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slot(tag: u8) -> Slot {
        Slot {
            region: Rect {
                x: 0,
                y: 0,
                width: 1,
                height: 1,
            },
            rgb: vec![tag; 3],
            masks: vec![],
        }
    }

    #[test]
    fn replaces_existing_slot() {
        let mut s = SlotStore::default();
        s.put("a", slot(1));
        s.put("a", slot(2));
        assert_eq!(s.names(), ["a"]);
        assert_eq!(s.get("a").unwrap().rgb, [2, 2, 2]);
    }

    #[test]
    fn evicts_least_recently_used() {
        let mut s = SlotStore::with_capacity(3);
        s.put("a", slot(1));
        s.put("b", slot(2));
        s.put("c", slot(3));
        assert!(s.get("a").is_some()); // "b" is now the oldest
        s.put("d", slot(4));
        let mut names = s.names();
        names.sort();
        assert_eq!(names, ["a", "c", "d"]);
        assert!(s.get("b").is_none());
    }

    #[test]
    fn default_capacity_is_eight() {
        let mut s = SlotStore::default();
        for i in 0..10u8 {
            s.put(&format!("s{i}"), slot(i));
        }
        assert_eq!(s.names().len(), MAX_SLOTS);
        assert!(s.get("s0").is_none() && s.get("s1").is_none() && s.get("s9").is_some());
    }
}
