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

    /// The fields in bytes (``BinaryWriter``); the answer too when ``keepsAnswerWithFields``.
    func feedBytes() -> [UInt8] {
        var writer = BinaryWriter()
        writer.bytes.reserveCapacity(96 + path.utf8.count + (userAgent?.utf8.count ?? 0) + changes.count * 32)
        let keepsAnswer = keepsAnswerWithFields
        let flags: UInt8 = (isServerAdmin ? 1 : 0) | (isInspector ? 2 : 0) | (bodyIsJSON ? 4 : 0) | (keepsAnswer ? 8 : 0)
        writer.fixed(flags)
        writer.fixed(Int64(status))
        let parts = latency.components
        writer.fixed(parts.seconds)
        writer.fixed(parts.attoseconds)
        writer.string(method)
        writer.string(path)
        // One by one, not from an array: this runs for every request the feed records.
        writer.optionalString(operation)
        writer.optionalString(user)
        writer.optionalString(device)
        writer.optionalString(userAgent)
        writer.optionalString(tokenIn?.rawValue)
        writer.optionalString(tokenOut?.rawValue)
        writer.optionalString(fault)
        writer.fixed(UInt32(changes.count))
        for change in changes {
            writer.string(change.kind.rawValue)
            writer.string(change.zone)
            writer.optionalString(change.recordName)
        }
        if keepsAnswer { writer.blob(answerBody) }
        return writer.bytes
    }

    /// The event ``feedBytes()`` wrote, with the bodies given (the answer
    /// kept with the fields, if it was, wins); `nil` for bytes it did not write.
    init?(feedBytes bytes: [UInt8], requestBody: Data, answerBody: Data) {
        let read = bytes.withUnsafeBytes { raw in try? Self.read(BinaryReader(raw), requestBody: requestBody, answerBody: answerBody) }
        guard let read else { return nil }
        self = read
    }

    private static func read(_ reader: BinaryReader, requestBody: Data, answerBody: Data) throws -> RequestEvent {
        var reader = reader
        let flags = try reader.byte()
        let status: Int64 = try reader.fixed()
        let seconds: Int64 = try reader.fixed()
        let attoseconds: Int64 = try reader.fixed()
        let method = try reader.string()
        let path = try reader.string()
        let optionals = try (0..<7).map { _ in try reader.optionalString() }
        let count: UInt32 = try reader.fixed()
        let changes = try (0..<count).map { _ in
            guard let kind = CallChange.Kind(rawValue: try reader.string()) else { throw CheckpointFormat.Damaged(what: "a change of no known kind") }
            return CallChange(kind, zone: try reader.string(), recordName: try reader.optionalString())
        }
        let answer = flags & 8 != 0 ? try reader.blob() : answerBody
        guard reader.offset == reader.raw.count else { throw CheckpointFormat.Damaged(what: "bytes after the event") }
        return RequestEvent(
            method: method, path: path, operation: optionals[0], user: optionals[1], isServerAdmin: flags & 1 != 0, device: optionals[2],
            userAgent: optionals[3], isInspector: flags & 2 != 0, tokenIn: optionals[4].map(ServerChangeToken.init(rawValue:)),
            tokenOut: optionals[5].map(ServerChangeToken.init(rawValue:)), status: Int(status),
            latency: Duration(secondsComponent: seconds, attosecondsComponent: attoseconds), fault: optionals[6],
            requestBody: requestBody, answerBody: answer, bodyIsJSON: flags & 4 != 0, changes: changes)
    }
}
