//! When a `settle` wait ends: pure arithmetic over instants, so it is tested without X.
//!
//! The quiet window starts at the later of the request's arrival and the last damage.
//! Damage is tracked continuously between requests, so a redraw that began before the
//! request and goes on after it keeps delaying the answer, and a still screen answers
//! `quiet_ms` after the request. Once the screen was damaged after the action began (the
//! app reacted), the window is the longer `react_quiet`, counted from the last damage:
//! apps answer in steps — a pressed button, a pause for work or the network, a redraw.

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

/// The quiet windows of one wait: `quiet` for a screen the action left alone, `react_quiet`
/// once it was damaged at or after `acted` (when the action began).
#[derive(Debug, Clone, Copy)]
pub struct Windows {
    pub quiet: Duration,
    pub react_quiet: Duration,
    pub acted: Instant,
}

pub fn step(
    start: Instant,
    last_damage: Option<Instant>,
    now: Instant,
    windows: Windows,
    max: Duration,
) -> Step {
    let reacted = last_damage.filter(|d| *d >= windows.acted);
    let settles_at = match reacted {
        Some(d) => d + windows.react_quiet,
        None => last_damage.map_or(start, |d| d.max(start)) + windows.quiet,
    };
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

    /// No reaction window: the action began at the request, and the windows are equal.
    fn plain(t0: Instant, quiet: Duration) -> Windows {
        Windows {
            quiet,
            react_quiet: quiet,
            acted: t0,
        }
    }

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn a_still_screen_settles_quiet_after_the_request() {
        let t0 = Instant::now();
        assert_eq!(step(t0, None, t0, plain(t0, Q), M), Step::WaitUntil(t0 + Q));
        assert_eq!(step(t0, None, t0 + Q, plain(t0, Q), M), Step::Settled);
        // Damage before the request: the quiet window counts from the request.
        let old = t0.checked_sub(ms(5)).or(Some(t0));
        assert_eq!(
            step(t0, old, t0 + ms(50), plain(t0, Q), M),
            Step::WaitUntil(t0 + Q)
        );
    }

    #[test]
    fn damage_after_the_request_pushes_the_answer_back() {
        let t0 = Instant::now();
        let d = Some(t0 + ms(70));
        assert_eq!(
            step(t0, d, t0 + ms(100), plain(t0, Q), M),
            Step::WaitUntil(t0 + ms(170))
        );
        assert_eq!(step(t0, d, t0 + ms(170), plain(t0, Q), M), Step::Settled);
    }

    #[test]
    fn endless_damage_gives_up_at_max() {
        let t0 = Instant::now();
        let d = Some(t0 + ms(950));
        assert_eq!(
            step(t0, d, t0 + ms(960), plain(t0, Q), M),
            Step::WaitUntil(t0 + M)
        );
        assert_eq!(step(t0, d, t0 + M, plain(t0, Q), M), Step::GiveUp);
        // quiet == max on a still screen: settled, not given up.
        assert_eq!(step(t0, None, t0 + Q, plain(t0, Q), Q), Step::Settled);
    }

    #[test]
    fn an_app_that_reacted_gets_the_longer_window_from_its_last_damage() {
        let t0 = Instant::now();
        let acted = t0.checked_sub(ms(10)).unwrap_or(t0);
        let w = Windows {
            quiet: Q,
            react_quiet: ms(500),
            acted,
        };
        // Pressed-button feedback just before the request: the app reacted.
        let press = Some(t0.checked_sub(ms(5)).unwrap_or(t0));
        assert_eq!(
            step(t0, press, t0 + ms(100), w, ms(2000)),
            Step::WaitUntil(press.unwrap() + ms(500))
        );
        // Its redraw 400 ms later pushes the answer to 500 ms after it.
        let redraw = Some(t0 + ms(400));
        assert_eq!(
            step(t0, redraw, t0 + ms(450), w, ms(2000)),
            Step::WaitUntil(t0 + ms(900))
        );
        assert_eq!(step(t0, redraw, t0 + ms(900), w, ms(2000)), Step::Settled);
        // Damage from before the action is no reaction: a still screen costs `quiet`.
        let old = acted.checked_sub(ms(50));
        assert_eq!(step(t0, old, t0 + Q, w, ms(2000)), Step::Settled);
    }
}
