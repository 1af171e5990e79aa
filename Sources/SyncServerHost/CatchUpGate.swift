import Foundation

/// Waiters for the host to have applied a position; one of them at a time fetches and applies.
package struct CatchUpGate {
    package var waiters: [(target: Int64, continuation: CheckedContinuation<(any Error)?, Never>)] = []
    package var running = false
}
