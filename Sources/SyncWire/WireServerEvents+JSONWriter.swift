import Foundation
import SyncCore

/// The event feed's answer written by hand, for the one reason that the feed
/// is read while the server is busy: a body kept as the bytes a client sent
/// (or the server answered) goes into the page as it is, where `WireJSON`
/// would parse it into a ``JSONValue`` and encode it again. The output is the
/// same JSON `WireJSON.encode` writes for the same value (keys sorted,
/// slashes unescaped); `WireServerEventsJSONWriterTests` holds the two to it,
/// field by field.
extension WireServerEvents {
    /// The raw JSON bodies to write in place of an event's `request` and
    /// `answer` (each must be one JSON value; `nil`: the event's own field).
    public struct RawBodies: Sendable {
        public var request: Data?
        public var answer: Data?

        public init(request: Data?, answer: Data?) {
            self.request = request
            self.answer = answer
        }
    }

    /// This page as JSON, with `raw[i]` (when there is one) as event `i`'s bodies.
    public func json(raw: [RawBodies?] = []) throws -> Data {
        var out: [UInt8] = []
        out.reserveCapacity(96 + events.count * 320)
        out.append(contentsOf: #"{"events":["#.utf8)
        for (index, event) in events.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            try event.writeJSON(into: &out, raw: index < raw.count ? raw[index] : nil)
        }
        out.append(contentsOf: #"],"missed":"#.utf8)
        out.append(contentsOf: String(missed).utf8)
        out.append(contentsOf: #","next":"#.utf8)
        out.append(contentsOf: String(next).utf8)
        out.append(contentsOf: #","node":"#.utf8)
        JSONObjectWriter.writeString(node, into: &out)
        out.append(UInt8(ascii: "}"))
        return Data(out)
    }
}

extension WireServerEvent {
    /// Writes this event, keys in sorted order as `JSONEncoder` sorts them.
    func writeJSON(into out: inout [UInt8], raw: WireServerEvents.RawBodies?) throws {
        // The buffer moves into the writer and back, never copied.
        var writer = JSONObjectWriter(out: out)
        out = []
        writer.string("action", action)
        try writer.raw("answer", raw?.answer, else: answer)
        writer.string("change", change)
        writer.string("client", client)
        writer.string("clientName", clientName)
        writer.string("detail", detail)
        writer.string("device", device)
        writer.string("deviceID", deviceID)
        writer.string("errorCode", errorCode)
        writer.string("fault", fault)
        writer.bool("inspector", inspector)
        writer.string("kind", kind)
        try writer.double("latencyMs", latencyMs)
        writer.string("method", method)
        writer.string("node", node)
        writer.strings("notificationIDs", notificationIDs)
        writer.string("operation", operation)
        writer.string("path", path)
        writer.integer("position", position)
        writer.string("recordName", recordName)
        try writer.raw("request", raw?.request, else: request)
        try writer.double("retryAfter", retryAfter)
        writer.integer("seq", Int64(clamping: seq), unsigned: seq)
        writer.integer("status", status.map(Int64.init))
        writer.integer("time", time)
        writer.string("tokenIn", tokenIn)
        writer.string("tokenOut", tokenOut)
        writer.string("user", user)
        writer.string("zone", zone)
        out = writer.finish()
    }
}
