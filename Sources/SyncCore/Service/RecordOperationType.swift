import Foundation

/// The operation types of `records/modify`, as CloudKit Web Services names them.
public enum RecordOperationType: String, Sendable, Hashable, Codable, CaseIterable {
    /// Fails with `alreadyExists` if the record exists.
    case create
    /// Writes the given fields; needs the current change tag (a record with
    /// no tag that does not exist yet is created).
    case update
    /// Writes the given fields, no tag check.
    case forceUpdate
    /// Replaces all fields; needs the current change tag.
    case replace
    /// Replaces all fields, no tag check.
    case forceReplace
    /// Deletes; checks the change tag when one is given.
    case delete
    /// Deletes, no tag check.
    case forceDelete

    public var isDelete: Bool { self == .delete || self == .forceDelete }
    public var checksChangeTag: Bool { self == .update || self == .replace || self == .delete }
    public var replacesAllFields: Bool { self == .replace || self == .forceReplace || self == .create }
}
