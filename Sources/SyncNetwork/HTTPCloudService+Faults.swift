import Foundation
import SyncCore

extension HTTPCloudService {
    /// `POST /admin/1/{container}/{environment}/faults` with a JSON body
    /// (`{"operation": "list" | "add" | "remove" | "clear", …}`); returns the
    /// answer's JSON. Needs the server admin token.
    public func adminFaults(_ body: Data) async throws -> Data {
        try await sendRaw("POST", "/admin/1/\(escapedContainer)/\(environment.rawValue)/faults", body: body)
    }
}
