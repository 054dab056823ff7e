/// The capture protocol's requests (docs/capture-helper.md), parsed and checked exactly as the
/// Rust helper's request.rs and the TypeScript schemas do; `vectors/capture.json` pins all three.
public struct Rect: Equatable {
    public var x: Int64, y: Int64, width: Int64, height: Int64
    public init(x: Int64, y: Int64, width: Int64, height: Int64) { self.x = x; self.y = y; self.width = width; self.height = height }
}

public struct Size: Equatable {
    public var width: Int64, height: Int64
    public init(width: Int64, height: Int64) { self.width = width; self.height = height }
}

public enum CaptureFormat: String, CaseIterable { case jpeg, png, webp, rgb, auto }

public struct CaptureSpec: Equatable {
    public var format: CaptureFormat
    public var region: Rect?
    public var scaleTo: Size?
    public var quality: Int64
    public var mask: [Rect]
    public var keep: String?
}

public enum CaptureRequest: Equatable {
    case ping, info, cancel
    case capture(CaptureSpec)
    case compare(slot: String, x: Int64, y: Int64, radius: Int64)
    case settle(quietMs: Int64, maxMs: Int64, reactQuietMs: Int64?, sinceMs: Int64)
    /// The live view's next frame: waits for damage past `after`, then the whole screen.
    case frame(after: Int64, maxMs: Int64, format: CaptureFormat, scaleTo: Size?, quality: Int64)

    public var op: String {
        switch self {
        case .ping: return "ping"
        case .info: return "info"
        case .cancel: return "cancel"
        case .capture: return "capture"
        case .compare: return "compare"
        case .settle: return "settle"
        case .frame: return "frame"
        }
    }
}

/// A refused request: its id (null when it could not be read) and the `bad_request` message.
public struct CaptureRefusal: Error, Equatable {
    public let id: JSON
    public let kind = "bad_request"
    public let message: String
}

private let i32 = Int64(Int32.min)...Int64(Int32.max)
private let u32 = Int64(0)...Int64(UInt32.max)

public enum CaptureRequestParser {
    public static func parse(_ body: [UInt8]) -> Result<(id: JSON, request: CaptureRequest), CaptureRefusal> {
        guard let text = String(validating: body) else { return .failure(CaptureRefusal(id: .null, message: "request is not valid UTF-8")) }
        let value: JSON
        do { value = try JSONParser.parse(Array(text.utf8)) } catch { return .failure(CaptureRefusal(id: .null, message: "request is not valid JSON: \(error)")) }
        guard case .object = value else { return .failure(CaptureRefusal(id: .null, message: "request must be a JSON object")) }
        let id = value["id"] ?? .null
        guard let opValue = value["op"] else { return .failure(CaptureRefusal(id: id, message: "missing \"op\"")) }
        guard case let .string(op, _) = opValue else { return .failure(CaptureRefusal(id: id, message: "\"op\" must be a string")) }
        do {
            return .success((id, try request(op, value)))
        } catch let error as FieldError {
            return .failure(CaptureRefusal(id: id, message: "bad \(op) request: \(error.message)"))
        } catch {
            return .failure(CaptureRefusal(id: id, message: "bad \(op) request: \(error)"))
        }
    }

    private static func request(_ op: String, _ value: JSON) throws -> CaptureRequest {
        switch op {
        case "ping": _ = try Fields(value, op: op, allowed: []); return .ping
        case "info": _ = try Fields(value, op: op, allowed: []); return .info
        case "cancel": _ = try Fields(value, op: op, allowed: []); return .cancel
        case "capture":
            let f = try Fields(value, op: op, allowed: ["format", "region", "scale_to", "quality", "mask", "keep"])
            guard let format = CaptureFormat(rawValue: try f.choice("format", CaptureFormat.allCases.map(\.rawValue), nullable: false)!) else { throw FieldError(message: "bad format") }
            var region: Rect?
            if let raw = f.raw("region"), !raw.isNull {
                let r = try rect(raw, "region")
                guard r.x >= 0, r.y >= 0 else { throw FieldError(message: "region origin must not be negative") }
                guard r.width >= 1, r.height >= 1 else { throw FieldError(message: "region sides must be at least 1") }
                region = r
            }
            var mask: [Rect] = []
            if let raw = f.raw("mask") {
                guard let items = raw.arrayValue else { throw FieldError(message: "`mask` must be a list of rectangles") }
                for item in items {
                    let m = try rect(item, "mask")
                    let limit = CaptureLimits.maxCoord
                    guard m.width >= 1, m.height >= 1, [m.x, m.y, m.width, m.height].allSatisfy({ (-limit...limit).contains($0) }) else {
                        throw FieldError(message: "mask sides >= 1, coordinates within ±\(limit)")
                    }
                    mask.append(m)
                }
            }
            return .capture(CaptureSpec(format: format, region: region, scaleTo: try scale(f), quality: try quality(f), mask: mask, keep: try slot(f, "keep", required: false)))
        case "compare":
            let f = try Fields(value, op: op, allowed: ["slot", "x", "y", "radius"])
            return .compare(slot: try slot(f, "slot", required: true)!, x: try f.int("x", i32), y: try f.int("y", i32),
                            radius: try f.nullableInt("radius", 0...CaptureLimits.maxRadius) ?? CaptureLimits.defaultRadius)
        case "settle":
            let f = try Fields(value, op: op, allowed: ["quiet_ms", "max_ms", "react_quiet_ms", "since_ms"])
            let quiet = try f.int("quiet_ms", CaptureLimits.minQuietMs...CaptureLimits.maxQuietMs)
            let max = try f.int("max_ms", u32)
            guard max >= quiet, max <= CaptureLimits.maxSettleMs else { throw FieldError(message: "max_ms must be from quiet_ms to \(CaptureLimits.maxSettleMs)") }
            let react = try f.nullableInt("react_quiet_ms", u32)
            if let react, !(quiet...max).contains(react) { throw FieldError(message: "react_quiet_ms must be from quiet_ms to max_ms") }
            let since = try f.optionalInt("since_ms", 0...CaptureLimits.maxSettleMs) ?? 0
            return .settle(quietMs: quiet, maxMs: max, reactQuietMs: react, sinceMs: since)
        case "frame":
            let f = try Fields(value, op: op, allowed: ["after", "max_ms", "format", "scale_to", "quality"])
            let after = try f.int("after", 0...9_007_199_254_740_991)
            let max = try f.int("max_ms", 0...CaptureLimits.maxSettleMs)
            guard let format = CaptureFormat(rawValue: try f.choice("format", CaptureFormat.allCases.map(\.rawValue), nullable: false)!) else { throw FieldError(message: "bad format") }
            return .frame(after: after, maxMs: max, format: format, scaleTo: try scale(f), quality: try quality(f))
        default:
            throw FieldError(message: "unknown op \(serializeJSON(.string(op)))")
        }
    }

    private static func rect(_ value: JSON, _ name: String) throws -> Rect {
        let f = try Fields(value, op: name, allowed: ["x", "y", "width", "height"], strictIdOp: false)
        return Rect(x: try f.int("x", i32), y: try f.int("y", i32), width: try f.int("width", u32), height: try f.int("height", u32))
    }

    private static func scale(_ f: Fields) throws -> Size? {
        guard let raw = f.raw("scale_to"), !raw.isNull else { return nil }
        let s = try Fields(raw, op: "scale_to", allowed: ["width", "height"], strictIdOp: false)
        let w = try s.int("width", u32), h = try s.int("height", u32)
        guard (1...CaptureLimits.maxScale).contains(w), (1...CaptureLimits.maxScale).contains(h) else { throw FieldError(message: "scale_to sides must be 1-\(CaptureLimits.maxScale)") }
        return Size(width: w, height: h)
    }

    private static func quality(_ f: Fields) throws -> Int64 {
        try f.nullableInt("quality", CaptureLimits.minQuality...CaptureLimits.maxQuality) ?? CaptureLimits.defaultQuality
    }

    private static func slot(_ f: Fields, _ name: String, required: Bool) throws -> String? {
        guard let raw = f.raw(name), !(raw.isNull && !required) else {
            if required { throw FieldError(message: "missing field `\(name)`") }
            return nil
        }
        guard case let .string(s, _) = raw else { throw FieldError(message: "`\(name)` must be a string") }
        guard (1...CaptureLimits.maxSlotName).contains(s.utf8.count) else { throw FieldError(message: "slot name must be 1-\(CaptureLimits.maxSlotName) bytes") }
        return s
    }
}
