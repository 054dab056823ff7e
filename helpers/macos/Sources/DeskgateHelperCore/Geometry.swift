/// Screen geometry the helper needs: the token-budget image size (the core's rule, so a Mac
/// helper asked for `scale_to` and the worker agree), mapping between the points macOS input
/// uses and the pixels a Retina display captures, and rectangle arithmetic for masks and
/// per-display capture.
public enum Geometry {
    public static let maxLongEdge: Int64 = 1568
    public static let maxTokens: Int64 = 1568
    public static let tokenSide: Int64 = 28

    static func tokens(_ w: Int64, _ h: Int64) -> Int64 { ((w + tokenSide - 1) / tokenSide) * ((h + tokenSide - 1) / tokenSide) }

    /// The screenshot size for a display: unchanged when it fits, else the largest width (height
    /// rounded from the aspect) within both the long-edge and the token budget.
    public static func targetImageSize(width: Int64, height: Int64) -> Size {
        if width <= maxLongEdge, height <= maxLongEdge, tokens(width, height) <= maxTokens { return Size(width: width, height: height) }
        let aspect = Double(width) / Double(height)
        var lo: Int64 = 1, hi = width
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            let h = max(1, Int64((Double(mid) / aspect).rounded()))
            if mid <= maxLongEdge, h <= maxLongEdge, tokens(mid, h) <= maxTokens { lo = mid } else { hi = mid - 1 }
        }
        return Size(width: lo, height: max(1, Int64((Double(lo) / aspect).rounded())))
    }

    /// A display in the global coordinate space of input events (points), with its backing scale.
    public struct Display: Equatable {
        public var id: UInt32, name: String
        public var frame: Rect
        public var scale: Double
        public var primary: Bool
        public init(id: UInt32, name: String, frame: Rect, scale: Double, primary: Bool) { self.id = id; self.name = name; self.frame = frame; self.scale = scale; self.primary = primary }
    }

    /// The protocol's screen is the union of the displays, in points, with its origin at the
    /// top-left of that union (CGEvent coordinates can be negative left of or above the main display).
    public static func screen(of displays: [Display]) -> Rect {
        guard let first = displays.first else { return Rect(x: 0, y: 0, width: 0, height: 0) }
        var minX = first.frame.x, minY = first.frame.y, maxX = first.frame.x + first.frame.width, maxY = first.frame.y + first.frame.height
        for d in displays.dropFirst() {
            minX = min(minX, d.frame.x); minY = min(minY, d.frame.y)
            maxX = max(maxX, d.frame.x + d.frame.width); maxY = max(maxY, d.frame.y + d.frame.height)
        }
        return Rect(x: minX, y: minY, width: maxX - minX, height: maxY - minY)
    }

    /// A protocol point (0-based over the union) as a global CGEvent point.
    public static func globalPoint(_ p: Point, screen: Rect) -> (x: Double, y: Double) { (Double(p.x + screen.x), Double(p.y + screen.y)) }

    /// A global point back to protocol coordinates, clamped into the screen.
    public static func protocolPoint(x: Double, y: Double, screen: Rect) -> Point {
        Point(x: min(max(0, Int64(x.rounded()) - screen.x), max(0, screen.width - 1)), y: min(max(0, Int64(y.rounded()) - screen.y), max(0, screen.height - 1)))
    }

    public static func intersection(_ a: Rect, _ b: Rect) -> Rect? {
        let x0 = max(a.x, b.x), y0 = max(a.y, b.y), x1 = min(a.x + a.width, b.x + b.width), y1 = min(a.y + a.height, b.y + b.height)
        return x1 > x0 && y1 > y0 ? Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0) : nil
    }

    public static func contains(_ outer: Rect, _ inner: Rect) -> Bool {
        inner.x >= outer.x && inner.y >= outer.y && inner.x + inner.width <= outer.x + outer.width && inner.y + inner.height <= outer.y + outer.height
    }

    /// A rectangle in points as the pixel rectangle of a display's backing store (Retina: ×2).
    public static func pixels(_ r: Rect, scale: Double) -> Rect {
        Rect(x: Int64((Double(r.x) * scale).rounded(.down)), y: Int64((Double(r.y) * scale).rounded(.down)),
             width: Int64((Double(r.width) * scale).rounded(.up)), height: Int64((Double(r.height) * scale).rounded(.up)))
    }

    /// Windows the capture leaves out natively: every window whose frame the masks cover whole
    /// (the worker masks the windows of apps the session was not granted). Their pixels never
    /// reach the helper; the masks are painted as well, so the output is the protocol's.
    public static func windowsCovered(by masks: [Rect], windows: [(id: UInt32, frame: Rect)]) -> [UInt32] {
        windows.filter { w in masks.contains { contains($0, w.frame) } }.map(\.id)
    }
}
