import Foundation
import SyncCore

/// A request event in the feed's bytes (``FeedByteRing``): its fields, and its
/// answer when the feed itself must keep that, but not its bodies (which the
/// feed keeps apart, and lets go first).
extension RequestEvent {
    /// The answer stays with the event's fields (never let go with the
    /// bodies): an error's says what went wrong and is small, and the client
    /// directory reads a registration's (`tokens/create`) to know whose the
    /// web courier is.
    var keepsAnswerWithFields: Bool { status != 200 || operation == "tokens/create" }

    /// The fields in bytes; the answer too when ``keepsAnswerWithFields``.
    func feedBytes() -> [UInt8] {
        var writer = FeedBytesWriter()
        writer.bytes.reserveCapacity(96 + path.utf8.count + (userAgent?.utf8.count ?? 0) + changes.count * 32)
        let keepsAnswer = keepsAnswerWithFields
        let flags: UInt8 = (isServerAdmin ? 1 : 0) | (isInspector ? 2 : 0) | (bodyIsJSON ? 4 : 0) | (keepsAnswer ? 8 : 0)
        writer.append(flags)
        writer.append(Int64(status))
        let parts = latency.components
        writer.append(parts.seconds)
        writer.append(parts.attoseconds)
        writer.append(method)
        writer.append(path)
        writer.append(operation)
        writer.append(user)
        writer.append(device)
        writer.append(userAgent)
        writer.append(tokenIn?.rawValue)
        writer.append(tokenOut?.rawValue)
        writer.append(fault)
        writer.append(Int64(changes.count))
        for change in changes {
            writer.append(change.kind.feedCode)
            writer.append(change.zone)
            writer.append(change.recordName)
        }
        if keepsAnswer { answerBody.withUnsafeBytes { writer.append($0) } }
        return writer.bytes
    }

    /// The event ``feedBytes()`` wrote, with the bodies given (the answer
    /// kept with the fields, if it was, wins); `nil` for bytes it did not write.
    init?(feedBytes bytes: [UInt8], requestBody: Data, answerBody: Data) {
        var reader = FeedBytesReader(bytes: bytes)
        guard let flags = reader.byte(), let status = reader.integer(), let seconds = reader.integer(), let attoseconds = reader.integer(),
              let method = reader.text(), let path = reader.text()
        else { return nil }
        var optionals: [String?] = []
        for _ in 0..<7 {
            guard let text = reader.optionalText() else { return nil }
            optionals.append(text)
        }
        guard let count = reader.integer(), count >= 0 else { return nil }
        var changes: [CallChange] = []
        changes.reserveCapacity(Int(count))
        for _ in 0..<count {
            guard let code = reader.byte(), let kind = CallChange.Kind(feedCode: code), let zone = reader.text(), let recordName = reader.optionalText()
            else { return nil }
            changes.append(CallChange(kind, zone: zone, recordName: recordName))
        }
        var answer = answerBody
        if flags & 8 != 0 {
            guard let kept = reader.rawBytes() else { return nil }
            answer = Data(kept)
        }
        guard reader.isAtEnd else { return nil }
        self.init(
            method: method, path: path, operation: optionals[0], user: optionals[1], isServerAdmin: flags & 1 != 0, device: optionals[2],
            userAgent: optionals[3], isInspector: flags & 2 != 0, tokenIn: optionals[4].map(ServerChangeToken.init(rawValue:)),
            tokenOut: optionals[5].map(ServerChangeToken.init(rawValue:)), status: Int(status),
            latency: Duration(secondsComponent: seconds, attosecondsComponent: attoseconds), fault: optionals[6],
            requestBody: requestBody, answerBody: answer, bodyIsJSON: flags & 4 != 0, changes: changes)
    }
}

extension CallChange.Kind {
    fileprivate var feedCode: UInt8 {
        switch self {
        case .saved: 0
        case .deleted: 1
        case .zoneCreated: 2
        case .zoneDeleted: 3
        }
    }

    fileprivate init?(feedCode: UInt8) {
        switch feedCode {
        case 0: self = .saved
        case 1: self = .deleted
        case 2: self = .zoneCreated
        case 3: self = .zoneDeleted
        default: return nil
        }
    }
}

/// Writes integers little-endian and texts as a length then UTF-8 (length -1: none).
private struct FeedBytesWriter {
    var bytes: [UInt8] = []

    mutating func append(_ byte: UInt8) { bytes.append(byte) }

    mutating func append(_ value: Int64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func append(_ raw: UnsafeRawBufferPointer) {
        append(Int64(raw.count))
        bytes.append(contentsOf: raw)
    }

    mutating func append(_ text: String) {
        let utf8 = text.utf8
        if utf8.withContiguousStorageIfAvailable({ append(UnsafeRawBufferPointer($0)) }) == nil {
            append(Int64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    mutating func append(_ text: String?) {
        if let text { append(text) } else { append(Int64(-1)) }
    }
}

/// Reads what ``FeedBytesWriter`` wrote; `nil` past the end or on a length that does not fit.
private struct FeedBytesReader {
    let bytes: [UInt8]
    var offset = 0

    var isAtEnd: Bool { offset == bytes.count }

    mutating func byte() -> UInt8? {
        guard offset < bytes.count else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func integer() -> Int64? {
        guard bytes.count - offset >= 8 else { return nil }
        let value = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: Int64.self) }
        offset += 8
        return Int64(littleEndian: value)
    }

    mutating func rawBytes() -> ArraySlice<UInt8>? {
        guard let count = integer(), count >= 0, count <= bytes.count - offset else { return nil }
        defer { offset += Int(count) }
        return bytes[offset..<offset + Int(count)]
    }

    mutating func text() -> String? {
        rawBytes().map { String(decoding: $0, as: UTF8.self) }
    }

    /// `.some(nil)` for a text written as none.
    mutating func optionalText() -> String?? {
        guard bytes.count - offset >= 8 else { return nil }
        let saved = offset
        if integer() == -1 { return .some(nil) }
        offset = saved
        return text().map { .some($0) }
    }
}
