import Foundation

/// Why a zone left a database.
public enum ZoneDeletionReason: String, Sendable, Hashable, Codable, CaseIterable {
    /// The app deleted it (or, in the shared database, the owner deleted it or stopped sharing it).
    case deleted
    /// The user deleted the app's data in Settings: do not upload it again.
    case purged
    /// The user reset their encrypted data: upload local data again.
    case encryptedDataReset
}
