import SyncCore
import SyncClient
import SyncWorlds

/// The order of the records pane's rows: a strict total order (ties are
/// broken by name in ``NaturalOrder``, so two rows never compare equal).
public struct RecordRowOrder: Sendable, Equatable {
    /// Whether `a` comes before `b`.
    public let areInIncreasingOrder: @Sendable (RecordRow, RecordRow) -> Bool
    /// The order is the names' ``NaturalOrder`` alone: a row is then found by
    /// its name with a binary search, with no index by name.
    public let isNaturalNameOrder: Bool
    /// The column sort this order is, when it is one (two orders are equal
    /// when they are the same column sort; a custom comparator equals only itself as a sort of none).
    public private(set) var sort: RecordSort?

    /// By name, as a person reads them (note-2 before note-10).
    public static let naturalName = RecordRowOrder(
        areInIncreasingOrder: { NaturalOrder.less($0.name, $1.name) }, isNaturalNameOrder: true, sort: .name)

    /// Rows ordered by `areInIncreasingOrder` (a column, say), rows it does not
    /// tell apart by name.
    public init(_ areInIncreasingOrder: @escaping @Sendable (RecordRow, RecordRow) -> Bool) {
        self.areInIncreasingOrder = { a, b in
            if areInIncreasingOrder(a, b) { return true }
            if areInIncreasingOrder(b, a) { return false }
            return NaturalOrder.less(a.name, b.name)
        }
        isNaturalNameOrder = false
    }

    /// The records pane's column sort (`S`): by name is ``naturalName``.
    public init(_ sort: RecordSort) {
        self = sort == .name ? .naturalName : RecordRowOrder { sort.areInIncreasingOrder($0, $1) }
        self.sort = sort
    }

    private init(areInIncreasingOrder: @escaping @Sendable (RecordRow, RecordRow) -> Bool, isNaturalNameOrder: Bool, sort: RecordSort?) {
        self.areInIncreasingOrder = areInIncreasingOrder
        self.isNaturalNameOrder = isNaturalNameOrder
        self.sort = sort
    }

    public static func == (a: RecordRowOrder, b: RecordRowOrder) -> Bool {
        a.isNaturalNameOrder == b.isNaturalNameOrder && a.sort == b.sort
    }
}
