import Foundation
@testable import SyncServerHost
@testable import SyncServerSQLite
@testable import SyncServerHTTP
import SyncCore
import SyncWire
import SyncServer
import Testing

/// Every route answers the same prepared (body decoded before the step,
/// answer encoded after it) as it does in one piece under the lock: the
/// same status, the same bytes, the same change flag and tokens, call after
/// call on two servers built alike; and the replay (`answering == false`)
/// encodes nothing yet leaves the same state.
@Suite struct PreparedRoutesTests {
    static let container = "iCloud.com.example.Prepared"
    static let base = "/database/1/\(container)/development"

    static func db(_ operation: String, _ json: String, user: String? = "alice", scope: String = "private", method: String = "POST") -> APICall {
        APICall(method: method, path: "\(base)/\(scope)/\(operation)", body: Data(json.utf8), user: user, deviceID: nil)
    }

    static func admin(_ operation: String, _ json: String, user: String? = nil, serverAdmin: Bool = false) -> APICall {
        APICall(method: "POST", path: "/admin/1/\(container)/development/\(operation)", body: Data(json.utf8), user: user, isServerAdmin: serverAdmin)
    }

    /// A server as `serve` makes one, with the two users signed up.
    final class Server {
        let clock = CallClock()
        let core: ServerCore
        var time: Milliseconds = 1_000

        init() {
            core = ServerHost.makeCore(seed: 11, settings: ServerHost.Settings(retention: nil, coalescingWindow: 0), clock: clock)
            for name in ["alice", "bob"] { _ = whole(.server("addUser", DispatcherInternal.AddUser(name: name))) }
        }

        func dispatcher(answering: Bool = true) -> APIDispatcher {
            time += 7
            clock.set(time)
            var dispatcher = APIDispatcher(core: core, now: time, baseURL: "http://127.0.0.1:1")
            dispatcher.answering = answering
            return dispatcher
        }

        /// In one piece, as before: decoded, applied and encoded together.
        func whole(_ call: APICall) -> APIAnswer { dispatcher().answer(call) }

        /// In three steps; returns whether the encoding was left for after the
        /// step, and the body types the step had to decode under the lock.
        func prepared(_ call: APICall) -> (APIAnswer, deferred: Bool, decodedUnderLock: [String]) {
            let prepared = APIDispatcher.prepare(call)
            let outcome = dispatcher().step(prepared)
            return (outcome.answer(), deferred: outcome.encodesAfterStep && prepared.decodedBody != nil, outcome.bodiesDecodedUnderLock)
        }

        /// As the journal's replay applies a row: no answer worded.
        func replayed(_ call: APICall) -> APIAnswer {
            dispatcher(answering: false).step(APIDispatcher.prepare(call)).answer()
        }

        func export() -> Data {
            dispatcher().answer(PreparedRoutesTests.admin("export", "{}", serverAdmin: true)).body
        }
    }

    /// Calls of every route family without a route of its own, good and malformed.
    static let script: [APICall] = [
        db("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}},{"operationType":"create","zone":{"zoneID":{"zoneName":"Other"}}}]}"#),
        db("zones/modify", #"{"operations":[{"operationType":"rename","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#),
        db("zones/modify", #"{"operations":[{"operationType":"create"}]}"#),
        db("zones/modify", "not json"),
        db("zones/modify", #"{"operations":[]}"#, user: nil),
        db("zones/modify", #"{"operations":[]}"#, method: "GET"),
        db("records/modify", #"{"zoneID":{"zoneName":"Notes"},"operations":[{"operationType":"create","record":{"recordName":"n1","recordType":"Note","fields":{"title":{"value":"one"},"n":{"value":1},"photo":{"type":"ASSET","value":{"fileChecksum":"abc"}}}}},{"operationType":"create","record":{"recordName":"n2","recordType":"Note","fields":{"title":{"value":"two"}}}}]}"#),
        db("zones/lookup", #"{"zones":[{"zoneName":"Notes"},{"zoneID":{"zoneName":"Missing"}}]}"#),
        db("zones/lookup", #"{"zones":7}"#),
        db("zones/share", #"{"zoneID":{"zoneName":"Notes"},"operationType":"share","participants":["bob"]}"#),
        db("zones/share", #"{"zoneID":{"zoneName":"Notes"},"operationType":"lend","participants":["bob"]}"#),
        db("zones/share", #"{"zoneID":{"zoneName":"Notes"},"operationType":"share","participants":["bob"]}"#, scope: "public"),
        db("records/changes", #"{"zoneID":{"zoneName":"Notes"},"numbersAsStrings":true}"#),
        db("records/changes", #"{"zoneID":{"zoneName":"Nowhere"}}"#),
        db("records/changes", #"{"zoneID":{"zoneName":"Notes"},"syncToken":"garbage"}"#),
        db("zones/changes", "{}"),
        db("zones/changes", "{}", user: "bob", scope: "shared"),
        db("zones/changes", #"{"syncToken":12}"#),
        db("subscriptions/modify", #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"all","subscriptionType":"database"}}]}"#),
        db("subscriptions/modify", #"{"operations":[{"operationType":"update","subscription":{"subscriptionID":"none","subscriptionType":"database"}},{"operationType":"delete","subscription":{"subscriptionID":"gone","subscriptionType":"database"}}]}"#),
        db("subscriptions/modify", #"{"operations":[{"operationType":"mend","subscription":{"subscriptionID":"all","subscriptionType":"database"}}]}"#),
        db("subscriptions/list", "", method: "GET"),
        db("subscriptions/lookup", #"{"subscriptions":[{"subscriptionID":"all"},{"subscriptionID":"nope"}]}"#),
        db("subscriptions/lookup", #"{"subscriptions":"all"}"#),
        db("assets/upload", #"{"zoneID":{"zoneName":"Notes"},"tokens":[{"recordName":"n1","recordType":"Note","fieldName":"photo"}]}"#),
        db("assets/upload", #"{"tokens":[]}"#),
        db("users/current", "", method: "GET"),
        db("users/caller", "{}"),
        db("users/discover", "", method: "GET"),
        db("users/discover", #"{"lookupInfos":[{"emailAddress":"BOB@syncscope.example"},{"userRecordName":"carol"}]}"#),
        db("users/lookup/email", #"{"users":[{"emailAddress":"alice@syncscope.example"}]}"#),
        db("users/lookup/id", #"{"users":[{"emailAddress":"alice@syncscope.example"}]}"#),
        db("users/lookup/contacts", "", method: "GET"),
        APICall(method: "POST", path: "\(base)/tokens/create", body: Data(#"{"apnsEnvironment":"development"}"#.utf8), user: "alice"),
        APICall(method: "POST", path: "/device/1/\(container)/development/tokens/register", body: Data(#"{"apnsToken":"0000"}"#.utf8), user: "alice"),
        APICall(method: "POST", path: "\(base)/tokens/create", body: Data(#"{"apnsEnvironment":"staging"}"#.utf8), user: "alice"),
        APICall(method: "POST", path: "/assets/1/\(container)/development/upload", body: Data("the bytes".utf8)),
        db("records/changes", #"{"zoneID":{"zoneName":"Notes"}}"#),
        admin("compact", #"{"zoneID":{"zoneName":"Other"},"keepLast":1}"#, user: "alice"),
        admin("purgeZone", #"{"zoneID":{"zoneName":"Other"}}"#, user: "alice"),
        admin("purgeZone", #"{"zoneID":3}"#, user: "alice"),
        admin("encryptedDataReset", "{}", user: "bob"),
        admin("reset", "{}", user: "alice"),
        .server("online", DispatcherInternal.DeviceOnline(deviceID: "nobody", online: true)),
        .server("acknowledge", DispatcherInternal.Acknowledge(deviceID: "nobody", notificationIDs: ["x"])),
        APICall(method: "POST", path: "/internal/import", body: Data("{".utf8), isServerCall: true),
        admin("import", #"{"format":"nope"}"#, serverAdmin: true),
        admin("export", "{}", serverAdmin: true),
        admin("reset", "{}", serverAdmin: true),
        db("zones/lookup", #"{"zones":[{"zoneName":"Notes"}]}"#),
    ]

    @Test func everyRouteAnswersTheSameBytesPreparedAsWhole() {
        let whole = Server()
        let prepared = Server()
        var deferred = 0
        for call in Self.script {
            let expected = whole.whole(call)
            let (answer, wasDeferred, decodedUnderLock) = prepared.prepared(call)
            if wasDeferred { deferred += 1 }
            let what = "\(call.method) \(call.path) \(String(decoding: call.body, as: UTF8.self))"
            // The route table declares the body of every route that reads one: none is decoded under the lock.
            #expect(decodedUnderLock.isEmpty, "\(what) decoded \(decodedUnderLock) under the lock: its route in WebServicesRoute.table does not declare its body")
            #expect(answer.status == expected.status, "\(what)")
            #expect(
                answer.body == expected.body,
                "\(what):\n\(String(decoding: answer.body, as: UTF8.self))\n≠\n\(String(decoding: expected.body, as: UTF8.self))")
            #expect(answer.changedState == expected.changedState, "\(what)")
            #expect(answer.tokenIn == expected.tokenIn && answer.tokenOut == expected.tokenOut, "\(what)")
        }
        #expect(prepared.export() == whole.export())
        // The decoding and the encoding really moved out of the step for most of the script.
        #expect(deferred >= 15, "only \(deferred) answers were decoded before and encoded after the step")
    }

    @Test func replayingTheScriptEncodesNothingAndBuildsTheSameState() {
        let live = Server()
        let replay = Server()
        for call in Self.script {
            let answer = live.whole(call)
            let replayed = replay.replayed(call)
            #expect(replayed.changedState == answer.changedState, "\(call.path)")
            if answer.status == 200 { #expect(replayed.body.isEmpty, "\(call.path) encoded an answer in the replay") }
        }
        #expect(replay.export() == live.export())
    }

    @Test func aBodyIsDecodedAheadAsTheTypeItsRouteReads() throws {
        let call = Self.db("zones/share", #"{"zoneID":{"zoneName":"Notes"},"operationType":"share","participants":["bob"]}"#)
        let prepared = APIDispatcher.prepare(call)
        let body = try #require(prepared.decodedBody)
        #expect(try body.value(WireZoneShareRequest.self)?.get().participants == ["bob"])
        #expect(body.value(WireZonesModifyRequest.self) == nil)
        // A malformed body keeps its error for the step to throw where the route decodes.
        let bad = APIDispatcher.prepare(Self.db("zones/modify", "{"))
        guard case .failure(let error)? = bad.decodedBody?.value(WireZonesModifyRequest.self) else {
            Issue.record("the decoding error was not kept")
            return
        }
        #expect(error.reason.contains("not JSON"))
        // Routes that read no body decode none.
        #expect(APIDispatcher.prepare(Self.db("users/current", "", method: "GET")).decodedBody == nil)
    }
}
