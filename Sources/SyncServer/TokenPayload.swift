import Crypto
import Foundation
import SyncCore

/// What a change token stands for. Only the server ever reads it.
struct TokenPayload: Equatable {
    static let version: UInt8 = 1

    var kind: ChangeTokenKind
    var scope: DatabaseScope
    /// Changes up to and including this sequence have been seen.
    var sequence: Int64
    /// Deletions at or below this sequence need not be reported: it is where
    /// a fetch from no token started. Tokens of later fetches keep it; the
    /// token for "now" (`zones/list`) has it equal to `sequence`.
    var floor: Int64
    /// The history this token belongs to: the server's history ID mixed with
    /// the zone's (or database's) incarnation.
    var history: UInt64
    var user: String
    var container: String
    var environment: ContainerEnvironment
    /// Zone tokens only.
    var zoneName: String
    var zoneOwner: String

    /// How far back this token reaches: the changes it still needs reported.
    var coverage: Int64 { max(sequence, floor) }
}
