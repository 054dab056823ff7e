//! `frame`: the live view's next frame, driven by X DAMAGE. Sleeps on the damage watcher
//! until the screen has changed past the count the caller last saw, then captures the whole
//! screen through the `capture` pipeline. A still screen costs nothing but the wait. A
//! `cancel` is heard within `CANCEL_SLICE` (the watcher and the request pipe are two
//! different things to wait on, so the wait is taken in slices of that length).

use std::time::{Duration, Instant};

use super::{capture, elapsed_ms, Desktop, Outcome, Tools};
use crate::contract::{CaptureRequest, FrameReply, FrameRequest, Reply};
use crate::error::ServiceError;
use crate::inbox::Waiter;
use crate::slots::SlotStore;
use crate::x11::DamageWatch;

const CANCEL_SLICE: Duration = Duration::from_millis(10);

pub fn run(
    desktop: &mut Desktop,
    slots: &mut SlotStore,
    tools: &mut Tools,
    damage: &DamageWatch,
    req: &FrameRequest,
    waiter: &mut dyn Waiter,
) -> Result<Outcome, ServiceError> {
    let start = Instant::now();
    let deadline = start + Duration::from_millis(req.max_ms.into());
    let unavailable = |why: String| {
        ServiceError::CaptureFailed(format!(
            "frame needs X DAMAGE tracking, which is unavailable: {why}"
        ))
    };
    let unchanged = |events: u64| {
        let reply = FrameReply {
            changed: false,
            damage_events: events,
            waited_ms: elapsed_ms(start),
            frame: None,
        };
        Ok((Reply::Frame(reply), Vec::new()))
    };
    loop {
        let now = Instant::now();
        let snapshot = damage
            .wait_past(req.after, deadline.min(now + CANCEL_SLICE))
            .map_err(unavailable)?;
        if snapshot.events > req.after {
            let waited_ms = elapsed_ms(start);
            let whole_screen = CaptureRequest {
                region: None,
                scale_to: req.scale_to,
                format: req.format,
                quality: req.quality,
                mask: Vec::new(),
                keep: None,
            };
            let (reply, payload) = capture::run(desktop, slots, tools, &whole_screen)?;
            let Reply::Capture(frame) = reply else {
                unreachable!("capture answers a capture reply")
            };
            let reply = FrameReply {
                changed: true,
                damage_events: snapshot.events,
                waited_ms,
                frame: Some(frame),
            };
            return Ok((Reply::Frame(reply), payload));
        }
        if Instant::now() >= deadline {
            return unchanged(snapshot.events);
        }
        // A cancel (or the pipe closing) ends the wait; nothing else can arrive mid-request.
        if waiter.wait_until(Instant::now()).is_some() {
            return unchanged(snapshot.events);
        }
    }
}
