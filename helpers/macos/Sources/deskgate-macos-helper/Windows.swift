#if os(macOS)
import AppKit
import ApplicationServices
import CoreGraphics
import DeskgateHelperCore

/// Apps and windows as the input protocol reports them: a window id is its CGWindowID, an app's
/// `wm_class` is [bundle id, name] (the classification matches the bundle id), `exe` its
/// executable. Titles need Screen Recording (kCGWindowName is empty without it).
struct WindowInfo {
    var id: UInt32, pid: Int32, frame: Rect, title: String?
    var app: NSRunningApplication?

    var appJSON: [(String, JSON)] {
        let bundle = app?.bundleIdentifier, name = app?.localizedName
        return [
            ("title", title.map { .string($0) } ?? .null),
            ("wm_class", bundle.map { .array([.string($0), .string(name ?? $0)]) } ?? .null),
            ("pid", .int(Int64(pid))),
            ("exe", app?.executableURL.map { .string($0.path) } ?? .null),
        ]
    }

    var json: JSON {
        .object([("id", .int(Int64(id))), ("x", .int(frame.x)), ("y", .int(frame.y)), ("width", .int(frame.width)), ("height", .int(frame.height)), ("mapped", .bool(true))] + appJSON)
    }
}

enum Windows {
    /// On-screen app windows (layer 0), bottom to top, in protocol coordinates.
    static func list() -> [WindowInfo] {
        let screen = Geometry.screen(of: Displays.current())
        let raw = (CGWindowListCopyWindowInfo([.optionOnScreenOnly, .excludeDesktopElements], kCGNullWindowID) as? [[String: Any]]) ?? []
        let windows: [WindowInfo] = raw.compactMap { info in
            guard (info[kCGWindowLayer as String] as? Int) == 0,
                  let id = info[kCGWindowNumber as String] as? UInt32,
                  let pid = info[kCGWindowOwnerPID as String] as? Int32,
                  let boundsInfo = info[kCGWindowBounds as String] as? NSDictionary,
                  let bounds = CGRect(dictionaryRepresentation: boundsInfo as CFDictionary) else { return nil }
            let frame = Rect(x: Int64(bounds.minX) - screen.x, y: Int64(bounds.minY) - screen.y, width: Int64(bounds.width), height: Int64(bounds.height))
            return WindowInfo(id: id, pid: pid, frame: frame, title: info[kCGWindowName as String] as? String, app: NSRunningApplication(processIdentifier: pid))
        }
        // CGWindowList is front to back; the protocol lists bottom to top.
        return windows.reversed()
    }

    static func frontmostApp() -> JSON {
        guard let app = NSWorkspace.shared.frontmostApplication else {
            return .object([("window", .null), ("title", .null), ("wm_class", .null), ("pid", .null), ("exe", .null)])
        }
        let window = list().last { $0.pid == app.processIdentifier }
        let info = window ?? WindowInfo(id: 0, pid: app.processIdentifier, frame: Rect(x: 0, y: 0, width: 0, height: 0), title: nil, app: app)
        return .object([("window", window.map { .int(Int64($0.id)) } ?? .null)] + info.appJSON)
    }

    static func app(at p: Point) -> JSON {
        guard let w = topmost(at: p) else { return .object([("window", .null), ("title", .null), ("wm_class", .null), ("pid", .null), ("exe", .null)]) }
        return .object([("window", .int(Int64(w.id)))] + w.appJSON)
    }

    static func topmost(at p: Point) -> WindowInfo? {
        list().last { p.x >= $0.frame.x && p.y >= $0.frame.y && p.x < $0.frame.x + $0.frame.width && p.y < $0.frame.y + $0.frame.height }
    }

    /// What is at a point: an app's window (client) or the bare desktop (root).
    static func surface(at p: Point) -> JSON {
        guard let w = topmost(at: p) else { return .object([("kind", .string("root")), ("window", .null), ("app", .null)]) }
        return .object([("kind", .string("client")), ("window", .int(Int64(w.id))), ("app", .object([("window", .int(Int64(w.id)))] + w.appJSON))])
    }

    /// The keyboard focus: the frontmost app's frontmost window.
    static func focusSurface() -> JSON {
        guard let app = NSWorkspace.shared.frontmostApplication, let w = list().last(where: { $0.pid == app.processIdentifier }) else {
            return .object([("kind", .string("none")), ("window", .null), ("app", .null)])
        }
        return .object([("kind", .string("client")), ("window", .int(Int64(w.id))), ("app", .object([("window", .int(Int64(w.id)))] + w.appJSON))])
    }

    /// The Accessibility element of a CGWindowID: the owner's AX windows matched by frame.
    static func element(_ id: UInt32) throws -> AXUIElement {
        guard let w = list().first(where: { $0.id == id }) else { throw HelperFailure("not_found", "no window \(id) on screen") }
        let app = AXUIElementCreateApplication(w.pid)
        var value: CFTypeRef?
        AXUIElementCopyAttributeValue(app, kAXWindowsAttribute as CFString, &value)
        let screen = Geometry.screen(of: Displays.current())
        for element in (value as? [AXUIElement]) ?? [] {
            var position: CFTypeRef?, size: CFTypeRef?
            AXUIElementCopyAttributeValue(element, kAXPositionAttribute as CFString, &position)
            AXUIElementCopyAttributeValue(element, kAXSizeAttribute as CFString, &size)
            var origin = CGPoint.zero, extent = CGSize.zero
            if let position { AXValueGetValue(position as! AXValue, .cgPoint, &origin) }
            if let size { AXValueGetValue(size as! AXValue, .cgSize, &extent) }
            if Int64(origin.x) - screen.x == w.frame.x, Int64(origin.y) - screen.y == w.frame.y, Int64(extent.width) == w.frame.width { return element }
        }
        throw HelperFailure("not_found", "window \(id) has no Accessibility element")
    }

    static func setMinimized(_ id: UInt32, _ minimized: Bool) throws {
        let result = AXUIElementSetAttributeValue(try element(id), kAXMinimizedAttribute as CFString, minimized as CFBoolean)
        if result != .success { throw HelperFailure("x11_error", "iconify: window \(id) refused (AXError \(result.rawValue))") }
    }

    static func activate(_ id: UInt32) throws {
        guard let w = list().first(where: { $0.id == id }), let app = w.app else { throw HelperFailure("not_found", "no window \(id) on screen") }
        let element = try element(id)
        AXUIElementSetAttributeValue(element, kAXMinimizedAttribute as CFString, false as CFBoolean)
        AXUIElementPerformAction(element, kAXRaiseAction as CFString)
        app.activate()
    }
}
#endif
