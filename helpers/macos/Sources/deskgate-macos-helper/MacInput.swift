#if os(macOS)
import AppKit
import ApplicationServices
import Carbon.HIToolbox
import CoreGraphics
import DeskgateHelperCore
import Foundation

/// The input protocol on CGEvent (mouse, scroll, keys, Unicode typing), with NSWorkspace and
/// CGWindowList for apps and windows, NSPasteboard for the clipboard and NSWorkspace for
/// launching by bundle id. Coordinates are protocol points over the union of the displays.
///
/// Guards: the facts are read again right before the events are posted. macOS has no server
/// grab, so a window that appears in the microseconds between that check and the post can still
/// take the input: the window is narrower than a whole request, not closed (docs/macos.md).
final class MacInput: InputBackend {
    private let capture: MacCapture
    private let source = CGEventSource(stateID: .hidSystemState)
    private var heldButtons = Set<MouseButton>()
    private var heldKeys = Set<UInt16>()
    private var factsToken = 0

    init(capture: MacCapture) { self.capture = capture }

    func handle(_ request: InputRequest) throws -> JSON {
        switch request {
        case .ping:
            return .object([])
        case .check:
            try Permissions.require(.accessibility)
            let screen = Geometry.screen(of: Displays.current())
            return .object([("xtest", .bool(true)), ("width", .int(screen.width)), ("height", .int(screen.height))])
        case .cursorPosition:
            let p = cursor()
            return .object([("x", .int(p.x)), ("y", .int(p.y))])
        case .frontmostApp:
            return Windows.frontmostApp()
        case .listWindows:
            return .object([("windows", .array(Windows.list().map(\.json)))])
        case let .windowAt(p):
            return Windows.app(at: p)
        case let .gateFacts(points):
            return gateFacts(points)
        case .clipboardRead:
            return .object([("text", NSPasteboard.general.string(forType: .string).map { .string($0) } ?? .null)])
        case let .clipboardWrite(text):
            NSPasteboard.general.clearContents()
            if !text.isEmpty { NSPasteboard.general.setString(text, forType: .string) }
            return .object([])
        case let .launch(argv, env, cwd):
            return try Launcher.launch(argv: argv, env: env, cwd: cwd)
        case let .desktopEntries(user):
            return Launcher.entries(user: user)
        case let .iconify(window):
            try Permissions.require(.accessibility)
            try Windows.setMinimized(UInt32(window), true)
            return .object([])
        case let .activate(window):
            try Permissions.require(.accessibility)
            try Windows.activate(UInt32(window))
            return .object([])
        case .releaseAll:
            for button in heldButtons { post(mouse: button, down: false, at: cursor()) }
            heldButtons.removeAll()
            for code in heldKeys { postKey(code, down: false, flags: []) }
            heldKeys.removeAll()
            return .object([])
        default:
            try Permissions.require(.accessibility)
            return try drive(request)
        }
    }

    // MARK: pointer and keys

    private func drive(_ request: InputRequest) throws -> JSON {
        switch request {
        case let .move(p, guard: g):
            try check(g)
            let event = heldButtons.contains(.left) ? CGEventType.leftMouseDragged : .mouseMoved
            CGEvent(mouseEventSource: source, mouseType: event, mouseCursorPosition: global(p), mouseButton: .left)?.post(tap: .cghidEventTap)
        case let .click(p, button, count, modifiers, g):
            try check(g)
            let flags = flagsOf(modifiers)
            move(to: p)
            for n in 1...count {
                post(mouse: button, down: true, at: p, clickState: n, flags: flags)
                post(mouse: button, down: false, at: p, clickState: n, flags: flags)
            }
        case let .mouseDown(button, at, g):
            try check(g)
            if heldButtons.contains(button) { throw HelperFailure("bad_args", "mouse_down: the \(button.rawValue) button is already down") }
            post(mouse: button, down: true, at: at ?? cursor())
            heldButtons.insert(button)
        case let .mouseUp(button, at, g):
            try check(g)
            post(mouse: button, down: false, at: at ?? cursor())
            heldButtons.remove(button)
        case let .drag(from, to, button, modifiers, g):
            try check(g)
            let flags = flagsOf(modifiers)
            let start = from ?? cursor()
            post(mouse: button, down: true, at: start, flags: flags)
            let steps = 10
            for i in 1...steps {
                let p = Point(x: start.x + (to.x - start.x) * Int64(i) / Int64(steps), y: start.y + (to.y - start.y) * Int64(i) / Int64(steps))
                CGEvent(mouseEventSource: source, mouseType: dragType(button), mouseCursorPosition: global(p), mouseButton: cgButton(button))?.post(tap: .cghidEventTap)
                usleep(4000)
            }
            post(mouse: button, down: false, at: to, flags: flags)
        case let .scroll(p, direction, amount, modifiers, g):
            try check(g)
            move(to: p)
            guard amount > 0 else { return .object([]) }
            let lines = Int32(amount)
            let (vertical, horizontal): (Int32, Int32) = switch direction {
            case .up: (lines, 0)
            case .down: (-lines, 0)
            case .left: (0, lines)
            case .right: (0, -lines)
            }
            let event = CGEvent(scrollWheelEvent2Source: source, units: .line, wheelCount: 2, wheel1: vertical, wheel2: horizontal, wheel3: 0)
            event?.flags = flagsOf(modifiers)
            event?.post(tap: .cghidEventTap)
        case let .key(chords, count, g):
            try check(g)
            let resolved = try chords.map { try $0.map(Keysyms.key) }
            for _ in 0..<count { for chord in resolved { try press(chord) } }
        case let .keyDown(chords, g):
            try check(g)
            for chord in try chords.map({ try $0.map(Keysyms.key) }) {
                var flags = CGEventFlags()
                for key in chord {
                    let (code, modifier) = try code(of: key)
                    if let modifier { flags.insert(flag(modifier)) }
                    postKey(code, down: true, flags: flags)
                    heldKeys.insert(code)
                }
            }
        case let .keyUp(chords):
            for chord in chords {
                for key in (try? chord.map(Keysyms.key)) ?? [] {
                    guard let (code, _) = try? code(of: key) else { continue }
                    postKey(code, down: false, flags: [])
                    heldKeys.remove(code)
                }
            }
        case let .type(text, g):
            try check(g)
            var typed = 0
            for character in text {
                try typeCharacter(character)
                typed += 1
            }
            return .object([("typed", .int(Int64(typed)))])
        default:
            throw HelperFailure("unsupported", "not an input op")
        }
        return .object([])
    }

    /// One chord: keys down in order, up in reverse; modifiers held as flags on the keys after them.
    private func press(_ chord: [MacKey]) throws {
        var flags = CGEventFlags()
        var down: [UInt16] = []
        for key in chord {
            let (code, modifier) = try code(of: key)
            if let modifier { flags.insert(flag(modifier)) }
            if case let .character(c) = key, Keysyms.ansiStroke(c)?.shift == true { flags.insert(.maskShift) }
            postKey(code, down: true, flags: flags)
            down.append(code)
        }
        for code in down.reversed() { postKey(code, down: false, flags: flags) }
    }

    private func code(of key: MacKey) throws -> (UInt16, MacModifier?) {
        switch key {
        case let .virtualKey(code): return (code, nil)
        case let .modifier(m, code): return (code, m)
        case let .character(c):
            let lower = Character(c.lowercased())
            if let stroke = Keysyms.ansiStroke(lower) ?? Keysyms.ansiStroke(c) { return (stroke.keyCode, nil) }
            throw HelperFailure("bad_args", "\(c) has no key on this keyboard layout for a chord; type it instead")
        }
    }

    /// A character the layout has goes as its key; any other as a Unicode string on a key event.
    private func typeCharacter(_ c: Character) throws {
        if c == "\n" || c == "\r\n" || c == "\r" { postKey(0x24, down: true, flags: []); postKey(0x24, down: false, flags: []); return }
        if c == "\t" { postKey(0x30, down: true, flags: []); postKey(0x30, down: false, flags: []); return }
        if let stroke = Keysyms.ansiStroke(c), Layout.isANSI {
            let flags: CGEventFlags = stroke.shift ? .maskShift : []
            postKey(stroke.keyCode, down: true, flags: flags)
            postKey(stroke.keyCode, down: false, flags: flags)
            return
        }
        let units = Array(String(c).utf16)
        for down in [true, false] {
            let event = CGEvent(keyboardEventSource: source, virtualKey: 0, keyDown: down)
            units.withUnsafeBufferPointer { event?.keyboardSetUnicodeString(stringLength: units.count, unicodeString: $0.baseAddress) }
            event?.post(tap: .cghidEventTap)
        }
    }

    private func postKey(_ code: UInt16, down: Bool, flags: CGEventFlags) {
        let event = CGEvent(keyboardEventSource: source, virtualKey: code, keyDown: down)
        event?.flags = flags
        event?.post(tap: .cghidEventTap)
    }

    private func flag(_ m: MacModifier) -> CGEventFlags {
        switch m {
        case .command: return .maskCommand
        case .shift: return .maskShift
        case .option: return .maskAlternate
        case .control: return .maskControl
        }
    }

    private func flagsOf(_ modifiers: [Modifier]) -> CGEventFlags {
        var flags = CGEventFlags()
        for m in modifiers {
            switch m {
            case .ctrl: flags.insert(.maskControl)
            case .alt: flags.insert(.maskAlternate)
            case .shift: flags.insert(.maskShift)
            case .meta: flags.insert(.maskCommand)
            }
        }
        return flags
    }

    private func cgButton(_ b: MouseButton) -> CGMouseButton { b == .left ? .left : b == .right ? .right : .center }
    private func dragType(_ b: MouseButton) -> CGEventType { b == .left ? .leftMouseDragged : b == .right ? .rightMouseDragged : .otherMouseDragged }

    private func post(mouse button: MouseButton, down: Bool, at p: Point, clickState: Int64 = 1, flags: CGEventFlags = []) {
        let type: CGEventType = switch (button, down) {
        case (.left, true): .leftMouseDown
        case (.left, false): .leftMouseUp
        case (.right, true): .rightMouseDown
        case (.right, false): .rightMouseUp
        case (.middle, true): .otherMouseDown
        case (.middle, false): .otherMouseUp
        }
        let event = CGEvent(mouseEventSource: source, mouseType: type, mouseCursorPosition: global(p), mouseButton: cgButton(button))
        event?.setIntegerValueField(.mouseEventClickState, value: clickState)
        event?.flags = flags
        event?.post(tap: .cghidEventTap)
    }

    private func move(to p: Point) {
        CGEvent(mouseEventSource: source, mouseType: .mouseMoved, mouseCursorPosition: global(p), mouseButton: .left)?.post(tap: .cghidEventTap)
    }

    private var screen: Rect { Geometry.screen(of: Displays.current()) }

    private func global(_ p: Point) -> CGPoint {
        let g = Geometry.globalPoint(p, screen: screen)
        return CGPoint(x: g.x, y: g.y)
    }

    private func cursor() -> Point {
        let location = CGEvent(source: nil)?.location ?? .zero
        return Geometry.protocolPoint(x: location.x, y: location.y, screen: screen)
    }

    // MARK: facts and guards

    private func gateFacts(_ points: [Point]) -> JSON {
        factsToken += 1
        let pointer = cursor()
        var buttons: [JSON] = []
        for (button, cg) in [(MouseButton.left, CGMouseButton.left), (.middle, .center), (.right, .right)] where CGEventSource.buttonState(.combinedSessionState, button: cg) {
            buttons.append(.string(button.rawValue))
        }
        return .object([
            ("windows", .array(Windows.list().map(\.json))),
            ("focus", Windows.focusSurface()),
            ("at", .array(points.map(Windows.surface(at:)))),
            ("cursor", .object([("x", .int(pointer.x)), ("y", .int(pointer.y))])),
            ("under_pointer", Windows.surface(at: pointer)),
            ("buttons", .array(buttons)),
            ("token", .string("mac-\(factsToken)")),
        ])
    }

    /// The facts the gates judged, read again right before the events go out.
    private func check(_ g: InputGuard?) throws {
        guard let g else { return }
        if let focus = g.focus {
            let now = Windows.focusSurface()["window"]?.intValue
            if now != focus { throw HelperFailure("guard_failed", "the focus is on window \(now.map(String.init) ?? "none") now, not on window \(focus); nothing was sent") }
        }
        for expected in g.at {
            let surface = Windows.surface(at: expected.point)
            if surface["kind"]?.stringValue != expected.kind.rawValue || surface["window"]?.intValue != expected.window {
                throw HelperFailure("guard_failed", "the window at \(expected.point.x),\(expected.point.y) changed; nothing was sent")
            }
        }
    }
}

enum Layout {
    /// Whether the active keyboard layout is the US/ANSI one the key table describes; other layouts type every character as Unicode.
    static var isANSI: Bool {
        guard let source = TISCopyCurrentKeyboardLayoutInputSource()?.takeRetainedValue(),
              let raw = TISGetInputSourceProperty(source, kTISPropertyInputSourceID) else { return false }
        let id = Unmanaged<CFString>.fromOpaque(raw).takeUnretainedValue() as String
        return id == "com.apple.keylayout.US" || id == "com.apple.keylayout.ABC"
    }
}
#endif
