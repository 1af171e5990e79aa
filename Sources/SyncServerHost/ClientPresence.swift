import Synchronization

/// Whether the client of one connection is still there: the HTTP layer
/// marks it gone when the client closes its side or the connection drops,
/// and a waiting long-poll hears of it at once.
public final class ClientPresence: Sendable {
    private struct State {
        package var gone = false
        package var callbacks: [@Sendable () -> Void] = []
    }
    private let state = Mutex(State())

    public init() {}

    public var isGone: Bool { state.withLock { $0.gone } }

    /// Runs `callback` when the client goes (at once if it has gone); keeps only the latest.
    package func onGone(_ callback: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            if state.gone { return true }
            state.callbacks = [callback]
            return false
        }
        if now { callback() }
    }

    package func markGone() {
        let callbacks = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.gone else { return [] }
            state.gone = true
            defer { state.callbacks = [] }
            return state.callbacks
        }
        for callback in callbacks { callback() }
    }
}
