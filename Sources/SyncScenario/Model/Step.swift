import Foundation
import SyncCore

/// One step of a scenario and where the file writes it.
public struct Step: Sendable, Equatable {
    public var kind: StepKind
    /// The step's name in the file (`fetch`, `expect`'s `cache`, …): where a
    /// runner points when the step fails.
    public var location: SourceLocation
    /// The client code the lesson writes for this step (`code:`); see ``clientCode``.
    public var code: StepCode?
    /// A note for the presenter (`note:`): shown only in the presenter
    /// layout and in a `--cast` recording, never to the room.
    public var note: String?

    public init(_ kind: StepKind, at location: SourceLocation, code: StepCode? = nil, note: String? = nil) {
        self.kind = kind
        self.location = location
        self.code = code
        self.note = note
    }
}

extension Principal {
    /// The device, when a device acts.
    public var device: String? {
        if case .device(let name) = self { name } else { nil }
    }
}
