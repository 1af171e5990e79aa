import Foundation

/// What to fetch from one zone in `changes/zone`.
public struct ZoneChangesRequest: Sendable, Hashable {
    public var zoneID: RecordZoneID
    public var previousServerChangeToken: ServerChangeToken?
    /// `nil` or 0: the server's cap (400).
    public var resultsLimit: Int?
    /// `nil`: all fields; `[]`: none.
    public var desiredKeys: [String]?
    /// `nil`: records of every type; otherwise only these types (deletions
    /// included, by the type the record had). `[]`: no records, only the token.
    public var desiredRecordTypes: [String]?

    public init(
        zoneID: RecordZoneID,
        previousServerChangeToken: ServerChangeToken? = nil,
        resultsLimit: Int? = nil,
        desiredKeys: [String]? = nil,
        desiredRecordTypes: [String]? = nil
    ) {
        self.zoneID = zoneID
        self.previousServerChangeToken = previousServerChangeToken
        self.resultsLimit = resultsLimit
        self.desiredKeys = desiredKeys
        self.desiredRecordTypes = desiredRecordTypes
    }
}
