import SyncCore
import SyncClient

/// The order of the records pane (`S` cycles it; the column's header shows ▲ or ▼).
public enum RecordSort: String, CaseIterable, Hashable, Sendable {
    /// By name, numbers by value (note-2 before note-10): ▲.
    case name
    /// The latest change first (server's version, else the device's copy): ▼.
    case modified
    /// By record type, then by name: ▲.
    case type

    /// The column the order is by, as the records table titles it.
    public var column: String {
        switch self {
        case .name: "name"
        case .modified: "modified by"
        case .type: "type"
        }
    }

    /// The header's mark: ▲ ascending, ▼ newest first.
    public var indicator: String { self == .modified ? "▼" : "▲" }

    /// "by name", for messages.
    public var phrase: String {
        switch self {
        case .name: "by name (numbers by value)"
        case .modified: "by last change, newest first"
        case .type: "by record type, then name"
        }
    }

    /// The next order `S` switches to.
    public var next: RecordSort {
        let all = Self.allCases
        return all[((all.firstIndex(of: self) ?? 0) + 1) % all.count]
    }

    /// The comparator of this order: a strict total order (ties fall back to
    /// the name in ``NaturalOrder``), for sorting rows and for the records
    /// model to insert a changed row where it belongs.
    public func areInIncreasingOrder(_ a: RecordRow, _ b: RecordRow) -> Bool {
        switch self {
        case .name:
            break
        case .modified:
            let ta = (a.server ?? a.device)?.modified?.timestamp ?? .min
            let tb = (b.server ?? b.device)?.modified?.timestamp ?? .min
            if ta != tb { return ta > tb }
        case .type:
            if a.type != b.type { return NaturalOrder.less(a.type, b.type) }
        }
        return NaturalOrder.less(a.name, b.name)
    }
}
