/// One row of a table: a string per column and an optional style (for
/// example errors in red). A selected row uses the theme's selection style.
public struct TableRow: Hashable, Sendable {
    public var cells: [String]
    public var style: Style?

    public init(_ cells: [String], style: Style? = nil) {
        self.cells = cells
        self.style = style
    }
}
