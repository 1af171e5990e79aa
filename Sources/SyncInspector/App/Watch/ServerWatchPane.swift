/// The panes of the inspector on a server (`syncscope inspect --server`), in Tab order.
public enum ServerWatchPane: Int, CaseIterable, Hashable, Sendable {
    case clients
    case zones
    case records
    case tokens
    case requests
    case diagnostics
}
