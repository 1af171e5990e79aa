import Foundation
import SyncCore
import SyncWire
import SyncServer

extension APIDispatcher {
    /// `/admin/1/{container}/{environment}/faults`: list, add, remove or clear
    /// fault rules at run time (server admin only). Rules are settings of the
    /// running server, not data: they are not journaled.
    package func faults(_ call: APICall) throws(CloudError) -> APIAnswer {
        try Self.requireServerAdmin(call, "faults")
        let body = call.body.isEmpty ? Data(#"{"operation":"list"}"#.utf8) : call.body
        let request = try WireJSON.decode(WireFaultsRequest.self, from: body)
        return APIAnswer(body: try WireJSON.encode(try core.handleFaults(request, now: now)))
    }
}
