import Foundation
import SyncCore
import SyncWire
import SyncServer

/// Apple's paths that do not fit `/database/1/{c}/{e}/{database}/{a}/{b}`:
/// `tokens/create` and `tokens/register` right under the environment, and
/// `users/…` (some three parts long).
extension APIDispatcher {
    package func appleRoute(_ call: APICall, _ parts: [String]) throws(CloudError) -> APIAnswer? {
        guard parts.count >= 6, parts[1] == "1" else { return nil }
        if parts.count == 6, parts[4] == "tokens" {
            // Apple's path for push tokens; /device/1/… stays as an alias.
            return try device(call, parts)
        }
        guard parts.count == 7 || parts.count == 8, parts[5] == "users" else { return nil }
        _ = try container(parts[2])
        _ = try environment(parts[3])
        _ = try scope(parts[4])
        let operation = parts.dropFirst(6).joined(separator: "/")
        return try users(call, operation)
    }

    /// The e-mail address a server user is known by.
    package static func emailAddress(of user: String) -> String { "\(user)@syncscope.example" }

    private func user(_ name: String) -> WireUser {
        WireUser(userRecordName: name, firstName: name.prefix(1).uppercased() + name.dropFirst(), lastName: "", emailAddress: Self.emailAddress(of: name))
    }

    private func identity(_ name: String) -> WireUserIdentity {
        WireUserIdentity(
            userRecordName: name,
            nameComponents: .init(givenName: name.prefix(1).uppercased() + name.dropFirst(), familyName: ""),
            lookupInfo: WireUserLookupInfo(emailAddress: Self.emailAddress(of: name), userRecordName: name))
    }

    /// The server's user a lookup info names, if any.
    private func find(_ info: WireUserLookupInfo) -> String? {
        let names = core.engine.users.map(\.name)
        if let name = info.userRecordName { return names.first { $0 == name } }
        if let email = info.emailAddress?.lowercased() { return names.first { Self.emailAddress(of: $0).lowercased() == email } }
        return nil
    }

    private func users(_ call: APICall, _ operation: String) throws(CloudError) -> APIAnswer {
        let caller = try requireUser(call, "users/\(operation)")
        try core.engine.checkCaller(caller)
        switch operation {
        case "current":
            try checkMethod(call, allowsGet: true)
            return try encode(user(caller.user))
        case "caller":
            try checkMethod(call, allowsGet: true)
            return try encode(identity(caller.user))
        case "discover":
            // GET: every discoverable user; POST: those the lookup infos name.
            // Every user of the server is discoverable; unknown ones are left out.
            try checkMethod(call, allowsGet: true)
            if call.method == "GET" || call.body.isEmpty {
                return try encode(WireUsersResponse(users: core.engine.users.map { identity($0.name) }))
            }
            let request = try decode(WireUsersDiscoverRequest.self, call)
            try checkCount(request.lookupInfos.count, "users to discover")
            return try encode(WireUsersResponse(users: request.lookupInfos.compactMap(find).map(identity)))
        case "lookup/email", "lookup/id":
            try checkMethod(call)
            let request = try decode(WireUsersLookupRequest.self, call)
            try checkCount(request.users.count, "users to look up")
            let key = operation == "lookup/email" ? "emailAddress" : "userRecordName"
            for (index, info) in request.users.enumerated() {
                let given = operation == "lookup/email" ? info.emailAddress : info.userRecordName
                guard given != nil else {
                    throw CloudError(.invalidArguments, "users[\(index)] has no '\(key)'; users/\(operation) looks users up by \(key).")
                }
            }
            return try encode(WireUsersResponse(users: request.users.compactMap(find).map(user)))
        case "lookup/contacts":
            // Apple documents a POST; CloudKit JS sends a GET. The caller's
            // contacts are the server's other users.
            try checkMethod(call, allowsGet: true)
            return try encode(WireUsersResponse(users: core.engine.users.map(\.name).filter { $0 != caller.user }.map(user)))
        default:
            return .notFound(
                "There is no 'users/\(operation)'. Known: users/current, users/caller, users/discover, users/lookup/email, users/lookup/id, users/lookup/contacts.")
        }
    }
}
