/// The request loops of both protocols, apart from any platform: bytes in, bytes out, one
/// response per request in request order, every refusal or failure an error answer and never a
/// crash. The macOS executable plugs its ScreenCaptureKit and CGEvent backends in; the tests
/// plug fakes in and check the framing and the error answers on Linux.
public struct HelperFailure: Error, Equatable {
    public let kind: String
    public let message: String
    public var extra: [(String, JSON)] = []
    public init(_ kind: String, _ message: String, extra: [(String, JSON)] = []) { self.kind = kind; self.message = message; self.extra = extra }
    public static func == (a: HelperFailure, b: HelperFailure) -> Bool { a.kind == b.kind && a.message == b.message }
}

/// A capture backend answers one request: the header's fields after `id` and `ok`, and a payload.
public protocol CaptureBackend: AnyObject {
    func handle(_ request: CaptureRequest) throws -> (fields: [(String, JSON)], payload: [UInt8])
}

public protocol InputBackend: AnyObject {
    func handle(_ request: InputRequest) throws -> JSON
}

public final class CaptureSession {
    private var decoder = CaptureRequestDecoder()
    private let backend: CaptureBackend

    public init(backend: CaptureBackend) { self.backend = backend }

    /// The response bytes for whatever complete requests `chunk` finishes.
    public func receive(_ chunk: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        for frame in decoder.push(chunk) {
            switch frame {
            case let .tooLarge(length):
                out += encodeCaptureResponse(captureErrorHeader(id: .null, kind: "bad_request", message: "request frame of \(length) bytes exceeds the \(CaptureLimits.maxRequestBytes)-byte limit"))
            case let .body(body):
                switch CaptureRequestParser.parse(body) {
                case let .failure(refusal):
                    out += encodeCaptureResponse(captureErrorHeader(id: refusal.id, kind: refusal.kind, message: refusal.message))
                case let .success((id, request)):
                    do {
                        let (fields, payload) = try backend.handle(request)
                        out += encodeCaptureResponse(.object([("id", id), ("ok", .bool(true))] + fields), payload: payload)
                    } catch let failure as HelperFailure {
                        out += encodeCaptureResponse(captureErrorHeader(id: id, kind: failure.kind, message: failure.message))
                    } catch {
                        out += encodeCaptureResponse(captureErrorHeader(id: id, kind: "capture_failed", message: "\(request.op): \(error)"))
                    }
                }
            }
        }
        return out
    }
}

public final class InputSession {
    private var reader = InputLineReader()
    private let backend: InputBackend

    public init(backend: InputBackend) { self.backend = backend }

    public func receive(_ chunk: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        for line in reader.push(chunk) {
            switch line {
            case let .tooLong(prefix):
                out += encodeInputError(id: InputRequestParser.recoverId(prefix), kind: "bad_args", message: "request line longer than \(InputLimits.maxLine) bytes")
            case let .line(bytes):
                if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
                switch InputRequestParser.parse(bytes) {
                case let .failure(refusal):
                    out += encodeInputError(id: refusal.id, kind: refusal.kind, message: refusal.message)
                case let .success((id, request)):
                    do {
                        out += encodeInputResponse(id: id, result: try backend.handle(request))
                    } catch let failure as HelperFailure {
                        out += encodeInputError(id: id, kind: failure.kind, message: failure.message, extra: failure.extra)
                    } catch {
                        out += encodeInputError(id: id, kind: "unsupported", message: "\(error)")
                    }
                }
            }
        }
        return out
    }
}
