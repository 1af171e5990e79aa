import SyncCore
import SyncClient

/// The panes, in Tab order: the four of the grid, then the event log
/// ("What happened"), which Tab reaches where the screen shows it (and `E`
/// always, zoomed when the screen has no room for it).
public enum InspectorPane: Int, CaseIterable, Hashable, Sendable {
    case zones
    case records
    case tokens
    case notifications
    case events

    /// Column (0 left, 1 right) and row (0 top, 1 bottom, 2 the event log) in the grid.
    var gridPosition: (column: Int, row: Int) {
        switch self {
        case .zones: (0, 0)
        case .records: (1, 0)
        case .tokens: (0, 1)
        case .notifications: (1, 1)
        case .events: (0, 2)
        }
    }

    /// "Zones", "Records", … for messages.
    public var name: String {
        switch self {
        case .zones: "Zones"
        case .records: "Records"
        case .tokens: "Tokens"
        case .notifications: "Push"
        case .events: "What happened"
        }
    }

    static func at(column: Int, row: Int) -> InspectorPane {
        if row >= 2 { return .events }
        return allCases.first { $0.gridPosition == (column, row) } ?? .zones
    }
}
