//! Monitor layout from RandR 1.5 GetMonitors, falling back to one monitor covering the
//! root window when RandR is missing, too old, or reports nothing.

use x11rb::connection::RequestConnection;
use x11rb::protocol::randr::{self, ConnectionExt as _};
use x11rb::protocol::xproto::ConnectionExt as _;

use super::{Display, X11Error};
use crate::contract::{Monitor, Rect};

pub fn monitors(display: &Display, root: &Rect) -> Result<Vec<Monitor>, X11Error> {
    let fallback = || {
        vec![Monitor {
            name: "screen".into(),
            x: 0,
            y: 0,
            width: root.width,
            height: root.height,
            primary: true,
        }]
    };
    match randr_monitors(display) {
        Ok(list) if !list.is_empty() => Ok(list),
        Ok(_) => Ok(fallback()),
        Err(e) if e.is_connection_lost() => Err(e),
        Err(e) => {
            eprintln!("deskgate-capture: RandR monitors unavailable, using the root window: {e}");
            Ok(fallback())
        }
    }
}

fn randr_monitors(display: &Display) -> Result<Vec<Monitor>, X11Error> {
    let conn = display.conn();
    if conn
        .extension_information(randr::X11_EXTENSION_NAME)?
        .is_none()
    {
        return Ok(vec![]);
    }
    let version = conn
        .randr_query_version(1, 5)?
        .reply()
        .map_err(X11Error::reply("RRQueryVersion"))?;
    if (version.major_version, version.minor_version) < (1, 5) {
        return Ok(vec![]);
    }
    let reply = conn
        .randr_get_monitors(display.root(), true)?
        .reply()
        .map_err(X11Error::reply("RRGetMonitors"))?;
    // Send every atom-name request before waiting for any, to pay one round trip.
    let cookies = reply
        .monitors
        .iter()
        .map(|m| conn.get_atom_name(m.name))
        .collect::<Result<Vec<_>, _>>()?;
    reply
        .monitors
        .iter()
        .zip(cookies)
        .map(|(m, cookie)| {
            let name = cookie.reply().map_err(X11Error::reply("GetAtomName"))?.name;
            Ok(Monitor {
                name: String::from_utf8_lossy(&name).into_owned(),
                x: m.x.into(),
                y: m.y.into(),
                width: m.width.into(),
                height: m.height.into(),
                primary: m.primary,
            })
        })
        .collect()
}
