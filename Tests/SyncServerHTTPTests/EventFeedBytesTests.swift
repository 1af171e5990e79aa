import Foundation
import SyncCore
@testable import SyncServerHost
import Testing

/// The feed keeps a request's fields and bodies as bytes
/// (``ServerEventFeed/record(_:)``): each request reads back whole while the
/// ring holds it; past the body budget the oldest bodies go first, but an
/// error's answer and a registration's stay with the fields.
@Suite struct EventFeedBytesTests {
    static func request(
        _ path: String, status: Int = 200, operation: String? = "records/modify", requestBody: String = "", answerBody: String = "",
        changes: [CallChange] = []
    ) -> ServerEvent {
        ServerEvent(
            time: 1_000,
            kind: .request(RequestEvent(
                method: "POST", path: path, operation: operation, user: "alice", isServerAdmin: false, device: nil, userAgent: "python-requests/2.32.3",
                isInspector: false, tokenIn: nil, tokenOut: nil, status: status, latency: .milliseconds(2), fault: nil,
                requestBody: Data(requestBody.utf8), answerBody: Data(answerBody.utf8), bodyIsJSON: true, changes: changes)))
    }

    static func requests(_ feed: ServerEventFeed, bodies: Bool = true) -> [(sequence: UInt64, request: RequestEvent)] {
        feed.events(after: 0, limit: 1_000, bodies: bodies).events.compactMap { event in
            guard case .request(let request) = event.kind else { return nil }
            return (event.sequence, request)
        }
    }

    /// Paused (``ServerEventFeed/setRecording(_:)``), the feed records
    /// nothing, as one of size 0 — its routes still answer, with the events
    /// it held — and resumed, it goes on from the next sequence.
    @Test func aPausedFeedRecordsNothingAndKeepsWhatItHeld() throws {
        let feed = ServerEventFeed(capacity: 8)
        feed.record(Self.request("/before", requestBody: "b"))
        feed.setRecording(false)
        #expect(feed.isOn && !feed.isRecording)
        feed.record(Self.request("/while-paused"))
        feed.record(ServerEvent(time: 5, kind: .acknowledged(deviceID: "d", notificationIDs: ["n"])))
        #expect(feed.newest == 1)
        #expect(Self.requests(feed).map(\.request.path) == ["/before"])
        #expect(Self.requests(feed).first?.request.requestBody == Data("b".utf8))
        feed.setRecording(true)
        #expect(feed.isRecording)
        feed.record(Self.request("/after"))
        #expect(Self.requests(feed).map(\.sequence) == [1, 2])
        #expect(Self.requests(feed).map(\.request.path) == ["/before", "/after"])
        // A feed of size 0 never records, whatever it is told.
        let off = ServerEventFeed(capacity: 0)
        off.setRecording(true)
        #expect(!off.isOn && !off.isRecording)
    }

    @Test func aRequestReadsBackWithEveryField() throws {
        let feed = ServerEventFeed(capacity: 8)
        let changes = [
            CallChange(.zoneCreated, zone: "Zoné"), CallChange(.saved, zone: "Zoné", recordName: "r-1"),
            CallChange(.deleted, zone: "Z", recordName: String(repeating: "long", count: 40)), CallChange(.zoneDeleted, zone: "Old"),
        ]
        let sent = RequestEvent(
            method: "POST", path: "/database/1/iCloud.example/development/private/records/modify", operation: "records/modify", user: "bob",
            isServerAdmin: true, device: "iPad-7", userAgent: "Mozilla/5.0 (Macintosh) Safari/605.1.15 — «voilà»", isInspector: true,
            tokenIn: ServerChangeToken(rawValue: "in.AAAA"), tokenOut: ServerChangeToken(rawValue: "out.BBBB"), status: 200,
            latency: Duration(secondsComponent: 3, attosecondsComponent: 123_456_789_000_000_000), fault: "fault: THROTTLED, retry in 3 s",
            requestBody: Data(#"{"operations":[]}"#.utf8), answerBody: Data(#"{"records":[]}"#.utf8), bodyIsJSON: true, changes: changes)
        feed.record(ServerEvent(time: 42, kind: .request(sent)))
        let events = feed.events(after: 0, limit: 10).events
        #expect(events.count == 1 && events[0].sequence == 1 && events[0].time == 42)
        guard case .request(let read) = try #require(events.first).kind else {
            Issue.record("not a request: \(events)")
            return
        }
        #expect(read.method == sent.method && read.path == sent.path && read.operation == sent.operation && read.user == sent.user)
        #expect(read.isServerAdmin && read.isInspector && read.bodyIsJSON)
        #expect(read.device == "iPad-7" && read.userAgent == sent.userAgent && read.fault == sent.fault)
        #expect(read.tokenIn == sent.tokenIn && read.tokenOut == sent.tokenOut && read.status == 200 && read.latency == sent.latency)
        #expect(read.requestBody == sent.requestBody && read.answerBody == sent.answerBody)
        #expect(read.changes == changes)

        // Every optional absent reads back absent (not as an empty text).
        feed.record(Self.request("/p", operation: nil))
        let bare = try #require(Self.requests(feed).last).request
        #expect(bare.operation == nil && bare.device == nil && bare.tokenIn == nil && bare.tokenOut == nil && bare.fault == nil)
        #expect(!bare.isServerAdmin && !bare.isInspector && bare.changes.isEmpty && bare.requestBody.isEmpty && bare.answerBody.isEmpty)
    }

    @Test func pastTheBodyBudgetTheOldestBodiesGoFirstAndEveryEventKeepsItsFields() {
        // 300 body bytes an event, 1,000 kept: the newest three events keep theirs.
        let feed = ServerEventFeed(capacity: 10, bodyBudget: 1_000)
        for number in 1...8 {
            let body = String(repeating: Character(String(number)), count: 200)
            feed.record(Self.request("/path/\(number)", requestBody: body, answerBody: String(repeating: "a", count: 100)))
        }
        let read = Self.requests(feed)
        #expect(read.map(\.request.path) == (1...8).map { "/path/\($0)" })
        #expect(read.map { $0.request.requestBody.count } == [0, 0, 0, 0, 0, 200, 200, 200])
        #expect(read.map { $0.request.answerBody.count } == [0, 0, 0, 0, 0, 100, 100, 100])
        #expect(read[5].request.requestBody == Data(String(repeating: "6", count: 200).utf8))
        #expect(read[7].request.requestBody == Data(String(repeating: "8", count: 200).utf8))
        // A body larger than the whole budget is not kept; the event is.
        feed.record(Self.request("/huge", requestBody: String(repeating: "h", count: 2_000)))
        let last = Self.requests(feed).last
        #expect(last?.request.path == "/huge" && last?.request.requestBody.isEmpty == true)
        #expect(Self.requests(feed).last(where: { $0.request.path == "/path/8" })?.request.requestBody.count == 200)
    }

    @Test func anErrorsAnswerAndARegistrationsStayWhenTheBodiesGo() {
        let feed = ServerEventFeed(capacity: 10, bodyBudget: 500)
        let refusal = #"{"serverErrorCode":"ZONE_NOT_FOUND","reason":"Zone 'Z' does not exist."}"#
        let registration = #"{"webcourierURL":"http://127.0.0.1/device/1/webcourier/abc.def"}"#
        feed.record(Self.request("/refused", status: 404, requestBody: "{}", answerBody: refusal))
        feed.record(Self.request("/tokens/create", operation: "tokens/create", requestBody: "{}", answerBody: registration))
        for number in 1...5 { feed.record(Self.request("/\(number)", requestBody: String(repeating: "x", count: 300))) }
        for bodies in [true, false] {
            let read = Self.requests(feed, bodies: bodies)
            #expect(read[0].request.answerBody == Data(refusal.utf8) && read[0].request.requestBody.isEmpty)
            #expect(read[1].request.answerBody == Data(registration.utf8) && read[1].request.requestBody.isEmpty)
            // Read without bodies, the newest keeps none; with, it has its own.
            #expect(read[6].request.requestBody.count == (bodies ? 300 : 0))
        }
    }

    @Test func aRingThatWrapsKeepsTheFieldsOfEveryEventItHolds() {
        let feed = ServerEventFeed(capacity: 4)
        // Paths of very different lengths, so the fields' ring grows and wraps while events come and go.
        for number in 1...50 {
            feed.record(Self.request("/" + String(repeating: "p", count: (number * 37) % 1_500) + "/\(number)", changes: [CallChange(.saved, zone: "Z", recordName: "r\(number)")]))
            if number % 3 == 0 { feed.record(ServerEvent(time: 7, kind: .acknowledged(deviceID: "d\(number)", notificationIDs: ["n"]))) }
        }
        let page = feed.events(after: 0, limit: 100)
        #expect(page.events.map(\.sequence) == [63, 64, 65, 66] && page.missed == 62)
        let paths = page.events.compactMap { event -> String? in
            guard case .request(let request) = event.kind else { return nil }
            #expect(request.changes.first?.recordName == "r" + (request.path.split(separator: "/").last.map(String.init) ?? ""))
            return request.path
        }
        #expect(paths == [48, 49, 50].map { "/" + String(repeating: "p", count: ($0 * 37) % 1_500) + "/\($0)" })
    }

    @Test func aRingOfOneHoldsItsOneEventWhole() {
        let feed = ServerEventFeed(capacity: 1, bodyBudget: 64)
        for number in 1...20 { feed.record(Self.request("/\(number)", requestBody: String(repeating: "b", count: number), answerBody: "ok")) }
        let read = Self.requests(feed)
        #expect(read.map(\.sequence) == [20])
        #expect(read.first?.request.path == "/20" && read.first?.request.requestBody.count == 20 && read.first?.request.answerBody == Data("ok".utf8))
    }
}
