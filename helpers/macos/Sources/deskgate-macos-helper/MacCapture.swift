#if os(macOS)
import AppKit
import CoreGraphics
import CoreVideo
import DeskgateHelperCore
import Foundation
import ImageIO
import ScreenCaptureKit
import UniformTypeIdentifiers

/// 8-bit RGBA pixels, row-major (alpha always 255), in protocol points.
struct RGBAImage {
    var width: Int, height: Int
    var bytes: [UInt8]
    init(width: Int, height: Int) { self.width = width; self.height = height; bytes = [UInt8](repeating: 0, count: width * height * 4) }
}

/// The capture protocol on ScreenCaptureKit: per display, at one pixel per point (what input
/// coordinates use), the windows that the masks cover whole left out natively (SCContentFilter
/// excludingWindows), then the masks painted black, kept, scaled and encoded with ImageIO.
final class MacCapture: CaptureBackend {
    private var slots: [(name: String, region: Rect, masks: [Rect], image: RGBAImage)] = []
    private let lock = NSLock()

    func handle(_ request: CaptureRequest) throws -> (fields: [(String, JSON)], payload: [UInt8]) {
        lock.lock(); defer { lock.unlock() }
        switch request {
        case .ping:
            return ([], [])
        case .cancel:
            // Requests are served in order on one thread: a settle has ended by the time a cancel is read.
            return ([("cancelled", .bool(false))], [])
        case .info:
            try Permissions.require(.screenRecording)
            let displays = Displays.current()
            let screen = Geometry.screen(of: displays)
            let monitors: [JSON] = displays.map { d in
                .object([("name", .string(d.name)), ("x", .int(d.frame.x - screen.x)), ("y", .int(d.frame.y - screen.y)),
                         ("width", .int(d.frame.width)), ("height", .int(d.frame.height)), ("primary", .bool(d.primary))])
            }
            // backend: the protocol's names; ScreenCaptureKit hands frames over in shared IOSurfaces, "shm".
            return ([("width", .int(screen.width)), ("height", .int(screen.height)), ("depth", .int(24)), ("backend", .string("shm")), ("monitors", .array(monitors))], [])
        case let .capture(spec):
            return try capture(spec)
        case let .compare(slot, x, y, radius):
            return try compare(slot: slot, x: x, y: y, radius: radius)
        case let .settle(quiet, max, react, since):
            return try settle(quietMs: quiet, maxMs: max, reactQuietMs: react ?? quiet, sinceMs: since)
        case .frame:
            throw HelperFailure("capture_failed", "frame (the console's live view) is not served by the macOS helper; take screenshots with capture")
        }
    }

    // MARK: capture

    private func capture(_ spec: CaptureSpec) throws -> (fields: [(String, JSON)], payload: [UInt8]) {
        try Permissions.require(.screenRecording)
        let started = Date()
        let displays = Displays.current()
        let screen = Geometry.screen(of: displays)
        let region = spec.region ?? Rect(x: 0, y: 0, width: screen.width, height: screen.height)
        guard Geometry.contains(Rect(x: 0, y: 0, width: screen.width, height: screen.height), region) else {
            throw HelperFailure("bad_request", "region \(region.x),\(region.y) \(region.width)x\(region.height) is not inside the \(screen.width)x\(screen.height) screen")
        }
        var image = try grab(region: region, masks: spec.mask, displays: displays, screen: screen)
        let captureMs = Date().timeIntervalSince(started) * 1000
        let convertStarted = Date()
        paint(masks: spec.mask, on: &image, region: region)
        if let keep = spec.keep { store(slot: keep, region: region, masks: spec.mask, image: image) }
        let convertMs = Date().timeIntervalSince(convertStarted) * 1000
        let scaleStarted = Date()
        let target = spec.scaleTo ?? Size(width: region.width, height: region.height)
        if target.width != Int64(image.width) || target.height != Int64(image.height) { image = try scale(image, to: target) }
        let scaleMs = spec.scaleTo == nil ? 0 : Date().timeIntervalSince(scaleStarted) * 1000
        let encodeStarted = Date()
        let (format, reason, payload) = try encode(image, format: spec.format, quality: spec.quality)
        let encodeMs = Date().timeIntervalSince(encodeStarted) * 1000
        var fields: [(String, JSON)] = [("width", .int(Int64(image.width))), ("height", .int(Int64(image.height))), ("format", .string(format))]
        if let reason { fields.append(("auto_reason", .string(reason))) }
        fields += [("backend", .string("shm")), ("capture_ms", .double(captureMs)), ("convert_ms", .double(convertMs)), ("scale_ms", .double(scaleMs)), ("encode_ms", .double(encodeMs))]
        return (fields, payload)
    }

    /// The region's pixels, one display at a time; windows the masks cover whole never captured.
    private func grab(region: Rect, masks: [Rect], displays: [Geometry.Display], screen: Rect) throws -> RGBAImage {
        let content = try blocking { try await SCShareableContent.excludingDesktopWindows(false, onScreenWindowsOnly: true) }
        let globalMasks = masks.map { Rect(x: $0.x + screen.x, y: $0.y + screen.y, width: $0.width, height: $0.height) }
        let windows = content.windows.map { (id: $0.windowID, frame: Rect(x: Int64($0.frame.minX), y: Int64($0.frame.minY), width: Int64($0.frame.width), height: Int64($0.frame.height))) }
        let excludedIds = Set(Geometry.windowsCovered(by: globalMasks, windows: windows))
        let excluded = content.windows.filter { excludedIds.contains($0.windowID) }
        var out = RGBAImage(width: Int(region.width), height: Int(region.height))
        let globalRegion = Rect(x: region.x + screen.x, y: region.y + screen.y, width: region.width, height: region.height)
        for display in displays {
            guard let part = Geometry.intersection(globalRegion, display.frame), let scDisplay = content.displays.first(where: { $0.displayID == display.id }) else { continue }
            let config = SCStreamConfiguration()
            config.sourceRect = CGRect(x: Double(part.x - display.frame.x), y: Double(part.y - display.frame.y), width: Double(part.width), height: Double(part.height))
            config.width = Int(part.width)
            config.height = Int(part.height)
            config.showsCursor = false
            config.pixelFormat = kCVPixelFormatType_32BGRA
            let filter = SCContentFilter(display: scDisplay, excludingWindows: excluded)
            let cgImage = try blocking { try await SCScreenshotManager.captureImage(contentFilter: filter, configuration: config) }
            draw(cgImage, into: &out, at: (Int(part.x - globalRegion.x), Int(part.y - globalRegion.y)), size: (Int(part.width), Int(part.height)))
        }
        return out
    }

    private func draw(_ cgImage: CGImage, into image: inout RGBAImage, at origin: (Int, Int), size: (Int, Int)) {
        let width = image.width, height = image.height
        image.bytes.withUnsafeMutableBytes { raw in
            guard let context = CGContext(data: raw.baseAddress, width: width, height: height, bitsPerComponent: 8, bytesPerRow: width * 4,
                                          space: CGColorSpace(name: CGColorSpace.sRGB)!, bitmapInfo: CGImageAlphaInfo.noneSkipLast.rawValue) else { return }
            // CGContext's origin is bottom-left.
            context.draw(cgImage, in: CGRect(x: origin.0, y: height - origin.1 - size.1, width: size.0, height: size.1))
        }
        for i in stride(from: 3, to: image.bytes.count, by: 4) { image.bytes[i] = 255 }
    }

    private func paint(masks: [Rect], on image: inout RGBAImage, region: Rect) {
        for mask in masks {
            guard let r = Geometry.intersection(mask, region) else { continue }
            for y in Int(r.y - region.y)..<Int(r.y - region.y + r.height) {
                for x in Int(r.x - region.x)..<Int(r.x - region.x + r.width) {
                    let at = (y * image.width + x) * 4
                    image.bytes[at] = 0; image.bytes[at + 1] = 0; image.bytes[at + 2] = 0
                }
            }
        }
    }

    private func store(slot: String, region: Rect, masks: [Rect], image: RGBAImage) {
        slots.removeAll { $0.name == slot }
        slots.append((slot, region, masks, image))
        if slots.count > CaptureLimits.maxSlots { slots.removeFirst() }
    }

    private func cgImage(_ image: RGBAImage) throws -> CGImage {
        guard let provider = CGDataProvider(data: Data(image.bytes) as CFData),
              let cg = CGImage(width: image.width, height: image.height, bitsPerComponent: 8, bitsPerPixel: 32, bytesPerRow: image.width * 4,
                               space: CGColorSpace(name: CGColorSpace.sRGB)!, bitmapInfo: CGBitmapInfo(rawValue: CGImageAlphaInfo.noneSkipLast.rawValue),
                               provider: provider, decode: nil, shouldInterpolate: true, intent: .defaultIntent) else {
            throw HelperFailure("capture_failed", "could not make an image of \(image.width)x\(image.height) pixels")
        }
        return cg
    }

    private func scale(_ image: RGBAImage, to size: Size) throws -> RGBAImage {
        var out = RGBAImage(width: Int(size.width), height: Int(size.height))
        let source = try cgImage(image)
        out.bytes.withUnsafeMutableBytes { raw in
            guard let context = CGContext(data: raw.baseAddress, width: out.width, height: out.height, bitsPerComponent: 8, bytesPerRow: out.width * 4,
                                          space: CGColorSpace(name: CGColorSpace.sRGB)!, bitmapInfo: CGImageAlphaInfo.noneSkipLast.rawValue) else { return }
            context.interpolationQuality = .high
            context.draw(source, in: CGRect(x: 0, y: 0, width: out.width, height: out.height))
        }
        for i in stride(from: 3, to: out.bytes.count, by: 4) { out.bytes[i] = 255 }
        return out
    }

    /// (format sent, auto_reason, bytes). auto: PNG for a frame of at most 256 colours (screen content), else JPEG.
    private func encode(_ image: RGBAImage, format: CaptureFormat, quality: Int64) throws -> (String, String?, [UInt8]) {
        switch format {
        case .rgb:
            var out = [UInt8](); out.reserveCapacity(image.width * image.height * 3)
            for i in stride(from: 0, to: image.bytes.count, by: 4) { out += image.bytes[i..<i + 3] }
            return ("rgb", nil, out)
        case .webp:
            throw HelperFailure("bad_request", "webp is not available from the macOS helper (ImageIO cannot write it); ask for png, jpeg or auto")
        case .png:
            return ("png", nil, try imageIO(image, type: UTType.png, quality: nil))
        case .jpeg:
            return ("jpeg", nil, try imageIO(image, type: UTType.jpeg, quality: quality))
        case .auto:
            var colours = Set<UInt32>()
            for i in stride(from: 0, to: image.bytes.count, by: 4) {
                colours.insert(UInt32(image.bytes[i]) << 16 | UInt32(image.bytes[i + 1]) << 8 | UInt32(image.bytes[i + 2]))
                if colours.count > 256 { break }
            }
            if colours.count <= 256 { return ("png", "palette", try imageIO(image, type: UTType.png, quality: nil)) }
            return ("jpeg", "colours", try imageIO(image, type: UTType.jpeg, quality: quality))
        }
    }

    private func imageIO(_ image: RGBAImage, type: UTType, quality: Int64?) throws -> [UInt8] {
        let data = NSMutableData()
        guard let destination = CGImageDestinationCreateWithData(data, type.identifier as CFString, 1, nil) else { throw HelperFailure("capture_failed", "ImageIO cannot write \(type.identifier)") }
        let options: [CFString: Any] = quality.map { [kCGImageDestinationLossyCompressionQuality: Double($0) / 100] } ?? [:]
        CGImageDestinationAddImage(destination, try cgImage(image), options as CFDictionary)
        guard CGImageDestinationFinalize(destination) else { throw HelperFailure("capture_failed", "ImageIO could not encode \(type.identifier)") }
        return [UInt8](data as Data)
    }

    // MARK: compare and settle

    private func compare(slot: String, x: Int64, y: Int64, radius: Int64) throws -> (fields: [(String, JSON)], payload: [UInt8]) {
        guard let kept = slots.last(where: { $0.name == slot }) else {
            throw HelperFailure("no_snapshot", "no snapshot kept in slot \"\(slot)\" (kept: [\(slots.map { "\"\($0.name)\"" }.joined(separator: ", "))]); capture with \"keep\" first")
        }
        slots.removeAll { $0.name == slot }
        slots.append(kept)
        guard x >= kept.region.x, y >= kept.region.y, x < kept.region.x + kept.region.width, y < kept.region.y + kept.region.height else {
            throw HelperFailure("bad_request", "compare point \(x),\(y) is outside the slot's region")
        }
        let displays = Displays.current()
        let screen = Geometry.screen(of: displays)
        let patch = Geometry.intersection(Rect(x: x - radius, y: y - radius, width: 2 * radius + 1, height: 2 * radius + 1), kept.region)
            .flatMap { Geometry.intersection($0, Rect(x: 0, y: 0, width: screen.width, height: screen.height)) }!
        var live = try grab(region: patch, masks: kept.masks, displays: displays, screen: screen)
        paint(masks: kept.masks, on: &live, region: patch)
        var differing = 0
        for py in 0..<Int(patch.height) {
            for px in 0..<Int(patch.width) {
                let a = (py * live.width + px) * 4
                let b = ((py + Int(patch.y - kept.region.y)) * kept.image.width + px + Int(patch.x - kept.region.x)) * 4
                if live.bytes[a..<a + 3] != kept.image.bytes[b..<b + 3] { differing += 1 }
            }
        }
        return ([("same", .bool(differing == 0)), ("differing", .int(Int64(differing))), ("compared", .int(patch.width * patch.height))], [])
    }

    /// macOS has no damage events for other apps' drawing: the screen is sampled at 1/8 size
    /// every 25 ms and a change in the samples counts as damage.
    private func settle(quietMs: Int64, maxMs: Int64, reactQuietMs: Int64, sinceMs: Int64) throws -> (fields: [(String, JSON)], payload: [UInt8]) {
        try Permissions.require(.screenRecording)
        let start = Date()
        let displays = Displays.current()
        let screen = Geometry.screen(of: displays)
        let whole = Rect(x: 0, y: 0, width: screen.width, height: screen.height)
        let small = Size(width: max(1, screen.width / 8), height: max(1, screen.height / 8))
        var previous = try scale(grab(region: whole, masks: [], displays: displays, screen: screen), to: small).bytes
        var lastDamage: Date?
        var events = 0
        while true {
            let elapsed = Date().timeIntervalSince(start) * 1000
            let quiet = lastDamage == nil ? Double(quietMs) : Double(reactQuietMs)
            let since = lastDamage.map { Date().timeIntervalSince($0) * 1000 } ?? elapsed
            if since >= quiet { return settled(true, start, events) }
            if elapsed >= Double(maxMs) { return settled(false, start, events) }
            Thread.sleep(forTimeInterval: 0.025)
            let sample = try scale(grab(region: whole, masks: [], displays: displays, screen: screen), to: small).bytes
            if sample != previous { lastDamage = Date(); events += 1; previous = sample }
        }
    }

    private func settled(_ done: Bool, _ start: Date, _ events: Int) -> (fields: [(String, JSON)], payload: [UInt8]) {
        ([("settled", .bool(done)), ("waited_ms", .double(Date().timeIntervalSince(start) * 1000)), ("damage_events", .int(Int64(events))), ("cancelled", .bool(false))], [])
    }
}

/// The active displays, in global points (top-left origin), with their backing scale and names.
enum Displays {
    static func current() -> [Geometry.Display] {
        var count: UInt32 = 0
        CGGetActiveDisplayList(0, nil, &count)
        var ids = [CGDirectDisplayID](repeating: 0, count: Int(count))
        CGGetActiveDisplayList(count, &ids, &count)
        let names = Dictionary(NSScreen.screens.compactMap { screen -> (UInt32, String)? in
            guard let number = screen.deviceDescription[NSDeviceDescriptionKey("NSScreenNumber")] as? NSNumber else { return nil }
            return (number.uint32Value, screen.localizedName)
        }, uniquingKeysWith: { a, _ in a })
        return ids.map { id in
            let bounds = CGDisplayBounds(id)
            let scale = bounds.width > 0 ? Double(CGDisplayPixelsWide(id)) / Double(bounds.width) : 1
            return Geometry.Display(id: id, name: names[id] ?? "display-\(id)", frame: Rect(x: Int64(bounds.minX), y: Int64(bounds.minY), width: Int64(bounds.width), height: Int64(bounds.height)),
                                    scale: scale, primary: id == CGMainDisplayID())
        }
    }
}

/// Runs async work from the helper's request threads, which answer in order and may block; a
/// failure becomes the protocol error `kind` ("capture_failed" unless said).
func blocking<T>(_ kind: String = "capture_failed", _ what: String = "ScreenCaptureKit", _ body: @escaping () async throws -> T) throws -> T {
    let done = DispatchSemaphore(value: 0)
    var result: Result<T, Error>?
    Task.detached {
        do { result = .success(try await body()) } catch { result = .failure(error) }
        done.signal()
    }
    done.wait()
    switch result! {
    case let .success(value): return value
    case let .failure(error): throw HelperFailure(kind, "\(what): \(error.localizedDescription)")
    }
}
#endif
