//! When a `settle` wait ends: pure arithmetic over instants, so it is tested without X.
//!
//! The quiet window starts at the later of the request's arrival and the last damage.
//! Damage is tracked continuously between requests, so a redraw that began before the
//! request and goes on after it keeps delaying the answer, and a still screen answers
//! `quiet_ms` after the request.

use std::time::{Duration, Instant};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// `quiet` has passed without damage.
    Settled,
    /// `max` has passed first.
    GiveUp,
    /// Nothing decided before this instant (later damage can only push it back).
    WaitUntil(Instant),
}

pub fn step(
    start: Instant,
    last_damage: Option<Instant>,
    now: Instant,
    quiet: Duration,
    max: Duration,
) -> Step {
    let quiet_from = last_damage.map_or(start, |d| d.max(start));
    let settles_at = quiet_from + quiet;
    let gives_up_at = start + max;
    if now >= settles_at {
        Step::Settled
    } else if now >= gives_up_at {
        Step::GiveUp
    } else {
        Step::WaitUntil(settles_at.min(gives_up_at))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const Q: Duration = Duration::from_millis(100);
    const M: Duration = Duration::from_millis(1000);

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn a_still_screen_settles_quiet_after_the_request() {
        let t0 = Instant::now();
        assert_eq!(step(t0, None, t0, Q, M), Step::WaitUntil(t0 + Q));
        assert_eq!(step(t0, None, t0 + Q, Q, M), Step::Settled);
        // Damage before the request: the quiet window counts from the request.
        let old = t0.checked_sub(ms(5)).or(Some(t0));
        assert_eq!(step(t0, old, t0 + ms(50), Q, M), Step::WaitUntil(t0 + Q));
    }

    #[test]
    fn damage_after_the_request_pushes_the_answer_back() {
        let t0 = Instant::now();
        let d = Some(t0 + ms(70));
        assert_eq!(
            step(t0, d, t0 + ms(100), Q, M),
            Step::WaitUntil(t0 + ms(170))
        );
        assert_eq!(step(t0, d, t0 + ms(170), Q, M), Step::Settled);
    }

    #[test]
    fn endless_damage_gives_up_at_max() {
        let t0 = Instant::now();
        let d = Some(t0 + ms(950));
        assert_eq!(step(t0, d, t0 + ms(960), Q, M), Step::WaitUntil(t0 + M));
        assert_eq!(step(t0, d, t0 + M, Q, M), Step::GiveUp);
        // quiet == max on a still screen: settled, not given up.
        assert_eq!(step(t0, None, t0 + Q, Q, Q), Step::Settled);
    }
}
