//! `settle`: answer once the screen has had no damage for `quiet_ms` (see `settle.rs` for
//! when the window starts), or at `max_ms`, or when a `cancel` arrives. Never a fixed
//! sleep: the loop sleeps until the earliest instant the answer could change, re-reads
//! the last damage time, and repeats.

use std::time::{Duration, Instant};

use super::elapsed_ms;
use crate::contract::{SettleReply, SettleRequest};
use crate::error::ServiceError;
use crate::inbox::{Interrupt, Waiter};
use crate::settle::{step, Step, Windows};
use crate::x11::DamageWatch;

pub fn run(
    damage: &DamageWatch,
    req: &SettleRequest,
    waiter: &mut dyn Waiter,
) -> Result<SettleReply, ServiceError> {
    let start = Instant::now();
    let unavailable = |why: String| {
        ServiceError::CaptureFailed(format!(
            "settle needs X DAMAGE tracking, which is unavailable: {why}"
        ))
    };
    let first = damage.snapshot().map_err(unavailable)?;
    let quiet = Duration::from_millis(req.quiet_ms.into());
    let windows = Windows {
        quiet,
        react_quiet: req
            .react_quiet_ms
            .map_or(quiet, |ms| Duration::from_millis(ms.into())),
        acted: start
            .checked_sub(Duration::from_millis(req.since_ms.into()))
            .unwrap_or(start),
    };
    let max = Duration::from_millis(req.max_ms.into());
    let (settled, cancelled, events) = loop {
        let now = damage.snapshot().map_err(unavailable)?;
        let events = now.events - first.events;
        match step(start, now.last, Instant::now(), windows, max) {
            Step::Settled => break (true, false, events),
            Step::GiveUp => break (false, false, events),
            Step::WaitUntil(when) => match waiter.wait_until(when) {
                None => {}
                Some(Interrupt::Cancelled) => break (false, true, events),
                Some(Interrupt::Closed) => break (false, false, events),
            },
        }
    };
    Ok(SettleReply {
        settled,
        waited_ms: elapsed_ms(start),
        damage_events: events,
        cancelled,
    })
}
