import XCTest
@testable import DeskgateHelperCore

final class GeometryTests: XCTestCase {
    func testTokenBudgetSizesMatchTheCore() {
        // TOOLS.md's worked values.
        XCTAssertEqual(Geometry.targetImageSize(width: 1280, height: 800), Size(width: 1280, height: 800))
        XCTAssertEqual(Geometry.targetImageSize(width: 1920, height: 1080), Size(width: 1456, height: 819))
        XCTAssertEqual(Geometry.targetImageSize(width: 2560, height: 1600), Size(width: 1389, height: 868))
        XCTAssertEqual(Geometry.targetImageSize(width: 3024, height: 1964), Size(width: 1372, height: 891))
    }

    func testDisplaysUnionAndPoints() {
        let main = Geometry.Display(id: 1, name: "Built-in", frame: Rect(x: 0, y: 0, width: 1512, height: 982), scale: 2, primary: true)
        let left = Geometry.Display(id: 2, name: "LG", frame: Rect(x: -1920, y: -98, width: 1920, height: 1080), scale: 1, primary: false)
        let screen = Geometry.screen(of: [main, left])
        XCTAssertEqual(screen, Rect(x: -1920, y: -98, width: 3432, height: 1080))
        let global = Geometry.globalPoint(Point(x: 1920, y: 98), screen: screen)
        XCTAssertEqual(global.x, 0); XCTAssertEqual(global.y, 0)
        XCTAssertEqual(Geometry.protocolPoint(x: 0, y: 0, screen: screen), Point(x: 1920, y: 98))
        XCTAssertEqual(Geometry.protocolPoint(x: -5000, y: 5000, screen: screen), Point(x: 0, y: 1079), "clamped into the screen")
        XCTAssertEqual(Geometry.pixels(Rect(x: 10, y: 10, width: 101, height: 51), scale: 2), Rect(x: 20, y: 20, width: 202, height: 102))
    }

    func testMasksThatCoverAWindowExcludeItNatively() {
        let windows: [(id: UInt32, frame: Rect)] = [(7, Rect(x: 100, y: 100, width: 300, height: 200)), (8, Rect(x: 0, y: 0, width: 50, height: 50))]
        XCTAssertEqual(Geometry.windowsCovered(by: [Rect(x: 100, y: 100, width: 300, height: 200)], windows: windows), [7])
        XCTAssertEqual(Geometry.windowsCovered(by: [Rect(x: 110, y: 100, width: 300, height: 200)], windows: windows), [], "a partial cover is painted only")
    }
}

final class KeysymTests: XCTestCase {
    func testKeysAndModifiers() throws {
        XCTAssertEqual(try Keysyms.key(0xFF0D), .virtualKey(0x24), "Return")
        XCTAssertEqual(try Keysyms.key(0xFF1B), .virtualKey(0x35), "Escape")
        XCTAssertEqual(try Keysyms.key(0xFFBE), .virtualKey(0x7A), "F1")
        XCTAssertEqual(try Keysyms.key(0xFFEB), .modifier(.command, keyCode: 0x37), "Super_L is Command")
        XCTAssertEqual(try Keysyms.key(0xFFE9), .modifier(.option, keyCode: 0x3A), "Alt_L is Option")
        XCTAssertEqual(try Keysyms.key(0xFFE3), .modifier(.control, keyCode: 0x3B))
        XCTAssertEqual(try Keysyms.key(0x61), .character("a"))
        XCTAssertEqual(try Keysyms.key(0xF6), .character("ö"))
        XCTAssertEqual(try Keysyms.key(0x0100_65E5), .character("日"))
        XCTAssertThrowsError(try Keysyms.key(0x1234)) { XCTAssertEqual(String(describing: $0), "keysym 0x1234 has no key on macOS") }
    }

    func testAnsiStrokes() {
        XCTAssertEqual(Keysyms.ansiStroke("q")?.keyCode, 0x0C)
        XCTAssertEqual(Keysyms.ansiStroke("Q")?.shift, true)
        XCTAssertEqual(Keysyms.ansiStroke("!")?.keyCode, 0x12)
        XCTAssertEqual(Keysyms.ansiStroke(" ")?.keyCode, 0x31)
        XCTAssertNil(Keysyms.ansiStroke("日"), "typed as Unicode instead")
    }
}

final class AppClassificationTests: XCTestCase {
    func testSeedBundleIds() {
        let cases: [(String, String, AppCategory, Tier?)] = [
            ("com.apple.Safari", "Safari", .browser, .read), ("com.google.Chrome", "Google Chrome", .browser, .read),
            ("com.apple.Terminal", "Terminal", .terminal, .click), ("com.googlecode.iterm2", "iTerm2", .terminal, .click),
            ("com.apple.dt.Xcode", "Xcode", .terminal, .click), ("com.microsoft.VSCode", "Code", .terminal, .click),
            ("com.ledger.live", "Ledger Live", .trading, .read), ("com.spotify.client", "Spotify", .denied, nil),
            ("com.amazon.Kindle", "Kindle", .denied, nil), ("com.apple.TextEdit", "TextEdit", .other, .full),
            ("COM.APPLE.SAFARI", "", .browser, .read), ("com.apple.finder", "Finder", .browser, .read),
        ]
        for (id, name, category, tier) in cases {
            let found = AppClassification.category(bundleId: id, name: name)
            XCTAssertEqual(found, category, id)
            XCTAssertEqual(AppClassification.tier(found), tier, id)
        }
        XCTAssertEqual(AppClassification.category(bundleId: "com.example.bb", name: "Bloomberg Terminal"), .trading, "trading before terminal")
    }
}

final class ShortcutBlocklistTests: XCTestCase {
    func testSeedMacOSList() {
        XCTAssertEqual(ShortcutBlocklist.macOS.map(\.combo), ["meta+q", "shift+meta+q", "alt+meta+escape", "meta+tab", "meta+space", "ctrl+meta+q"])
        XCTAssertEqual(ShortcutBlocklist.blocked("cmd+q")?.combo, "meta+q")
        XCTAssertEqual(ShortcutBlocklist.blocked("Command+Shift+Q")?.combo, "shift+meta+q")
        XCTAssertEqual(ShortcutBlocklist.blocked("option+cmd+esc")?.combo, "alt+meta+escape")
        XCTAssertEqual(ShortcutBlocklist.blocked("cmd+shift+tab")?.combo, "meta+tab")
        XCTAssertEqual(ShortcutBlocklist.blocked("cmd+q+a")?.combo, "meta+q")
        XCTAssertNil(ShortcutBlocklist.blocked("cmd+c"))
        XCTAssertNil(ShortcutBlocklist.blocked("alt+tab"))
        XCTAssertNil(ShortcutBlocklist.blocked("ctrl++"))
        XCTAssertNil(ShortcutBlocklist.blocked("cmd+"), "not a chord")
    }
}

/// The serve loops with a fake backend: order, ids, failures as error answers.
final class SessionTests: XCTestCase {
    final class FakeCapture: CaptureBackend {
        func handle(_ request: CaptureRequest) throws -> (fields: [(String, JSON)], payload: [UInt8]) {
            switch request {
            case .ping: return ([], [])
            case .capture: return ([("width", .int(2)), ("height", .int(1)), ("format", .string("rgb"))], [1, 2, 3, 4, 5, 6])
            default: throw HelperFailure("capture_failed", "Screen Recording permission is missing")
            }
        }
    }

    final class FakeInput: InputBackend {
        func handle(_ request: InputRequest) throws -> JSON {
            if case .type = request { throw HelperFailure("guard_failed", "type: the focus moved", extra: [("typed", .int(3))]) }
            return .object([])
        }
    }

    func testCaptureInOrderWithPayloadsAndFailures() throws {
        let session = CaptureSession(backend: FakeCapture())
        let frame = { (s: String) in u32le(s.utf8.count) + Array(s.utf8) }
        let bytes = frame(#"{"id":1,"op":"ping"}"#) + frame(#"{"id":"c","op":"capture","format":"rgb"}"#) + frame(#"{"id":3,"op":"info"}"#)
        var out: [UInt8] = []
        for byte in bytes { out += session.receive([byte]) }
        let frames = try captureFrames(out)
        XCTAssertEqual(frames.map(\.0["id"]), [.int(1), .string("c"), .int(3)])
        XCTAssertEqual(frames[1].1, [1, 2, 3, 4, 5, 6])
        XCTAssertEqual(frames[2].0["error"]?["kind"]?.stringValue, "capture_failed")
        XCTAssertEqual(frames[2].0["error"]?["message"]?.stringValue, "Screen Recording permission is missing")
    }

    func testInputFailuresCarryTheirExtraFields() throws {
        let out = InputSession(backend: FakeInput()).receive(Array("{\"id\":1,\"op\":\"ping\"}\n{\"id\":2,\"op\":\"type\",\"text\":\"abc\"}\n".utf8))
        let lines = String(decoding: out, as: UTF8.self).split(separator: "\n").map(String.init)
        XCTAssertEqual(lines, [
            #"{"id":1,"ok":true,"result":{}}"#,
            #"{"id":2,"ok":false,"error":{"kind":"guard_failed","message":"type: the focus moved","typed":3}}"#,
        ])
    }
}
