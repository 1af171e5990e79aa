import SyncCore
import SyncClient

/// A box drawn over the panes that takes the keys while it is open.
public enum InspectorOverlay: Hashable, Sendable {
    case help
    case form(FormPurpose, FormState)
    case confirm(ConfirmAction, question: String)
    case recordDetail
    /// Faults to switch on or off (`!`; see `InspectorFaults.swift`).
    case faults
}
