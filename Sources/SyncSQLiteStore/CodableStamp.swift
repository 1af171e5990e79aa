import Foundation
import SyncCore

struct CodableStamp: Codable, Hashable {
    var timestamp: Int64
    var userRecordName: String
    var deviceID: String?

    init(_ stamp: RecordStamp) {
        timestamp = stamp.timestamp
        userRecordName = stamp.userRecordName
        deviceID = stamp.deviceID
    }

    var stamp: RecordStamp { RecordStamp(timestamp: timestamp, userRecordName: userRecordName, deviceID: deviceID) }
}
