import SyncCore
import SyncClient
import SyncWorlds

/// Changes to a ``RecordList``'s rows, by index in the rows before them.
struct RecordListEdit {
    /// Rows that keep their place.
    var replacements: [(index: Int, row: RecordRow)] = []
    /// Rows that go (or move: they come back among `insertions`).
    var removals: [Int] = []
    /// Rows that come, in any order.
    var insertions: [RecordRow] = []

    var isEmpty: Bool { replacements.isEmpty && removals.isEmpty && insertions.isEmpty }
}
