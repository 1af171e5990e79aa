import Foundation

/// An asset: the simulator keeps only its description, never file contents.
public struct AssetDescriptor: Sendable, Hashable {
    public var fileChecksum: String
    public var size: Int64
    public var downloadURL: String?

    public init(fileChecksum: String, size: Int64, downloadURL: String? = nil) {
        self.fileChecksum = fileChecksum
        self.size = size
        self.downloadURL = downloadURL
    }
}
