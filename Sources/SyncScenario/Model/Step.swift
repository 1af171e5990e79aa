import Foundation
import SyncCore

/// One step of a scenario and where the file writes it.
public struct Step: Sendable, Equatable {
    public var kind: StepKind
    /// The step's name in the file (`fetch`, `expect`'s `cache`, …): where a
    /// runner points when the step fails.
    public var location: SourceLocation

    public init(_ kind: StepKind, at location: SourceLocation) {
        self.kind = kind
        self.location = location
    }
}

extension Principal {
    /// The device, when a device acts.
    public var device: String? {
        if case .device(let name) = self { name } else { nil }
    }
}
