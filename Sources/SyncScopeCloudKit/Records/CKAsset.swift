import Foundation
import Synchronization
import SyncCore

/// A file attached to a record, as CloudKit's `CKAsset`.
///
/// SyncScope's server keeps an asset's checksum and size, not its bytes. In one process the
/// twin remembers which file had which checksum, so a record fetched on another "device" of
/// the same test hands back the same `fileURL`; an asset whose file this process never saw
/// comes back with `fileURL == nil`.
public final class CKAsset: NSObject, CKRecordValueProtocol, Sendable {
    public let fileURL: URL?
    let descriptor: AssetDescriptor

    public init(fileURL: URL) {
        self.fileURL = fileURL
        let data = (try? Data(contentsOf: fileURL)) ?? Data()
        var crc = CRC32()
        crc.add(data)
        let descriptor = AssetDescriptor(fileChecksum: String(format: "%08x-%d", crc.value, data.count), size: Int64(data.count))
        self.descriptor = descriptor
        Self.files.withLock { $0[descriptor.fileChecksum] = fileURL }
    }

    init(_ descriptor: AssetDescriptor) {
        self.descriptor = descriptor
        fileURL = Self.files.withLock { $0[descriptor.fileChecksum] }
    }

    private static let files = Mutex<[String: URL]>([:])

    public override func isEqual(_ object: Any?) -> Bool {
        (object as? CKAsset)?.descriptor == descriptor
    }

    public override var hash: Int { descriptor.hashValue }
}
