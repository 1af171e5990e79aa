import Foundation

/// A zone or record a call changed, as the engine's results said when the
/// answer was made: the event feed's `change` events, read without parsing
/// the request or the answer again.
package struct CallChange: Sendable, Hashable {
    package enum Kind: String, Sendable {
        case saved, deleted, zoneCreated, zoneDeleted
    }

    package var kind: Kind
    package var zone: String
    /// `nil` for a zone's change.
    package var recordName: String?

    package init(_ kind: Kind, zone: String, recordName: String? = nil) {
        self.kind = kind
        self.zone = zone
        self.recordName = recordName
    }
}
