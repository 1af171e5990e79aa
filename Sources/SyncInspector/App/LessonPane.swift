import SyncCore

/// A pane a lesson step can change, for the highlight that shows it.
public enum LessonPane: String, CaseIterable, Hashable, Sendable {
    case zones
    case records
    case tokens
    case notifications
    case events

    var inspectorPane: InspectorPane? {
        switch self {
        case .zones: .zones
        case .records: .records
        case .tokens: .tokens
        case .notifications: .notifications
        case .events: nil
        }
    }
}
