import Foundation

/// A link from one record to another, as CloudKit's `CKRecord.Reference` (`CKReference`).
public final class CKReference: NSObject, NSSecureCoding, NSCopying, CKRecordValueProtocol, Sendable {
    /// What happens to the record holding the reference when its target is deleted.
    public enum Action: UInt, Sendable, Hashable {
        case none = 0
        case deleteSelf = 1
    }

    public let recordID: CKRecord.ID
    public let action: Action

    public init(recordID: CKRecord.ID, action: Action) {
        self.recordID = recordID
        self.action = action
    }

    public convenience init(record: CKRecord, action: Action) {
        self.init(recordID: record.recordID, action: action)
    }

    public static var supportsSecureCoding: Bool { true }

    public func encode(with coder: NSCoder) {
        recordID.encode(with: coder)
        coder.encode(Int64(action.rawValue), forKey: "action")
    }

    public init?(coder: NSCoder) {
        guard let id = CKRecord.ID(coder: coder) else { return nil }
        recordID = id
        action = Action(rawValue: UInt(coder.decodeInt64(forKey: "action"))) ?? .none
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? CKReference else { return false }
        return recordID == other.recordID && action == other.action
    }

    public override var hash: Int { recordID.hash &+ Int(action.rawValue) }
}
