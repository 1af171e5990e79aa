/// Rows computed on demand by a closure.
public struct ClosureRowProvider: TableRowProvider {
    public let rowCount: Int
    private let make: (Int) -> TableRow

    public init(count: Int, row: @escaping (Int) -> TableRow) {
        self.rowCount = max(0, count)
        self.make = row
    }

    public func row(at index: Int) -> TableRow { make(index) }
}
