import Foundation
import Synchronization

/// Runs a sync engine's operations one at a time, in the order they were asked for, and can
/// cancel every one running or waiting.
final class OperationChain: Sendable {
    private struct Chain {
        var last: Task<Void, Never>?
        var cancels: [UUID: @Sendable () -> Void] = [:]
    }

    private let chain = Mutex(Chain())

    func run<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let id = UUID()
        let task: Task<T, any Error> = chain.withLock { chain in
            let previous = chain.last
            let task = Task<T, any Error> {
                await previous?.value
                try Task.checkCancellation()
                return try await body()
            }
            chain.last = Task { _ = try? await task.value }
            chain.cancels[id] = { task.cancel() }
            return task
        }
        defer { _ = chain.withLock { $0.cancels.removeValue(forKey: id) } }
        return try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
    }

    /// Cancels every operation running or waiting.
    func cancelAll() {
        for cancel in chain.withLock({ Array($0.cancels.values) }) { cancel() }
    }

    /// Returns once no operation is running or waiting.
    func idle() async {
        while true {
            let last = chain.withLock { $0.last }
            await last?.value
            if chain.withLock({ $0.last }) == last { return }
        }
    }
}
