/// Rows held in an array.
public struct ArrayRowProvider: TableRowProvider, Sendable {
    public var rows: [TableRow]
    public init(_ rows: [TableRow]) { self.rows = rows }
    public var rowCount: Int { rows.count }
    public func row(at index: Int) -> TableRow { rows[index] }
}
