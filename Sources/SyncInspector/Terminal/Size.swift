/// A width × height in terminal cells.
public struct Size: Hashable, Sendable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
    }

    public static let zero = Size(width: 0, height: 0)

    /// True when both dimensions are at least those of `other`.
    public func fits(_ other: Size) -> Bool {
        width >= other.width && height >= other.height
    }

    public var description: String { "\(width)×\(height)" }
}
