import Foundation
import SyncCore

/// Identifies a record: its name within a zone, as CloudKit's `CKRecord.ID` (`CKRecordID`).
public final class CKRecordID: NSObject, NSSecureCoding, NSCopying, Sendable {
    public let recordName: String
    public let zoneID: CKRecordZone.ID

    public init(recordName: String, zoneID: CKRecordZone.ID = .default) {
        self.recordName = recordName
        self.zoneID = zoneID
    }

    /// A record ID with a new UUID for its name, in the default zone.
    public convenience override init() {
        self.init(recordName: UUID().uuidString)
    }

    public static var supportsSecureCoding: Bool { true }

    public func encode(with coder: NSCoder) {
        coder.encode(recordName as NSString, forKey: "recordName")
        zoneID.encode(with: coder)
    }

    public init?(coder: NSCoder) {
        guard let name = coder.decodeObject(of: NSString.self, forKey: "recordName"), let zoneID = CKRecordZone.ID(coder: coder)
        else { return nil }
        recordName = name as String
        self.zoneID = zoneID
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? CKRecordID else { return false }
        return recordName == other.recordName && zoneID == other.zoneID
    }

    public override var hash: Int {
        var hasher = Hasher()
        hasher.combine(recordName)
        hasher.combine(zoneID)
        return hasher.finalize()
    }

    public override var description: String { "<CKRecordID: \(recordName):(\(zoneID.zoneName):\(zoneID.ownerName))>" }
}

extension CKRecordID {
    func serverRecordID(user: String) -> RecordID {
        RecordID(recordName: recordName, zoneID: zoneID.serverZoneID(user: user))
    }

    convenience init(_ id: RecordID, user: String) {
        self.init(recordName: id.recordName, zoneID: CKRecordZone.ID(id.zoneID, user: user))
    }
}
