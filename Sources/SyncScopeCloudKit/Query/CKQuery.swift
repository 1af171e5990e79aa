import Foundation
import SyncCore

/// A query for records of one type, as CloudKit's `CKQuery`.
///
/// On Linux, Foundation cannot parse predicate formats (`NSPredicate(format:)` is not
/// implemented there), so the twin reads only `NSPredicate(value: true)` (every record of the
/// type) and `NSPredicate(value: false)` (none); nor has it key-based sort descriptors, so
/// results come in the server's order.
public final class CKQuery: @unchecked Sendable {
    public let recordType: CKRecord.RecordType
    public let predicate: NSPredicate

    public init(recordType: CKRecord.RecordType, predicate: NSPredicate) {
        self.recordType = recordType
        self.predicate = predicate
    }

    var matchesNothing: Bool { !predicate.evaluate(with: nil) }

    var serverQuery: RecordQuery { RecordQuery(recordType: recordType) }
}

/// CloudKit's `CKQueryOperation`, for its cursor and its results limit.
public enum CKQueryOperation {
    /// As many results as the server hands out in one page.
    public static let maximumResults = 0

    /// Where a query's previous page ended.
    public final class Cursor: Sendable {
        let query: CKQuery
        let zoneID: CKRecordZone.ID?
        let marker: String

        init(query: CKQuery, zoneID: CKRecordZone.ID?, marker: String) {
            self.query = query
            self.zoneID = zoneID
            self.marker = marker
        }
    }
}

extension CKDatabase {
    public func records(
        matching query: CKQuery, inZoneWith zoneID: CKRecordZone.ID? = nil, desiredKeys: [CKRecord.FieldKey]? = nil,
        resultsLimit: Int = CKQueryOperation.maximumResults
    ) async throws -> (matchResults: [(CKRecord.ID, Result<CKRecord, any Error>)], queryCursor: CKQueryOperation.Cursor?) {
        try await page(query, zoneID: zoneID, marker: nil, desiredKeys: desiredKeys, resultsLimit: resultsLimit)
    }

    public func records(
        continuingMatchFrom queryCursor: CKQueryOperation.Cursor, desiredKeys: [CKRecord.FieldKey]? = nil,
        resultsLimit: Int = CKQueryOperation.maximumResults
    ) async throws -> (matchResults: [(CKRecord.ID, Result<CKRecord, any Error>)], queryCursor: CKQueryOperation.Cursor?) {
        try await page(queryCursor.query, zoneID: queryCursor.zoneID, marker: queryCursor.marker, desiredKeys: desiredKeys, resultsLimit: resultsLimit)
    }

    private func page(
        _ query: CKQuery, zoneID: CKRecordZone.ID?, marker: String?, desiredKeys: [String]?, resultsLimit: Int
    ) async throws(CKError) -> (matchResults: [(CKRecord.ID, Result<CKRecord, any Error>)], queryCursor: CKQueryOperation.Cursor?) {
        if query.matchesNothing { return ([], nil) }
        let link = try link()
        let request = QueryRequest(
            query: query.serverQuery, zoneID: zoneID?.serverZoneID(user: link.user), resultsLimit: resultsLimit > 0 ? resultsLimit : nil,
            continuationMarker: marker, desiredKeys: desiredKeys)
        let result = try await run(link) { try await link.connection.query(scope, request) }
        let matches = result.records.map { record -> (CKRecord.ID, Result<CKRecord, any Error>) in
            let ck = CKRecord(record, user: link.user)
            return (ck.recordID, .success(ck))
        }
        return (matches, result.continuationMarker.map { CKQueryOperation.Cursor(query: query, zoneID: zoneID, marker: $0) })
    }
}
