import Foundation
import Synchronization
import SyncCore

/// The engine and the push layer, kept together so that one lock covers a
/// commit and the notifications it fires.
public final class ServerCore {
    public let engine: ServerEngine
    public let push: PushEngine
    /// The fault rules in force; `nil` until a plan is first installed
    /// (see `ServerCore+Faults.swift`): then no call pays for faults.
    public internal(set) var faults: FaultInjector?

    public init(engine: ServerEngine, push: PushEngine) {
        self.engine = engine
        self.push = push
        engine.commitObservers.append { commit in push.handle(commit) }
        engine.databaseChangeObservers.append { event in push.handle(event) }
    }
}
