import Foundation
import Logging
@testable import SyncServerHost
@testable import SyncServerHTTP
import SyncCore
import Testing

/// Each of the request's cross-cutting concerns alone, without a server:
/// authentication, the content type, the device's owner, the fault layer's
/// response, the log line and the connection count. (The path's spelling:
/// `RequestFrontTests`.)
@Suite struct RequestMiddlewareTests {
    static let authentication = Authentication(
        isAdminToken: { $0 == "admin-secret" }, user: { ["alice-token": "alice", "bob-token": "bob"][$0] })

    @Test func authenticationNamesTheCallerOfATokenAndRefusesAnyOther() throws {
        let auth = Self.authentication
        #expect(try auth.identify(queryToken: nil, authorization: nil) == .anonymous)
        #expect(try auth.identify(queryToken: "alice-token", authorization: nil) == .user("alice"))
        #expect(try auth.identify(queryToken: nil, authorization: "Bearer bob-token") == .user("bob"))
        #expect(try auth.identify(queryToken: nil, authorization: "bearer  admin-secret ") == .serverAdmin)
        // The query's token wins over the header's.
        #expect(try auth.identify(queryToken: "alice-token", authorization: "Bearer bob-token") == .user("alice"))
        let unknown = try #require(throws: CloudError.self) { try auth.identify(queryToken: "guess", authorization: nil) }
        #expect(unknown.code == .authenticationFailed && unknown.code.httpStatus == 401)
        let basic = try #require(throws: CloudError.self) { try auth.identify(queryToken: nil, authorization: "Basic YWxpY2U=") }
        #expect(basic.reason.contains("Bearer TOKEN"))
    }

    static func headers(_ contentType: String?, length: Int) -> RequestHeaders {
        RequestHeaders(contentType: contentType, contentLength: String(length))
    }

    static func refusal(_ work: () throws -> Void) -> Int? {
        do {
            try work()
            return nil
        } catch let refusal as Refusal {
            return refusal.status
        } catch {
            return -1
        }
    }

    @Test func anyBodyIsJSONWithCredentialsAndOnlyApplicationJSONWithout() {
        #expect(Self.refusal { try ContentTypeCheck.check(Self.headers("application/json", length: 2), caller: .anonymous) } == nil)
        #expect(Self.refusal { try ContentTypeCheck.check(Self.headers("Application/JSON; charset=UTF-8", length: 2), caller: .anonymous) } == nil)
        for type in ["text/plain", "application/x-www-form-urlencoded", "text/html", nil] as [String?] {
            #expect(Self.refusal { try ContentTypeCheck.check(Self.headers(type, length: 2), caller: .user("alice")) } == nil, "\(type ?? "none")")
            #expect(Self.refusal { try ContentTypeCheck.check(Self.headers(type, length: 2), caller: .serverAdmin) } == nil, "\(type ?? "none")")
            #expect(Self.refusal { try ContentTypeCheck.check(Self.headers(type, length: 2), caller: .anonymous) } == 415, "\(type ?? "none")")
        }
        // No body: nothing to say.
        #expect(Self.refusal { try ContentTypeCheck.check(Self.headers(nil, length: 0), caller: .anonymous) } == nil)
        #expect(Self.refusal { try ContentTypeCheck.check(RequestHeaders(contentType: "text/html", transferEncoding: "chunked"), caller: .anonymous) } == 415)
    }

    @Test func aDeviceMustBeWellFormedAndTheCallersOwn() throws {
        let devices = DeviceOwnership(owner: { ["alice-phone": "alice"][$0] })
        try devices.check(nil, caller: .anonymous)
        try devices.check("alice-phone", caller: .user("alice"))
        // A device the server has no push channel for is anyone's name for their device.
        try devices.check("laptop", caller: .user("bob"))
        let other = try #require(throws: CloudError.self) { try devices.check("alice-phone", caller: .user("bob")) }
        #expect(other.code == .permissionFailure)
        let anonymous = try #require(throws: CloudError.self) { try devices.check("alice-phone", caller: .anonymous) }
        #expect(anonymous.code == .permissionFailure)
        let malformed = try #require(throws: CloudError.self) { try devices.check("phone\u{1}", caller: .user("alice")) }
        #expect(malformed.code == .invalidArguments)
        #expect(throws: CloudError.self) { try devices.check(String(repeating: "x", count: 256), caller: .user("alice")) }
    }

    @Test func theFaultLayerDropsTheConnectionOfAnAmbiguousCommitOnly() async {
        let layer = FaultLayer(perform: { call in
            ServerHost.FaultedAnswer(answer: APIAnswer(body: Data("{}".utf8)), note: "fault: test", dropConnection: call.path == "/drop")
        })
        let dropped = await layer.perform(APICall(method: "POST", path: "/drop"))
        #expect(FaultLayer.response(for: dropped) != nil)
        let kept = await layer.perform(APICall(method: "POST", path: "/keep"))
        #expect(FaultLayer.response(for: kept) == nil)
        #expect(FaultLayer.response(for: nil) == nil)
    }

    @Test func theLogLineSaysWhatHappenedAndNeverAToken() {
        let entry = RequestLog.Entry(
            method: "POST", path: "/database/1/C/development/private/records/modify", caller: .user("alice"), device: "phone",
            tokenIn: nil, tokenOut: nil, status: 429, errorCode: "THROTTLED", elapsed: .milliseconds(3), note: "fault: THROTTLED")
        let line = RequestLog.line(entry)
        #expect(line == "POST /database/1/C/development/private/records/modify user=alice device=phone → 429 THROTTLED 3.00 ms [fault: THROTTLED]")
        var admin = entry
        admin.caller = .serverAdmin
        admin.status = 200
        admin.errorCode = nil
        admin.note = nil
        admin.device = nil
        #expect(RequestLog.line(admin).hasSuffix("user=(server admin) device=- → 200 3.00 ms"))
        #expect(!RequestLog(logger: Logger(label: "test"), quiet: true).logs(inspector: false))
        // An inspector's reads get a line only when asked for (`serve --log-inspector-reads`).
        let log = RequestLog(logger: Logger(label: "test"), quiet: false)
        #expect(log.logs(inspector: false) && !log.logs(inspector: true))
        #expect(RequestLog(logger: Logger(label: "test"), quiet: false, logInspectorReads: true).logs(inspector: true))
    }

    @Test func theConnectionLimitsCountOpenConnectionsAgainstTheCap() {
        var options = ServeOptions(dataDirectory: nil, seed: 1)
        options.maxConnections = 2
        options.headerTimeout = 1.5
        options.bodyTimeout = 3
        let limits = ConnectionLimits(options: options)
        #expect(limits.opened() == 1)
        #expect(limits.opened() == 2)
        // The third is over the cap: the guard answers it 503 and closes it, which counts it closed.
        #expect(limits.opened() > limits.maxConnections)
        limits.closed()
        #expect(limits.openConnections == 2)
        #expect(limits.headerTimeout == .milliseconds(1_500) && limits.bodyTimeout == .seconds(3))
        #expect(RawConnectionGuard.seconds(1.5) == "1.5 seconds" && RawConnectionGuard.seconds(1) == "1 second")
    }
}
