/// A column: header title, width and alignment.
public struct TableColumn: Hashable, Sendable {
    public var title: String
    public var width: Constraint
    public var alignment: Alignment

    public init(_ title: String, width: Constraint = .fill, alignment: Alignment = .left) {
        self.title = title
        self.width = width
        self.alignment = alignment
    }
}
