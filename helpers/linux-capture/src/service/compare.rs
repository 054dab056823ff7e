//! `compare`: re-capture only the small patch around a point and count raw pixels that
//! differ from the kept frame (masked the same way), so stale screenshots are caught.

use super::capture::describe;
use super::Desktop;
use crate::compare::compare_patch;
use crate::contract::{CompareReply, CompareRequest, Rect};
use crate::error::ServiceError;
use crate::request::DEFAULT_RADIUS;
use crate::slots::SlotStore;

pub fn run(
    desktop: &mut Desktop,
    slots: &mut SlotStore,
    req: &CompareRequest,
) -> Result<CompareReply, ServiceError> {
    let Some(slot) = slots.get(&req.slot) else {
        let mut known = slots.names();
        known.sort_unstable();
        return Err(ServiceError::NoSnapshot(format!(
            "no snapshot kept in slot {:?} (kept: [{}]); capture with \"keep\" first",
            req.slot,
            known.join(", ")
        )));
    };
    if !slot.region.contains_point(req.x, req.y) {
        return Err(ServiceError::BadRequest(format!(
            "point ({}, {}) is outside slot {:?}'s region {}",
            req.x,
            req.y,
            req.slot,
            describe(&slot.region)
        )));
    }
    let screen = desktop.display.root_rect()?;
    let radius = req.radius.unwrap_or(DEFAULT_RADIUS);
    let patch = Rect::around(req.x, req.y, radius)
        .intersect(&slot.region)
        .and_then(|p| p.intersect(&screen))
        .ok_or_else(|| {
            ServiceError::BadRequest(format!(
                "point ({}, {}) is outside the {}x{} screen",
                req.x, req.y, screen.width, screen.height
            ))
        })?;

    let grabbed = desktop.grab_masked(&patch, &slot.masks)?;
    let mut live = Vec::new();
    grabbed.pack_into(&mut live);

    let d = compare_patch(&slot.pixels, &slot.region, &live, &patch, grabbed.format());
    Ok(CompareReply {
        same: d.differing == 0,
        differing: d.differing,
        compared: d.compared,
    })
}
