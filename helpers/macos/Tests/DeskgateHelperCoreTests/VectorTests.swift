import Foundation
import XCTest
@testable import DeskgateHelperCore

/// The shared test vectors (packages/helper-protocol/vectors), as the Rust, Python and
/// TypeScript sides check them: every valid request is accepted, every refused one answered
/// with the vectors' id and kind, response frames written as the vectors hold them, and the
/// constants and error kinds are the same.
final class VectorTests: XCTestCase {
    static let vectors = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("packages/helper-protocol/vectors")

    func load(_ name: String) throws -> JSON {
        let data = try Data(contentsOf: Self.vectors.appendingPathComponent(name))
        return try JSONParser.parse([UInt8](data))
    }

    func hex(_ s: String) -> [UInt8] {
        var out: [UInt8] = []
        var chars = Array(s.utf8)
        while chars.count >= 2 {
            out.append(UInt8(String(decoding: chars[0..<2], as: UTF8.self), radix: 16)!)
            chars.removeFirst(2)
        }
        return out
    }

    func testCaptureConstantsAndKinds() throws {
        let v = try load("capture.json")
        for key in v["constants"]!.keys {
            XCTAssertEqual(CaptureLimits.byName[key], v["constants"]![key]!.intValue, key)
        }
        XCTAssertEqual(v["error_kinds"]!.arrayValue!.compactMap(\.stringValue), ErrorKinds.capture)
    }

    func testCaptureRequestsAccepted() throws {
        for r in try load("capture.json")["requests"]!.arrayValue! {
            let name = r["name"]!.stringValue!
            var decoder = CaptureRequestDecoder()
            let frames = decoder.push(hex(r["frame_hex"]!.stringValue!))
            XCTAssertEqual(frames.count, 1, name)
            guard case let .body(body)? = frames.first else { return XCTFail(name) }
            switch CaptureRequestParser.parse(body) {
            case let .success((id, request)):
                XCTAssertEqual(id, r["request"]!["id"] ?? .null, name)
                XCTAssertEqual(request.op, r["request"]!["op"]!.stringValue, name)
            case let .failure(refusal): XCTFail("\(name): \(refusal.message)")
            }
        }
    }

    func testCaptureRefusals() throws {
        for r in try load("capture.json")["invalid"]!.arrayValue! {
            let name = r["name"]!.stringValue!
            let bytes: [UInt8]
            if let n = r["oversized"]?.intValue { bytes = u32le(Int(n)) + [UInt8](repeating: 0x20, count: Int(n)) } else { bytes = hex(r["frame_hex"]!.stringValue!) }
            // Through the whole session, fed in pieces: one error frame per request.
            let session = CaptureSession(backend: UnreachableCapture())
            var out: [UInt8] = []
            var rest = bytes[...]
            while !rest.isEmpty { out += session.receive(Array(rest.prefix(4096))); rest = rest.dropFirst(4096) }
            let header = try XCTUnwrap(captureHeaders(out).first, name)
            XCTAssertEqual(header["ok"], .bool(false), name)
            XCTAssertEqual(header["id"], r["id"]!, name)
            XCTAssertEqual(header["error"]?["kind"]?.stringValue, r["kind"]!.stringValue, name)
        }
    }

    func testCaptureResponsesWrittenAsTheVectors() throws {
        for r in try load("capture.json")["responses"]!.arrayValue! {
            let name = r["name"]!.stringValue!
            let frame = encodeCaptureResponse(r["header"]!, payload: hex(r["payload_hex"]!.stringValue!))
            let expected = hex(r["frame_hex"]!.stringValue!)
            // Headers compare as JSON values (whole-number floats: 0.0 vs 0); payloads byte for byte.
            let (header, payload) = try XCTUnwrap(captureFrames(frame).first)
            let (expectedHeader, expectedPayload) = try XCTUnwrap(captureFrames(expected).first)
            XCTAssertEqual(header, expectedHeader, name)
            XCTAssertEqual(payload, expectedPayload, name)
        }
    }

    func testInputConstantsAndKinds() throws {
        let v = try load("input.json")
        for key in v["constants"]!.keys {
            XCTAssertEqual(InputLimits.byName[key], v["constants"]![key]!.intValue, key)
        }
        XCTAssertEqual(v["error_kinds"]!.arrayValue!.compactMap(\.stringValue), ErrorKinds.input)
    }

    func testInputRequestsAccepted() throws {
        for r in try load("input.json")["requests"]!.arrayValue! {
            let name = r["name"]!.stringValue!
            switch InputRequestParser.parse(Array(r["line"]!.stringValue!.utf8)) {
            case let .success((id, _)): XCTAssertEqual(id, r["request"]!["id"] ?? .null, name)
            case let .failure(refusal): XCTFail("\(name): \(refusal.message)")
            }
        }
    }

    func testInputRefusals() throws {
        for r in try load("input.json")["invalid"]!.arrayValue! {
            let name = r["name"]!.stringValue!
            var line: [UInt8]
            if let o = r["oversized"] {
                let prefix = Array(o["prefix"]!.stringValue!.utf8)
                line = prefix + [UInt8](repeating: UInt8(ascii: "a"), count: Int(o["length"]!.intValue!) - prefix.count)
            } else {
                line = Array(r["line"]!.stringValue!.utf8)
            }
            let out = InputSession(backend: UnreachableInput()).receive(line + [0x0A])
            let response = try JSONParser.parse(Array(out.dropLast()))
            XCTAssertEqual(response["ok"], .bool(false), name)
            XCTAssertEqual(response["id"], r["id"]!, name)
            XCTAssertEqual(response["error"]?["kind"]?.stringValue, r["kind"]!.stringValue, name)
        }
    }

    func testInputResponsesWrittenAsTheVectors() throws {
        for r in try load("input.json")["responses"]!.arrayValue! {
            let name = r["name"]!.stringValue!
            let response = r["response"]!
            let line: [UInt8]
            if response["ok"] == .bool(true) {
                line = encodeInputResponse(id: response["id"]!, result: response["result"]!)
            } else {
                let error = response["error"]!
                let extra: [(String, JSON)] = error.keys.filter { $0 != "kind" && $0 != "message" }.map { ($0, error[$0]!) }
                line = encodeInputError(id: response["id"]!, kind: error["kind"]!.stringValue!, message: error["message"]!.stringValue!, extra: extra)
            }
            XCTAssertEqual(String(decoding: line, as: UTF8.self), r["line"]!.stringValue!, name)
        }
    }
}

/// Refused requests never reach a backend.
final class UnreachableCapture: CaptureBackend {
    func handle(_ request: CaptureRequest) throws -> (fields: [(String, JSON)], payload: [UInt8]) {
        XCTFail("a refused request reached the backend: \(request.op)")
        return ([], [])
    }
}

final class UnreachableInput: InputBackend {
    func handle(_ request: InputRequest) throws -> JSON {
        XCTFail("a refused request reached the backend: \(request)")
        return .object([])
    }
}

/// Response frames: (header, payload).
func captureFrames(_ bytes: [UInt8]) throws -> [(JSON, [UInt8])] {
    var out: [(JSON, [UInt8])] = []
    var at = 0
    func u32() -> Int {
        defer { at += 4 }
        return Int(UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24)
    }
    while at + 4 <= bytes.count {
        let h = u32()
        let header = try JSONParser.parse(Array(bytes[at..<at + h]))
        at += h
        let p = u32()
        out.append((header, Array(bytes[at..<at + p])))
        at += p
    }
    return out
}

func captureHeaders(_ bytes: [UInt8]) throws -> [JSON] { try captureFrames(bytes).map(\.0) }
