import Foundation

/// The type of a field value, spelled as CloudKit Web Services spells it.
public enum FieldType: String, Sendable, Hashable, Codable, CaseIterable {
    case string = "STRING"
    case int64 = "INT64"
    case double = "DOUBLE"
    case bytes = "BYTES"
    /// Bytes the client encrypted itself (CloudKit's encrypted fields); the
    /// server keeps them as they are, apart from `BYTES`.
    case encryptedBytes = "ENCRYPTED_BYTES"
    case timestamp = "TIMESTAMP"
    case reference = "REFERENCE"
    case location = "LOCATION"
    case asset = "ASSET"

    /// The name of a list of this type, for example `STRING_LIST`.
    public var listName: String { rawValue + "_LIST" }
}
