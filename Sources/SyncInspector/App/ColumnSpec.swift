import SyncCore
import SyncWorlds

/// A table column that can be dropped when the pane is narrow.
struct ColumnSpec {
    var title: String
    /// Columns a fixed column takes; the least a flexible one takes.
    var width: Int
    var alignment: Alignment = .left
    /// 0: always shown; higher numbers are dropped first.
    var priority: Int = 0
    var flexible = false
    /// How much of the spare room a flexible column takes, relative to the others.
    var weight = 1

    /// The columns that fit in `width` (with one space between neighbours),
    /// as indices into `specs` and table columns.
    static func fit(_ specs: [ColumnSpec], width: Int) -> (indices: [Int], columns: [TableColumn]) {
        var kept = Array(specs.indices)
        func needed(_ indices: [Int]) -> Int {
            indices.reduce(0) { $0 + specs[$1].width } + max(0, indices.count - 1)
        }
        while needed(kept) > width,
              let drop = kept.filter({ specs[$0].priority > 0 }).max(by: { (specs[$0].priority, $0) < (specs[$1].priority, $1) }) {
            kept.removeAll { $0 == drop }
        }
        let columns = kept.map { index -> TableColumn in
            let spec = specs[index]
            return TableColumn(spec.title, width: spec.flexible ? .ratio(spec.weight) : .fixed(spec.width), alignment: spec.alignment)
        }
        return (kept, columns)
    }
}
