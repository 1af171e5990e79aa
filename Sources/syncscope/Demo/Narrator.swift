import SyncCore
import SyncServer

/// Prints the story with virtual timestamps.
struct Narrator {
    let clock: VirtualClock
    let server: SimulatedServer
    let print: (String) -> Void
    let start = VirtualClock.defaultStart

    private var stamp: String {
        let ms = clock.now() - start
        let seconds = ms / 1000
        let millis = ms % 1000
        let padded = String(millis).count < 3 ? String(repeating: "0", count: 3 - String(millis).count) + String(millis) : String(millis)
        return "t+\(seconds).\(padded)s"
    }

    func title(_ text: String) {
        print(text)
        print(String(repeating: "=", count: text.count))
    }

    func say(_ text: String) { print("  " + text) }
    func blank() { print("") }
    func step(_ text: String) { print("[\(stamp)] \(text)") }
    func detail(_ text: String) { print("           \(text)") }

    func describe(_ token: ServerChangeToken) -> String {
        server.withEngine { $0.describe(token) }
    }

    func databaseBatch(_ batch: DatabaseChangesBatch) {
        let zones = batch.changes.map { change -> String in
            switch change {
            case .zoneChanged(let id): id.zoneName
            case .zoneRemoved(let id, let reason): "\(id.zoneName) (\(reason.rawValue))"
            }
        }
        detail("← zones changed: \(zones.isEmpty ? "none" : zones.joined(separator: ", "))  moreComing=\(batch.moreComing)")
        detail("  token …\(batch.serverChangeToken.shortForm) = \(describe(batch.serverChangeToken))")
    }

    /// Fetches a zone until `moreComing` is false, printing each batch.
    mutating func fetchAll(
        _ service: InProcessCloudService, zone: RecordZoneID, from token: ServerChangeToken?, resultsLimit: Int?
    ) async throws -> ServerChangeToken? {
        var token = token
        var batch = 1
        while true {
            let request = ZoneChangesRequest(zoneID: zone, previousServerChangeToken: token, resultsLimit: resultsLimit)
            let result = try await service.fetchRecordZoneChanges(in: .private, [request])[0]
            switch result {
            case .failure(let error):
                detail("✗ \(error.serverErrorCode): \(error.reason)")
                return token
            case .success(let changes):
                let items = changes.changes.map { change -> String in
                    switch change {
                    case .changed(let record): "\(record.recordID.recordName) \"\(record["title"].map(HeadlessDemo.plain) ?? "")\""
                    case .deleted(let id, let type): "\(id.recordName) deleted (\(type))"
                    }
                }
                detail("batch \(batch): \(items.isEmpty ? "no changes" : items.joined(separator: ", "))  moreComing=\(changes.moreComing)")
                let same = token == changes.serverChangeToken ? " (unchanged)" : ""
                detail("  token …\(changes.serverChangeToken.shortForm)\(same) = \(describe(changes.serverChangeToken))")
                token = changes.serverChangeToken
                if !changes.moreComing { return token }
                batch += 1
            }
        }
    }
}
