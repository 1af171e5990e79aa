/// Where each pane of the inspector on a server goes: the header on the
/// first row, the message line on the last; clients, zones and records on
/// the left; the focused client's token history, its requests and pushes,
/// and the diagnoses on the right.
public struct ServerWatchLayout: Hashable, Sendable {
    public var header: Rect
    public var message: Rect
    public var clients: Rect
    public var zones: Rect
    public var records: Rect
    public var tokens: Rect
    public var requests: Rect
    public var diagnostics: Rect

    public init(size: Size) {
        let body = Rect(x: 0, y: 1, width: size.width, height: max(0, size.height - 2))
        header = Rect(x: 0, y: 0, width: size.width, height: 1)
        message = Rect(x: 0, y: max(0, size.height - 1), width: size.width, height: 1)
        let leftWidth = max(30, size.width * 2 / 5)
        let left = Rect(x: 0, y: body.y, width: leftWidth, height: body.height)
        let right = Rect(x: leftWidth, y: body.y, width: max(0, size.width - leftWidth), height: body.height)
        let leftRows = left.splitRows([.ratio(1), .ratio(1), .ratio(1)])
        clients = leftRows[0]
        zones = leftRows[1]
        records = leftRows[2]
        let rightRows = right.splitRows([.ratio(3), .ratio(2), .ratio(3)])
        tokens = rightRows[0]
        requests = rightRows[1]
        diagnostics = rightRows[2]
    }

    public func rect(of pane: ServerWatchPane) -> Rect {
        switch pane {
        case .clients: clients
        case .zones: zones
        case .records: records
        case .tokens: tokens
        case .requests: requests
        case .diagnostics: diagnostics
        }
    }

    /// Lines one diagnosis takes in the diagnostics pane: what, the summary, the evidence and lesson.
    public static let diagnosisLines = 3

    /// Diagnoses the diagnostics pane shows at once.
    public var visibleDiagnoses: Int { max(1, (diagnostics.height - 2) / Self.diagnosisLines) }

    /// Rows of a table in `pane` (inside its border, below its header).
    public func visibleRows(_ pane: ServerWatchPane) -> Int {
        max(0, rect(of: pane).height - 3)
    }
}
