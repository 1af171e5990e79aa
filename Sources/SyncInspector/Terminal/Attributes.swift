/// Text attributes of a cell.
public struct Attributes: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let bold = Attributes(rawValue: 1 << 0)
    public static let reverse = Attributes(rawValue: 1 << 1)
    public static let underline = Attributes(rawValue: 1 << 2)
    public static let dim = Attributes(rawValue: 1 << 3)
}
