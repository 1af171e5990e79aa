import SyncCore
import SyncWire

extension HTTPCloudService {
    /// `records/lookup` of share records (`cloudkit.share`) as the server
    /// writes them: with their share keys (participants, owner, public
    /// permission, short GUID, URL), which a ``Record`` does not carry. A
    /// name the server does not find is left out.
    public func lookupShareRecords(in scope: DatabaseScope, zoneID: RecordZoneID, recordNames: [String]) async throws -> [WireRecord] {
        let request = WireRecordsLookupRequest(
            records: recordNames.map(WireRecordsLookupRequest.Item.init), zoneID: WireZoneID(zoneID), desiredKeys: nil)
        let answer: WireRecordsResponse = try await send("POST", databasePath(scope, "records/lookup"), request)
        return answer.records.compactMap { item in
            if case .success(let wire) = item, wire.recordType == WireRecord.shareRecordType { wire } else { nil }
        }
    }
}
