import Foundation
import SyncCore
import SyncWire

/// The whole state of a server as JSON: what `admin/export` answers and
/// `admin/import` takes, and what the network server stores as a checkpoint.
///
/// It keeps every detail that tokens depend on (sequences, incarnations,
/// tombstones, retention horizons), so a checkpoint restored with
/// `keepingHistory` answers old tokens as before. `admin/import` gives the
/// state a new history ID instead, so tokens issued before it expire.
/// 64-bit identifiers are written as hexadecimal strings (JSON numbers lose
/// precision past 2^53 in many tools). Every list is sorted: the same state
/// always gives the same bytes.
public struct ServerStateFile: Codable, Sendable, Hashable {
    public static let formatName = "syncscope-server-state"
    public static let currentVersion = 1

    public struct User: Codable, Sendable, Hashable {
        public var name: String
        public var webAuthToken: String
    }

    public struct StoredRecord: Codable, Sendable, Hashable {
        public var recordName: String
        public var recordType: String
        public var recordChangeTag: String
        public var fields: [String: WireField]
        public var created: WireStamp
        public var modified: WireStamp
        public var sequence: Int64
    }

    public struct Tombstone: Codable, Sendable, Hashable {
        public var recordName: String
        public var recordType: String
        public var sequence: Int64
    }

    public struct Zone: Codable, Sendable, Hashable {
        public var zoneName: String
        public var ownerRecordName: String
        public var incarnation: String
        public var lastSequence: Int64
        public var compactedThrough: Int64
        /// Base64.
        public var clientChangeTokenData: String?
        public var participants: [String]?
        /// The zone-wide share (`cloudkit.zoneshare`), if any.
        public var share: ZoneShare?
        public var records: [StoredRecord]
        public var tombstones: [Tombstone]?
        /// Each record's parent, by record name (records with a parent only).
        public var parents: [String: String]?
        /// The record shares, by share record name.
        public var recordShares: [String: ZoneShare]?
        /// Participants who see only the hierarchies of the record shares they accepted.
        public var limitedParticipants: [String: [String]]?
    }

    public struct LogEntry: Codable, Sendable, Hashable {
        public var zoneID: WireZoneID
        public var sequence: Int64
        /// `deleted`, `purged` or `encryptedDataReset` when the zone was removed.
        public var removal: String?
    }

    public struct DatabaseLog: Codable, Sendable, Hashable {
        public var incarnation: String
        public var lastSequence: Int64
        public var compactedThrough: Int64
        public var entries: [LogEntry]
    }

    public struct UserDatabases: Codable, Sendable, Hashable {
        public var user: String
        public var privateZones: [Zone]
        /// Why zones that no longer exist went away, by zone name.
        public var removedZones: [String: String]?
        public var privateLog: DatabaseLog
        public var sharedZones: [WireZoneID]?
        public var sharedLog: DatabaseLog
    }

    public struct Container: Codable, Sendable, Hashable {
        public var container: String
        public var environment: ContainerEnvironment
        public var publicZone: Zone
        public var users: [UserDatabases]
        /// The container's schema in this environment, in CloudKit's schema
        /// language (`SchemaLanguage`); left out when it has no record type and no role.
        public var schema: String?
    }

    public var format: String
    public var version: Int
    public var historyID: String
    public var nextChangeTag: UInt64
    /// Checkpoints only: where the server's random choices resume.
    public var randomSeed: String?
    public var users: [User]
    public var containers: [Container]
    public var push: PushStateFile?
    /// Uploaded asset files (`assets/upload`), by checksum; left out when there are none.
    public var assets: [Asset]?

    /// One uploaded file: its checksum (as `fileChecksum` says it) and its bytes (base64).
    public struct Asset: Codable, Sendable, Hashable {
        public var fileChecksum: String
        public var data: String
    }
}
