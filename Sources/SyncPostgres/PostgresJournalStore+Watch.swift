import Foundation
import Logging
import PostgresNIO
import Synchronization

/// "The journal's tail is at least N", each time it moves: what wakes a node
/// to catch up (and its long-polls to look again).
///
/// The first element is the tail as read once `LISTEN` is in place, so no
/// append between starting to watch and the first element is missed. After
/// that every committed append yields its position. Positions may repeat or
/// arrive out of order (the first read races the first notifications); a
/// node treats each as "catch up to at least here". The sequence ends when
/// the task iterating it is cancelled, and throws a ``PostgresStoreError``
/// when the connection is lost: the node then watches again and catches up
/// (it may have missed notifications meanwhile).
public struct TailWatch: AsyncSequence, Sendable {
    public typealias Element = Int64
    let stream: AsyncThrowingStream<Int64, any Error>

    /// The positions, as a plain stream.
    public var positions: AsyncThrowingStream<Int64, any Error> { stream }

    public func makeAsyncIterator() -> AsyncThrowingStream<Int64, any Error>.AsyncIterator { stream.makeAsyncIterator() }
}

extension PostgresJournalStore {
    /// Starts watching the tail on a connection of its own (see ``TailWatch``).
    /// Returns once `LISTEN` is in place.
    public func watchTail() async throws -> TailWatch {
        let url = url
        let logger = logger
        let connection = try await Self.connect(url, logger: logger, doing: "connecting to watch the journal")
        let (stream, continuation) = AsyncThrowingStream<Int64, any Error>.makeStream()
        let ready = OneShot()
        let listener = Task {
            do {
                try await connection.listen(on: Self.tailChannel) { notifications in
                    ready.succeed()
                    for try await notification in notifications {
                        if let position = Int64(notification.payload) { continuation.yield(position) }
                    }
                }
                continuation.finish()
            } catch {
                let failure = PostgresStoreError.from(error, url: url, doing: "watching the journal")
                ready.fail(failure)
                continuation.finish(throwing: failure)
            }
            try? await connection.close()
        }
        continuation.onTermination = { _ in listener.cancel() }
        do {
            try await ready.wait()
            continuation.yield(try await tail())
        } catch {
            listener.cancel()
            continuation.finish(throwing: error)
            throw error
        }
        return TailWatch(stream: stream)
    }
}

/// Resumes one waiter once, with success or an error, whichever comes first.
final class OneShot: Sendable {
    private struct State {
        var result: Result<Void, any Error>?
        var waiter: CheckedContinuation<Void, any Error>?
    }
    private let state = Mutex(State())

    func succeed() { finish(.success(())) }
    func fail(_ error: any Error) { finish(.failure(error)) }

    private func finish(_ result: Result<Void, any Error>) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(with: result)
    }

    func wait() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let done = state.withLock { state -> Result<Void, any Error>? in
                if let result = state.result { return result }
                state.waiter = continuation
                return nil
            }
            if let done { continuation.resume(with: done) }
        }
    }
}
