import Foundation
@testable import SyncServerHost
@testable import SyncServerHTTP
import SyncCore
import SyncWire
import SyncServer
import SyncTestSupport
import Testing

/// The route table: each route found by its own path and by no other, its
/// handler, methods, body, read-or-write and journaling as declared, and the
/// OpenAPI document made from it.
@Suite struct WebServicesRouteTests {
    static let container = "iCloud.com.example.Routes"

    /// A route's path with its arguments filled in.
    static func path(_ route: WebServicesRoute) -> String {
        route.pathTemplate
            .replacingOccurrences(of: "{container}", with: container)
            .replacingOccurrences(of: "{environment}", with: "development")
            .replacingOccurrences(of: "{database}", with: "private")
            .replacingOccurrences(of: "{token}", with: "0123abcd")
            .replacingOccurrences(of: "{checksum}", with: "abc")
    }

    @Test func everyRouteIsFoundByItsOwnPathAndNoOther() throws {
        var templates = Set<String>()
        for route in WebServicesRoute.table {
            let key = "\(route.family.rawValue) \(route.pathTemplate)"
            #expect(templates.insert(key).inserted, "\(key) is declared twice")
            guard case .route(let found) = WebServicesRoute.resolve(TextChecks.pathSegments(Self.path(route))) else {
                Issue.record("\(route.pathTemplate) does not resolve")
                continue
            }
            #expect(found.pathTemplate == route.pathTemplate && found.family == route.family, "\(route.pathTemplate) resolved to \(found.pathTemplate)")
        }
        #expect(WebServicesRoute.table.count >= 38)
        // Shapes no route has, and operations a family does not have.
        for path in ["/", "/database/1/C/development/private/records", "/database/2/C/development/private/records/modify", "/nowhere"] {
            guard case .unknownPath = WebServicesRoute.resolve(TextChecks.pathSegments(path)) else {
                Issue.record("\(path) resolved")
                continue
            }
        }
        guard case .unknownOperation(.database, let operation) = WebServicesRoute.resolve(TextChecks.pathSegments("/database/1/C/development/private/records/burn")) else {
            Issue.record("records/burn is not an unknown database operation")
            return
        }
        #expect(operation == "records/burn")
    }

    @Test func everyRouteHasAHandlerAndEveryBodyItsKeys() {
        for route in WebServicesRoute.table {
            switch route.handling {
            case .dispatcher: break
            case .longPoll: #expect(route.family == .webcourier, "\(route.pathTemplate)")
            case .document: #expect(route.family == .document, "\(route.pathTemplate)")
            case .eventFeed: #expect(route.family == .admin && route.access == .read, "\(route.pathTemplate)")
            }
            #expect(!route.summary.isEmpty, "\(route.pathTemplate) has no summary")
            #expect(!route.methods.isEmpty, "\(route.pathTemplate) takes no method")
            if let body = route.body {
                #expect(body.isRaw || !body.keys.isEmpty, "\(route.pathTemplate): a JSON body with no keys")
                #expect(route.methods.contains(.post), "\(route.pathTemplate) has a body but takes no POST")
            }
            // A read is never journaled; a write is, except fault rules (settings, not data).
            if route.access == .read { #expect(!route.journaled, "\(route.pathTemplate)") }
            if route.access == .write { #expect(route.journaled == (route.operation != "faults"), "\(route.pathTemplate)") }
        }
    }

    @Test func aSharedJournalAppendsExactlyTheWrites() {
        for route in WebServicesRoute.table {
            let method = route.methods.contains(.post) ? "POST" : "GET"
            #expect(SharedJournalStore.isRead(APICall(method: method, path: Self.path(route))) == (route.access == .read), "\(route.pathTemplate)")
        }
        #expect(!SharedJournalStore.isRead(APICall(method: "POST", path: "/database/1/C/development/private/records/modify")))
        #expect(SharedJournalStore.isRead(APICall(method: "POST", path: "/database/1/C/development/private/users/lookup/email")))
        #expect(SharedJournalStore.isRead(APICall(method: "GET", path: "/assets/1/C/development/download/abc")))
        #expect(!SharedJournalStore.isRead(APICall(method: "POST", path: "/assets/1/C/development/upload")))
    }

    @Test func everyOperationAFaultRuleCanNameIsAFaultableRoute() {
        let faultable = Set(WebServicesRoute.table.filter(\.faultable).map(\.operation))
        for operation in FaultMatch.knownOperations where operation != "push" {
            #expect(faultable.contains(operation), "a fault rule can name \(operation), which no faultable route has")
        }
        // Only database calls are faulted, by their operation's name.
        let call = APICall(method: "POST", path: "/database/1/C/development/shared/records/modify", body: Data(#"{"zoneID":{"zoneName":"Z"}}"#.utf8), user: "alice")
        let fault = ServerHost.faultCall(call)
        #expect(fault?.operation == "records/modify" && fault?.database == .shared && fault?.zoneNames == ["Z"])
        #expect(ServerHost.faultCall(APICall(method: "POST", path: "/admin/1/C/development/reset", user: "alice")) == nil)
        #expect(ServerHost.faultCall(APICall(method: "POST", path: "/database/1/C/development/private/records/modify")) == nil)
    }

    /// A route's body is decoded ahead (outside the lock) as the type the table
    /// declares, unless its own preparation decodes it.
    @Test func aBodyIsDecodedAheadAsTheDeclaredType() {
        for route in WebServicesRoute.table where route.family != .serverCall {
            guard case .dispatcher(_, let prepare) = route.handling, route.methods.contains(.post) else { continue }
            let call = APICall(method: "POST", path: Self.path(route), body: Data("{}".utf8), user: "alice", isServerAdmin: true)
            let prepared = APIDispatcher.prepare(call)
            // A prepared route refuses a body it cannot read (`{}` lacks what records/modify needs) before the lock.
            if case .refused(let answer) = prepared.route {
                #expect(prepare != nil && answer.status == 400, "\(route.pathTemplate) refused \(answer.status)")
            } else {
                #expect(prepared.served?.pathTemplate == route.pathTemplate, "\(route.pathTemplate)")
            }
            if prepare != nil || route.body == nil || route.body?.decodeAhead == nil {
                #expect(prepared.decodedBody == nil, "\(route.pathTemplate) decoded a body ahead it does not declare")
            } else {
                #expect(prepared.decodedBody != nil, "\(route.pathTemplate) decoded no body ahead")
            }
        }
    }

    @Test func aMethodTheRouteDoesNotTakeIsRefusedBeforeTheLockWithTheOnesItTakes() {
        let post = APIDispatcher.prepare(APICall(method: "GET", path: "/database/1/C/development/private/records/modify", user: "alice"))
        guard case .refused(let answer) = post.route else {
            Issue.record("a GET of records/modify was not refused")
            return
        }
        #expect(answer.status == 405 && answer.wireError?.reason.contains("takes POST, not GET") == true)
        let either = APIDispatcher.prepare(APICall(method: "GET", path: "/database/1/C/development/private/zones/list", user: "alice"))
        guard case .listZones = either.route else {
            Issue.record("a GET of zones/list was refused")
            return
        }
    }

    @Test func anUnknownOperationIsA404NamingTheKnownOnes() {
        let core = ServerHost.makeCore(seed: 1, settings: ServerHost.Settings(retention: nil, coalescingWindow: 0), clock: CallClock())
        let dispatcher = APIDispatcher(core: core, now: 1, baseURL: "http://127.0.0.1:1")
        let database = dispatcher.answer(APICall(method: "POST", path: "/database/1/C/development/private/records/burn", user: "alice"))
        #expect(database.status == 404)
        for operation in WebServicesRoute.operations(of: .database) + WebServicesRoute.operations(of: .users) {
            #expect(database.wireError?.reason.contains(operation) == true, "\(operation) is not named")
        }
        let admin = dispatcher.answer(APICall(method: "POST", path: "/admin/1/C/development/burn", user: "alice"))
        #expect(admin.status == 404 && admin.wireError?.reason.contains("faults") == true)
        // The path's arguments are still checked first.
        let environment = dispatcher.answer(APICall(method: "POST", path: "/database/1/C/staging/private/records/burn", user: "alice"))
        #expect(environment.status == 400)
        // A server call's path does not exist for anyone else.
        let internalCall = dispatcher.answer(APICall(method: "POST", path: "/internal/addUser", body: Data(#"{"name":"eve"}"#.utf8)))
        #expect(internalCall.status == 404)
        #expect(!core.engine.users.contains { $0.name == "eve" })
    }

    @Test func aRouteTheJournalDoesNotKeepNeverReportsAChange() throws {
        let core = ServerHost.makeCore(seed: 1, settings: ServerHost.Settings(retention: nil, coalescingWindow: 0), clock: CallClock())
        let dispatcher = APIDispatcher(core: core, now: 1, baseURL: "http://127.0.0.1:1")
        let add = APICall(
            method: "POST", path: "/admin/1/C/development/faults",
            body: Data(#"{"operation":"add","rules":[{"kind":"throttled","retryAfter":1}]}"#.utf8), isServerAdmin: true)
        let outcome = dispatcher.step(APIDispatcher.prepare(add))
        #expect(outcome.answer().status == 200)
        #expect(!outcome.changedState)
        #expect(core.faults?.rules.count == 1)
    }

    // MARK: The OpenAPI document

    @Test func theDocumentIsOpenAPI31WithEveryServedRoute() throws {
        let object = try #require(try JSONSerialization.jsonObject(with: OpenAPIDocument.json) as? [String: Any])
        let version = try #require(object["openapi"] as? String)
        #expect(version.hasPrefix("3.1."))
        let paths = try #require(object["paths"] as? [String: [String: Any]])
        for route in WebServicesRoute.table {
            guard route.isServed else {
                #expect(paths[route.pathTemplate] == nil, "\(route.pathTemplate) is the server's own and must not be served")
                continue
            }
            let item = try #require(paths[route.pathTemplate], "\(route.pathTemplate) is not in the document")
            for (method, flag) in [("get", WebServicesRoute.Methods.get), ("post", .post)] {
                let operation = item[method] as? [String: Any]
                #expect((operation != nil) == route.methods.contains(flag), "\(method) \(route.pathTemplate)")
                guard let operation else { continue }
                let parameters = (operation["parameters"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
                #expect(parameters == OpenAPIDocument.pathArguments(route) + route.query.map(\.name), "\(route.pathTemplate)")
                let responses = try #require(operation["responses"] as? [String: Any])
                for status in [200] + route.allErrorStatuses { #expect(responses[String(status)] != nil, "\(route.pathTemplate) \(status)") }
                if method == "post", let body = route.body, !body.isRaw {
                    let content = (operation["requestBody"] as? [String: Any])?["content"] as? [String: Any]
                    let schema = (content?["application/json"] as? [String: Any])?["schema"] as? [String: Any]
                    let keys = (schema?["properties"] as? [String: Any]).map { Set($0.keys) }
                    #expect(keys == Set(body.keys), "\(route.pathTemplate)")
                }
            }
        }
        let error = ((object["components"] as? [String: Any])?["schemas"] as? [String: Any])?["Error"] as? [String: Any]
        #expect(error?["required"] as? [String] == ["serverErrorCode", "reason"])
    }

    @Test func theDocumentIsServedWithoutCredentials() async throws {
        let server = try await LiveServer(ServeOptions(dataDirectory: nil, seed: 5))
        defer { server.stop() }
        let served = try await server.raw.exchange(RawHTTP.request("GET", "/openapi.json", headers: [], body: Data()))
        #expect(served.status == 200)
        #expect(served.body == OpenAPIDocument.json)
        #expect(served.headers["content-type"]?.hasPrefix("application/json") == true, "\(served.headers)")
        // A wrong token does not matter: the document is public.
        let withBadToken = try await server.raw.exchange(RawHTTP.request("GET", "/openapi.json", headers: [("Authorization", "Bearer nope")], body: Data()))
        #expect(withBadToken.status == 200)
        let posted = try await server.raw.exchange(RawHTTP.request("POST", "/openapi.json", headers: [("Content-Type", "application/json")], body: Data("{}".utf8)))
        #expect(posted.status == 405 && posted.headers["allow"] == "GET" && posted.reason.contains("takes GET"), "\(posted.text)")
    }
}
