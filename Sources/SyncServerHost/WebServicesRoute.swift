import Foundation
import SyncCore
import SyncServer

/// One route of the served API: CloudKit Web Services' own paths, plus ours
/// (admin calls, asset files, the web courier's long-poll, the server's own
/// calls and the OpenAPI document). Each route is declared once, in
/// ``table``: its path, its methods, its body type, whether it reads or
/// writes, whether the journal keeps it, whether the fault plan reaches it,
/// and its handler. The dispatcher (``APIDispatcher/answer(_:)``), the
/// preparation outside the lock (``APIDispatcher/prepare(_:)``, with the body
/// decoded ahead), a shared journal's read-or-write choice, the fault layer
/// and the OpenAPI document (``OpenAPIDocument``) all read this table; nothing
/// else lists routes.
///
/// A path is resolved to its route by its shape and one dictionary lookup
/// (``resolve(_:)``): no per-request table is built.
package final class WebServicesRoute: Sendable {
    /// A path shape, with the segments that name the operation.
    package enum Family: String, Sendable, Hashable {
        /// `/database/1/{container}/{environment}/{database}/{operation}` (two segments).
        case database
        /// `/database/1/{container}/{environment}/{database}/users/…` (one or two segments).
        case users
        /// `/database/1/{container}/{environment}/tokens/{create|register}` (Apple's path for push tokens).
        case pushTokens
        /// `/device/1/{container}/{environment}/tokens/{create|register}` (our alias of Apple's).
        case devicePushTokens
        /// `GET /device/1/{container}/{environment}/webcourier/{token}`: the long-poll.
        case webcourier
        /// `/admin/1/{container}/{environment}/{operation}`.
        case admin
        /// `/assets/1/{container}/{environment}/upload` and `…/download/{checksum}`.
        case assetFiles
        /// `/internal/{operation}`: the server's own calls, kept in the journal; never from the network.
        case serverCall
        /// `GET /openapi.json`.
        case document
        /// `GET /share/{shortGUID}`: a share's URL (our extension).
        case sharePage
    }

    package enum Access: Sendable {
        /// Changes nothing: a shared journal answers it without appending it.
        case read
        /// May change the state: applied in the journal's order.
        case write
    }

    package struct Methods: OptionSet, Sendable, Hashable {
        package let rawValue: UInt8
        package init(rawValue: UInt8) { self.rawValue = rawValue }
        package static let get = Methods(rawValue: 1)
        package static let post = Methods(rawValue: 2)

        /// For a refusal's wording: "POST", "GET" or "GET or POST".
        package var names: String {
            switch self {
            case .get: "GET"
            case .post: "POST"
            default: "GET or POST"
            }
        }

        /// For a 405's `Allow` header: "GET", "POST" or "GET, POST".
        package var allowHeader: String {
            switch self {
            case .get: "GET"
            case .post: "POST"
            default: "GET, POST"
            }
        }

        package func allows(_ method: String) -> Bool {
            (method == "POST" && contains(.post)) || (method == "GET" && contains(.get))
        }
    }

    /// Applies the call to the engine under the state lock and words the answer (the route's
    /// path arguments already read and its method checked).
    package typealias Handler = @Sendable (APIDispatcher, APICall, RouteArguments) throws(CloudError) -> APIAnswer

    /// Checks and decodes a call outside the lock into a step of its own
    /// (``PreparedCall/Route``): the routes that make up a server's load.
    package typealias Preparer = @Sendable (APICall, RouteArguments, APIDispatcher.ModifyPlanMaker) throws(CloudError) -> PreparedCall.Route

    /// Who answers the route.
    package enum Handling: Sendable {
        /// The dispatcher, under the state lock (and, with a ``Preparer``, in a step of its own).
        case dispatcher(Handler, prepare: Preparer? = nil)
        /// The HTTP layer's long-poll (``APIResponder``), which waits outside the lock.
        case longPoll
        /// The HTTP layer, from this table alone (``OpenAPIDocument``).
        case document
        /// The HTTP layer, from the host's event feed (``ServerEventFeed``): the feed's long-poll
        /// and its clients, with the server admin token; outside the lock.
        case eventFeed
    }

    package let family: Family
    /// The operation as CloudKit names it (`records/modify`, `users/lookup/email`,
    /// `tokens/create`), or ours (`export`, `upload`); also the name fault rules match.
    package let operation: String
    package let methods: Methods
    /// The body the route reads; `nil`: none.
    package let body: RouteBody?
    package let access: Access
    /// Whether the journal keeps a call of this route that changed the state.
    /// `false` for reads, and for fault rules (settings of the running server, not data).
    package let journaled: Bool
    /// Whether the fault plan reaches the route (matched by ``operation``).
    package let faultable: Bool
    package let handling: Handling
    /// One line for the OpenAPI document.
    package let summary: String
    /// The error statuses this route answers besides those every route can (``commonErrorStatuses``).
    package let errorStatuses: [Int]
    /// The query parameters the route reads (besides `ckWebAuthToken`, which every route reads).
    package let query: [QueryParameter]

    /// A query parameter a route reads.
    package struct QueryParameter: Sendable {
        package var name: String
        /// `boolean`, `number` or `string`, as OpenAPI names them.
        package var type: String
        package var summary: String
        package var minimum: Double? = nil
        package var maxLength: Int? = nil

        /// `getCurrentSyncToken=true`: the zone's current `syncToken` in the answer.
        package static let currentSyncToken = QueryParameter(
            name: "getCurrentSyncToken", type: "boolean", summary: "Adds the zone's current syncToken to the answer (true, True, 1 or yes).")
    }

    package init(
        _ family: Family, _ operation: String, _ methods: Methods, body: RouteBody? = nil, access: Access, journaled: Bool? = nil,
        errorStatuses: [Int] = [], query: [QueryParameter] = [], summary: String, handling: Handling
    ) {
        self.family = family
        self.operation = operation
        self.methods = methods
        self.body = body
        self.access = access
        self.journaled = journaled ?? (access == .write)
        self.faultable = family == .database || family == .users
        self.handling = handling
        self.summary = summary
        self.errorStatuses = errorStatuses
        self.query = query
    }

    /// The statuses any route may answer with an error body: a malformed
    /// request (400), a bad token (401), another user's device (403), an
    /// unknown path or item (404), a method it does not take (405), a body
    /// over the limit (413), a body that is not JSON (415), a call that
    /// needs a signed-in user (421, as CloudKit answers), and those the fault
    /// plan or a stopping server answer (429, 500, 503).
    package static let commonErrorStatuses = [400, 401, 403, 404, 405, 413, 415, 421, 429, 500, 503]

    /// Every error status the route can answer.
    package var allErrorStatuses: [Int] { Array(Set(Self.commonErrorStatuses + errorStatuses)).sorted() }

    /// The path as the OpenAPI document writes it, with `{name}` for its arguments.
    package var pathTemplate: String {
        switch family {
        case .database, .users: "/database/1/{container}/{environment}/{database}/\(operation)"
        case .pushTokens: "/database/1/{container}/{environment}/\(operation)"
        case .devicePushTokens: "/device/1/{container}/{environment}/\(operation)"
        case .webcourier: "/device/1/{container}/{environment}/webcourier/{token}"
        case .admin: "/admin/1/{container}/{environment}/\(operation)"
        case .assetFiles: operation == "download" ? "/assets/1/{container}/{environment}/download/{checksum}" : "/assets/1/{container}/{environment}/\(operation)"
        case .serverCall: "/internal/\(operation)"
        case .document: "/\(operation)"
        case .sharePage: "/share/{shortGUID}"
        }
    }

    /// Whether the route is part of the network API (not the server's own calls).
    package var isServed: Bool { family != .serverCall }

    // MARK: Resolving a path

    /// What a path's shape names: a family and the segments naming its operation.
    package struct Key: Hashable, Sendable {
        package var family: Family
        package var first: String
        package var second: String
    }

    /// A path resolved against the table.
    package enum Resolution: Sendable {
        case route(WebServicesRoute)
        /// The path has the shape of a family, but no route of it has that operation.
        case unknownOperation(Family, operation: String)
        /// No family has the path's shape.
        case unknownPath
    }

    /// The key of a path's shape, or `nil` when no family has it.
    package static func key(_ parts: [String]) -> Key? {
        guard let first = parts.first else { return nil }
        let count = parts.count
        switch first {
        case "database" where count >= 6 && parts[1] == "1":
            if count == 6, parts[4] == "tokens" { return Key(family: .pushTokens, first: parts[5], second: "") }
            if count == 7 || count == 8, parts[5] == "users" { return Key(family: .users, first: parts[6], second: count == 8 ? parts[7] : "") }
            return count == 7 ? Key(family: .database, first: parts[5], second: parts[6]) : nil
        case "device" where count == 6 && parts[1] == "1":
            switch parts[4] {
            case "tokens": return Key(family: .devicePushTokens, first: parts[5], second: "")
            case "webcourier": return Key(family: .webcourier, first: "webcourier", second: "")
            default: return nil
            }
        case "admin" where count == 5 && parts[1] == "1":
            return Key(family: .admin, first: parts[4], second: "")
        case "assets" where count >= 5 && parts[1] == "1":
            switch (parts[4], count) {
            case ("upload", 5): return Key(family: .assetFiles, first: "upload", second: "")
            case ("download", 6): return Key(family: .assetFiles, first: "download", second: "")
            // Still an asset path: unknown operation (after its container and environment are read).
            default: return Key(family: .assetFiles, first: "", second: "")
            }
        case "internal" where count >= 2:
            return Key(family: .serverCall, first: parts[1], second: "")
        case "openapi.json" where count == 1:
            return Key(family: .document, first: "openapi.json", second: "")
        case "share" where count == 2:
            return Key(family: .sharePage, first: "share", second: "")
        default:
            return nil
        }
    }

    /// The key a route is found by: its operation's segments after the family's fixed ones.
    package var key: Key {
        let segments = operation.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        switch family {
        case .database: return Key(family: family, first: segments[0], second: segments[1])
        case .users: return Key(family: family, first: segments[1], second: segments.count > 2 ? segments[2] : "")
        case .pushTokens, .devicePushTokens: return Key(family: family, first: segments[1], second: "")
        default: return Key(family: family, first: operation, second: "")
        }
    }

    package static func resolve(_ parts: [String]) -> Resolution {
        guard let key = key(parts) else { return .unknownPath }
        if let index = byKey[key] { return .route(table[index]) }
        let operation = key.second.isEmpty ? key.first : key.first + "/" + key.second
        return .unknownOperation(key.family, operation: operation)
    }

    /// The route of a call's path, or `nil` for a path the API does not have.
    package static func route(of path: String) -> WebServicesRoute? {
        if case .route(let route) = resolve(TextChecks.pathSegments(path)) { return route }
        return nil
    }

    private static let byKey: [Key: Int] = {
        var keys: [Key: Int] = [:]
        for (index, route) in table.enumerated() {
            precondition(keys.updateValue(index, forKey: route.key) == nil, "two routes for \(route.pathTemplate)")
        }
        return keys
    }()

    /// The operations of a family, in the table's order, for a 404's "Known: …".
    package static func operations(of family: Family) -> [String] {
        table.filter { $0.family == family }.map(\.operation)
    }
}
