import Foundation

/// What a reference does when its target is deleted.
public enum ReferenceAction: String, Sendable, Hashable, Codable {
    case none = "NONE"
    case deleteSelf = "DELETE_SELF"
    /// The target must exist when the reference is saved (Apple's VALIDATE);
    /// kept as sent, not enforced by the simulator.
    case validate = "VALIDATE"
}
