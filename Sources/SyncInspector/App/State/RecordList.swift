import SyncCore
import SyncClient

/// The records of the selected zone, in the order shown (by name in
/// ``NaturalOrder``, note-2 before note-10, unless a column sort is chosen:
/// ``RecordRowsModel`` keeps the rows themselves in that order, in
/// ``RecordRows``' chunks), and the rows the filter keeps.
public struct RecordList: Sendable, Equatable {
    public var key: RecordListKey?
    public internal(set) var rows = RecordRows()
    /// Indices into `rows` that the filter keeps (`nil`: all).
    public internal(set) var visible: [Int]?
    public private(set) var filter = ""
    /// Counts by marker, for the title.
    public internal(set) var counts: [RecordMarker: Int] = [:]
    /// Rows with a change waiting to be sent.
    public internal(set) var unsent = 0

    public init() {}

    init(key: RecordListKey?, rows: [RecordRow]) {
        self.key = key
        self.rows = RecordRows(rows)
        var counts: [RecordMarker: Int] = [:]
        for row in rows where row.marker != .same { counts[row.marker, default: 0] += 1 }
        self.counts = counts
        unsent = rows.lazy.filter(\.hasPendingChange).count
    }

    /// Rows shown (after the filter).
    public var count: Int { visible?.count ?? rows.count }

    public func row(at index: Int) -> RecordRow? {
        let actual = visible.map { index >= 0 && index < $0.count ? $0[index] : -1 } ?? index
        return rows.indices.contains(actual) ? rows[actual] : nil
    }

    /// The shown row of this name, or where it would be.
    public func index(of name: String) -> (index: Int, found: Bool) {
        if sort != .name {
            // Another order than by name: look the name up row by row.
            for index in 0..<count where row(at: index)?.name == name { return (index, true) }
            return (0, false)
        }
        var low = 0
        var high = count
        while low < high {
            let mid = (low + high) / 2
            if NaturalOrder.less(row(at: mid)?.name ?? "", name) { low = mid + 1 } else { high = mid }
        }
        return (low, low < count && row(at: low)?.name == name)
    }

    /// Keeps the rows the filter (case-insensitive, on names and string
    /// fields) and the mode (rows the side shown has) let through; `newSort`
    /// names the order the rows are in (it does not reorder them). Only
    /// recomputes when the filter, the mode or the rows changed.
    mutating func apply(filter newFilter: String, mode: RecordsMode, sort newSort: RecordSort = .name) {
        let selection = Selection(filter: newFilter, mode: mode, sort: newSort)
        guard selection != applied else { return }
        applied = selection
        filter = newFilter
        sort = newSort
        guard !newFilter.isEmpty || mode != .both else {
            visible = nil
            return
        }
        let needle = newFilter.lowercased()
        // The rows are kept in the order shown (``RecordRowsModel/order``):
        // the filter's rows are ascending indices into them.
        visible = rows.indices.filter { Self.keeps(rows[$0], needle: needle, mode: mode) }
    }

    /// Whether the filter (`needle`, lowercased) and the mode let `row` through.
    static func keeps(_ row: RecordRow, needle: String, mode: RecordsMode) -> Bool {
        switch mode {
        case .both: break
        case .server: if row.server == nil { return false }
        case .device: if row.device == nil { return false }
        }
        guard !needle.isEmpty else { return true }
        if row.name.lowercased().contains(needle) { return true }
        for record in [row.server, row.device].compactMap({ $0 }) {
            // Who changed it, as the "modified by" column shows it: `/bob` finds bob-iPad's edits.
            if let stamp = record.modified,
               stamp.userRecordName.lowercased().contains(needle) || stamp.deviceID?.lowercased().contains(needle) == true {
                return true
            }
            for field in record.fields {
                if case .string(let s) = field.value, s.lowercased().contains(needle) { return true }
            }
        }
        return false
    }

    /// The order the rows are in.
    public private(set) var sort: RecordSort = .name

    struct Selection: Hashable {
        var filter: String
        var mode: RecordsMode
        var sort: RecordSort
    }

    var applied: Selection?
}
