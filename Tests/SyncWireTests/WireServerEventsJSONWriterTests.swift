import Foundation
import SyncCore
import SyncWire
import Testing

/// The event feed's hand-written page (``WireServerEvents/json(raw:)``) is the
/// JSON `WireJSON.encode` writes, byte for byte, and splices raw bodies in as
/// the bodies' own values.
@Suite struct WireServerEventsJSONWriterTests {
    /// An event with every field set, strings that need escaping, and doubles of every form.
    static func everyField(latency: Double, retryAfter: Double, text: String) -> WireServerEvent {
        var event = WireServerEvent(seq: 18_446_744_073_709_551_615, node: "n/1 \"α\"", position: -42, time: 1_790_000_000_123, kind: "request")
        event.method = "POST"
        event.operation = "records/modify"
        event.path = "/database/1/iCloud.x/development/private/records/modify"
        event.user = text
        event.client = "k\\1"
        event.clientName = "alice · CloudKit JS · Firefox"
        event.device = "\u{01}\u{1F}\u{7F}"
        event.inspector = false
        event.tokenIn = "in\ttab"
        event.tokenOut = "out\nline\r\u{08}\u{0C}"
        event.status = 409
        event.errorCode = "CONFLICT"
        event.retryAfter = retryAfter
        event.latencyMs = latency
        event.fault = "fault: THROTTLED, retry in 3 s"
        event.request = .object(["a": .array([.integer(1), .double(2.5), .null, .bool(true)]), "b": .string("x/y")])
        event.answer = .object(["records": .array([])])
        event.action = "delivered"
        event.deviceID = "D1"
        event.notificationIDs = ["a", "b\"c"]
        event.detail = "after 3 ms"
        event.change = "saved"
        event.zone = "Zone 😀"
        event.recordName = "r-1"
        return event
    }

    @Test func everyFieldIsWrittenAsWireJSONWritesIt() throws {
        let samples = [
            Self.everyField(latency: 1.0, retryAfter: 3, text: "alice"),
            Self.everyField(latency: 0.123456789, retryAfter: 1e-7, text: "quote \" backslash \\ slash / é"),
            Self.everyField(latency: 1e21, retryAfter: 123_456.75, text: ""),
        ]
        // A field added to the type and forgotten here, or in the writer, shows as nil.
        for child in Mirror(reflecting: samples[0]).children {
            let described = String(describing: child.value)
            #expect(described != "nil", "the sample leaves \(child.label ?? "?") unset")
        }
        let page = WireServerEvents(node: "node-1", events: samples, next: 7, missed: 2)
        let written = try page.json()
        #expect(String(decoding: written, as: UTF8.self) == String(decoding: try WireJSON.encode(page), as: UTF8.self))
        #expect(try WireJSON.decode(WireServerEvents.self, from: written) == page)
        let empty = WireServerEvents(node: "n", events: [WireServerEvent(seq: 1, time: 2, kind: "push")], next: 1, missed: 0)
        #expect(try empty.json() == (try WireJSON.encode(empty)))
    }

    @Test func rawBodiesGoInAsTheirOwnValues() throws {
        var event = WireServerEvent(seq: 1, time: 2, kind: "request")
        event.status = 200
        let second = WireServerEvent(seq: 2, time: 3, kind: "change")
        let page = WireServerEvents(node: "n", events: [event, second], next: 2, missed: 0)
        let request = Data(#" {"operations": [ {"operationType":"create"} ], "zoneID":{"zoneName":"Z"}}"#.utf8)
        let answer = Data(#"{"records":[{"recordName":"r"}]}"#.utf8)
        let written = try page.json(raw: [.init(request: request, answer: answer), nil])
        let read = try WireJSON.decode(WireServerEvents.self, from: written)
        #expect(read.events[0].request == (try WireJSON.decode(JSONValue.self, from: request)))
        #expect(read.events[0].answer == (try WireJSON.decode(JSONValue.self, from: answer)))
        #expect(read.events[1] == second)
    }
}
