import SyncDoctor
import SyncWire
import Testing

/// The doctor as a pure analyzer: feed events in, diagnoses out, no server.
@Suite struct SyncDoctorTests {
    static let database = "/database/1/C/development/private"

    /// A request event of one client, with its bodies.
    static func request(
        _ seq: UInt64, _ operation: String, time: Int64, client: String = "web:alice:app", request: JSONValue? = nil, answer: JSONValue? = nil,
        status: Int = 200, errorCode: String? = nil, retryAfter: Double? = nil, inspector: Bool? = nil, user: String = "alice", latencyMs: Double = 1
    ) -> WireServerEvent {
        var event = WireServerEvent(seq: seq, node: "n", position: 0, time: time, kind: "request")
        event.method = "POST"
        event.operation = operation
        event.path = operation == "webcourier" ? "/device/1/C/development/webcourier/T" : "\(database)/\(operation)"
        event.user = user
        event.client = client
        event.clientName = "alice · app"
        event.status = status
        event.errorCode = errorCode
        event.retryAfter = retryAfter
        event.inspector = inspector
        event.latencyMs = latencyMs
        event.request = request
        event.answer = answer
        return event
    }

    /// `changes/zone` of zone Z from a token (or none), answered with a token.
    static func fetch(_ seq: UInt64, time: Int64, from token: String?, gives: String, moreComing: Bool = false, inspector: Bool? = nil) -> WireServerEvent {
        var asked: [String: JSONValue] = ["zoneID": .object(["zoneName": .string("Z")])]
        if let token { asked["syncToken"] = .string(token) }
        let answered: JSONValue = .object(["zones": .array([.object([
            "zoneID": .object(["zoneName": .string("Z")]), "syncToken": .string(gives), "moreComing": .bool(moreComing), "records": .array([]),
        ])])])
        return request(seq, "changes/zone", time: time, request: .object(["zones": .array([.object(asked)])]), answer: answered, inspector: inspector)
    }

    @Test func anInspectorsReadsAndTheServerAdminsCallsAreNoClientsTraffic() {
        let doctor = SyncDoctor()
        let inspector = (1...4).map { Self.fetch(UInt64($0), time: Int64($0), from: nil, gives: "t\($0)", inspector: true) }
        #expect(doctor.diagnose(inspector, now: 10).isEmpty)
        var admin = (1...4).map { Self.fetch(UInt64($0), time: Int64($0), from: nil, gives: "t\($0)") }
        for index in admin.indices { admin[index].user = "(server admin)" }
        #expect(doctor.diagnose(admin, now: 10).isEmpty)
        // The same four fetches from a client are a mistake.
        let client = (1...4).map { Self.fetch(UInt64($0), time: Int64($0), from: nil, gives: "t\($0)") }
        let found = doctor.diagnose(client, now: 10)
        #expect(found.map(\.code) == [.tokenNotCached])
        #expect(found.first?.evidence.map(\.seq) == [2, 3, 4] && found.first?.client == "alice · app" && found.first?.lesson == "01-first-fetch")
    }

    @Test func aPushIsIgnoredOnlyOnceItsWindowHasPassedWithoutAFetch() {
        var push = WireServerEvent(seq: 2, node: "n", time: 1_000, kind: "push")
        push.action = "delivered"
        push.client = "web:alice:app"
        push.clientName = "alice · app"
        let poll = Self.request(1, "webcourier", time: 900, latencyMs: 5_000)
        let doctor = SyncDoctor(pushWindow: 10_000)
        #expect(doctor.diagnose([poll, push], now: 5_000).isEmpty)
        #expect(doctor.diagnose([poll, push], now: 12_000).map(\.code) == [.pushIgnored])
        // A fetch within the window answers it; a fetch after it comes too late.
        #expect(doctor.diagnose([poll, push, Self.fetch(3, time: 3_000, from: nil, gives: "t")], now: 60_000).isEmpty)
        #expect(doctor.diagnose([poll, push, Self.fetch(3, time: 30_000, from: nil, gives: "t")], now: 60_000).map(\.code) == [.pushIgnored])
    }

    @Test func anItemsRetryAfterCountsAsMuchAsTheWholeRequests() {
        let save: JSONValue = .object(["zoneID": .object(["zoneName": .string("Z")]), "operations": .array([])])
        let busy: JSONValue = .object(["records": .array([.object(["recordName": .string("r"), "serverErrorCode": .string("ZONE_BUSY"), "retryAfter": .integer(2)])])])
        let first = Self.request(1, "records/modify", time: 1_000, request: save, answer: busy)
        let early = Self.request(2, "records/modify", time: 1_500, request: save, answer: .object(["records": .array([])]))
        let late = Self.request(2, "records/modify", time: 3_500, request: save, answer: .object(["records": .array([])]))
        #expect(SyncDoctor().diagnose([first, early], now: 5_000).map(\.code) == [.retriedTooEarly])
        #expect(SyncDoctor().diagnose([first, late], now: 5_000).isEmpty)
    }

    @Test func errorsComeBeforeWarningsAndEachMistakeIsNamedOncePerPlace() {
        // tokenNotCached (a warning) first in time, then a moreComing ignored (an error) on another client.
        var events = (1...5).map { Self.fetch(UInt64($0), time: Int64($0), from: nil, gives: "t") }
        var batch = Self.fetch(6, time: 6, from: nil, gives: "m", moreComing: true)
        batch.client = "web:bob:app"
        batch.clientName = "bob · app"
        var restart = Self.fetch(7, time: 7, from: nil, gives: "m2")
        restart.client = "web:bob:app"
        restart.clientName = "bob · app"
        events += [batch, restart]
        let found = SyncDoctor().diagnose(events, now: 8)
        #expect(found.map(\.code) == [.moreComingIgnored, .tokenNotCached])
        #expect(found.map(\.severity) == [.error, .warning])
        #expect(found.first?.line.hasPrefix("error moreComingIgnored [bob · app]") == true, "\(found.first?.line ?? "")")
        // Named once, with every fetch as evidence: the first gave the token, the four after it are the mistake.
        #expect(found.last?.evidence.map(\.seq) == [2, 3, 4, 5] && found.last?.summary.contains("5 times") == true)
    }
}

/// A client's token history, from its own traffic.
@Suite struct TokenHistoryTests {
    @Test func eachFetchSaysWhatItPresentedAndGotAndWhetherTheTokenCameBack() {
        let events = [
            SyncDoctorTests.fetch(1, time: 1, from: nil, gives: "a", moreComing: true),
            SyncDoctorTests.fetch(2, time: 2, from: "a", gives: "b"),
            SyncDoctorTests.fetch(3, time: 3, from: nil, gives: "c"),
            SyncDoctorTests.fetch(4, time: 4, from: "b", gives: "d", inspector: true),
        ]
        let history = TokenHistoryEntry.history(of: "web:alice:app", in: events)
        #expect(history.map(\.seq) == [1, 2, 3], "an inspector's read is not the client's")
        #expect(history.map(\.presented) == [nil, "a", nil] && history.map(\.issued) == ["a", "b", "c"])
        #expect(history.map(\.moreComing) == [true, false, false])
        // a came back (fetch 2); b never did (only an inspector used it); c is the latest.
        #expect(history.map(\.cameBack) == [true, false, false])
        #expect(history.allSatisfy { $0.isZoneToken && $0.target == "zone private/Z" })
        #expect(TokenHistoryEntry.history(of: "web:bob:app", in: events).isEmpty)
    }
}
