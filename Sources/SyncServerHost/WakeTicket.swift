import Synchronization

/// Wakes one waiting long-poll once: on a delivery, at its deadline, or when its request is cancelled.
package final class WakeTicket: Sendable {
    package let deviceID: String
    private struct State {
        package var signaled = false
        package var continuation: CheckedContinuation<Void, Never>?
    }
    private let state = Mutex(State())

    package init(deviceID: String) { self.deviceID = deviceID }

    package func signal() {
        let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.signaled = true
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume()
    }

    package func wait(until deadline: ContinuousClock.Instant) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [self] in
                try? await Task.sleep(until: deadline, clock: .continuous)
                signal()
            }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let resumeNow = state.withLock { state -> Bool in
                        if state.signaled { return true }
                        state.continuation = continuation
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            } onCancel: {
                signal()
            }
            group.cancelAll()
        }
    }
}
