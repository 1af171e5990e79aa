import Foundation
import SyncCore
import SyncWire
import SyncServer

/// `/database/1/{container}/{environment}/{database}/users/…`: the server's
/// users as CloudKit's user records and identities. Every user of the server
/// is discoverable.
extension APIDispatcher {
    /// The e-mail address a server user is known by.
    package static func emailAddress(of user: String) -> String { "\(user)@syncscope.example" }

    private func user(_ name: String) -> WireUser {
        WireUser(userRecordName: name, firstName: name.prefix(1).uppercased() + name.dropFirst(), lastName: "", emailAddress: Self.emailAddress(of: name))
    }

    package static func identity(_ name: String) -> WireUserIdentity {
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

    /// The signed-in caller of a `users/…` call.
    private func usersCaller(_ call: APICall, _ operation: String) throws(CloudError) -> Caller {
        let caller = try requireUser(call, "users/\(operation)")
        try core.engine.checkCaller(caller)
        return caller
    }

    package func currentUser(_ call: APICall) throws(CloudError) -> APIAnswer {
        try encode(user(try usersCaller(call, "current").user))
    }

    package func callerIdentity(_ call: APICall) throws(CloudError) -> APIAnswer {
        try encode(Self.identity(try usersCaller(call, "caller").user))
    }

    /// GET: every discoverable user; POST: those the lookup infos name (unknown ones are left out).
    package func discoverUsers(_ call: APICall) throws(CloudError) -> APIAnswer {
        _ = try usersCaller(call, "discover")
        if call.method == "GET" || call.body.isEmpty {
            return try encode(WireUsersResponse(users: core.engine.users.map { Self.identity($0.name) }))
        }
        let request = try decode(WireUsersDiscoverRequest.self, call)
        try checkCount(request.lookupInfos.count, "users to discover")
        return try encode(WireUsersResponse(users: request.lookupInfos.compactMap(find).map(Self.identity)))
    }

    /// `users/lookup/email` and `users/lookup/id`.
    package func lookUpUsers(_ call: APICall, byEmail: Bool) throws(CloudError) -> APIAnswer {
        let operation = byEmail ? "lookup/email" : "lookup/id"
        _ = try usersCaller(call, operation)
        let request = try decode(WireUsersLookupRequest.self, call)
        try checkCount(request.users.count, "users to look up")
        let key = byEmail ? "emailAddress" : "userRecordName"
        for (index, info) in request.users.enumerated() {
            let given = byEmail ? info.emailAddress : info.userRecordName
            guard given != nil else {
                throw CloudError(.invalidArguments, "users[\(index)] has no '\(key)'; users/\(operation) looks users up by \(key).")
            }
        }
        return try encode(WireUsersResponse(users: request.users.compactMap(find).map(user)))
    }

    /// Apple documents a POST; CloudKit JS sends a GET. The caller's contacts are the server's other users.
    package func contacts(_ call: APICall) throws(CloudError) -> APIAnswer {
        let caller = try usersCaller(call, "lookup/contacts")
        return try encode(WireUsersResponse(users: core.engine.users.map(\.name).filter { $0 != caller.user }.map(user)))
    }
}
