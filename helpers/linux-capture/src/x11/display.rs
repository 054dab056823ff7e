//! The process's single X connection plus the facts about the root window that every
//! capture needs (pixel layout, depth). Checked once at connect time.

use x11rb::connection::Connection;
use x11rb::protocol::xproto::{ConnectionExt as _, ImageOrder, Screen, Window};
use x11rb::rust_connection::RustConnection;

use super::X11Error;
use crate::contract::Rect;
use crate::convert::PixelLayout;

pub struct Display {
    conn: RustConnection,
    root: Window,
    depth: u8,
    layout: PixelLayout,
    name: String,
}

impl Display {
    /// Connect to `name` (e.g. ":1"), or to `$DISPLAY` when None.
    pub fn connect(name: Option<&str>) -> Result<Self, X11Error> {
        let shown = name
            .map(str::to_owned)
            .or_else(|| std::env::var("DISPLAY").ok())
            .unwrap_or_else(|| "(unset $DISPLAY)".into());
        let (conn, screen_num) = x11rb::connect(name).map_err(|source| X11Error::Connect {
            display: shown.clone(),
            source,
        })?;
        let setup = conn.setup();
        let screen = &setup.roots[screen_num];
        let layout = root_layout(setup, screen)?;
        let (root, depth) = (screen.root, screen.root_depth);
        Ok(Self {
            conn,
            root,
            depth,
            layout,
            name: shown,
        })
    }

    pub fn conn(&self) -> &RustConnection {
        &self.conn
    }

    pub fn root(&self) -> Window {
        self.root
    }

    pub fn depth(&self) -> u8 {
        self.depth
    }

    pub fn layout(&self) -> &PixelLayout {
        &self.layout
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The root window as it is now: RandR can resize it after we connected, so this asks
    /// the server instead of trusting the connection setup.
    pub fn root_rect(&self) -> Result<Rect, X11Error> {
        let g = self
            .conn
            .get_geometry(self.root)?
            .reply()
            .map_err(X11Error::reply("GetGeometry"))?;
        Ok(Rect {
            x: 0,
            y: 0,
            width: g.width.into(),
            height: g.height.into(),
        })
    }
}

fn root_layout(
    setup: &x11rb::protocol::xproto::Setup,
    screen: &Screen,
) -> Result<PixelLayout, X11Error> {
    let visual = screen
        .allowed_depths
        .iter()
        .flat_map(|d| d.visuals.iter())
        .find(|v| v.visual_id == screen.root_visual)
        .ok_or_else(|| {
            X11Error::Unsupported("root visual is missing from the server setup".into())
        })?;
    let format = setup
        .pixmap_formats
        .iter()
        .find(|f| f.depth == screen.root_depth)
        .ok_or_else(|| {
            X11Error::Unsupported(format!("no pixmap format for depth {}", screen.root_depth))
        })?;
    PixelLayout::from_server(
        format.bits_per_pixel,
        format.scanline_pad,
        setup.image_byte_order == ImageOrder::LSB_FIRST,
        [visual.red_mask, visual.green_mask, visual.blue_mask],
    )
    .map_err(|why| {
        X11Error::Unsupported(format!(
            "unsupported root pixel format (depth {}): {why}",
            screen.root_depth
        ))
    })
}
