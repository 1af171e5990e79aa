import Foundation
import SyncCore

indirect enum CodableFieldValue: Codable, Hashable {
    case string(String)
    case int64(Int64)
    case double(Double)
    case bytes(Data)
    case encryptedBytes(Data)
    case timestamp(Int64)
    case reference(recordName: String, zoneName: String?, ownerName: String?, action: ReferenceAction)
    case location(latitude: Double, longitude: Double)
    case asset(fileChecksum: String, size: Int64, downloadURL: String?)
    case list(FieldType, [CodableFieldValue])

    init(_ value: FieldValue) {
        switch value {
        case .string(let s): self = .string(s)
        case .int64(let i): self = .int64(i)
        case .double(let d): self = .double(d)
        case .bytes(let d): self = .bytes(d)
        case .encryptedBytes(let d): self = .encryptedBytes(d)
        case .timestamp(let t): self = .timestamp(t)
        case .reference(let r):
            self = .reference(recordName: r.recordName, zoneName: r.zoneID?.zoneName, ownerName: r.zoneID?.ownerName, action: r.action)
        case .location(let l): self = .location(latitude: l.latitude, longitude: l.longitude)
        case .asset(let a): self = .asset(fileChecksum: a.fileChecksum, size: a.size, downloadURL: a.downloadURL)
        case .list(let type, let items): self = .list(type, items.map(CodableFieldValue.init))
        }
    }

    var value: FieldValue {
        switch self {
        case .string(let s): return .string(s)
        case .int64(let i): return .int64(i)
        case .double(let d): return .double(d)
        case .bytes(let d): return .bytes(d)
        case .encryptedBytes(let d): return .encryptedBytes(d)
        case .timestamp(let t): return .timestamp(t)
        case .reference(let name, let zoneName, let ownerName, let action):
            let zoneID = zoneName.map { RecordZoneID(zoneName: $0, ownerName: ownerName ?? "") }
            return .reference(RecordReference(recordName: name, zoneID: zoneID, action: action))
        case .location(let latitude, let longitude): return .location(Location(latitude: latitude, longitude: longitude))
        case .asset(let checksum, let size, let url): return .asset(AssetDescriptor(fileChecksum: checksum, size: size, downloadURL: url))
        case .list(let type, let items): return .list(type, items.map(\.value))
        }
    }
}
