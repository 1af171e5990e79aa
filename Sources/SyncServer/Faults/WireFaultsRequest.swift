import Foundation
import SyncCore
import SyncWire

/// The body of `POST /admin/1/{container}/{environment}/faults`:
/// `{"operation": "list"}`, `{"operation": "add", "rules": [...]}`,
/// `{"operation": "remove", "id": 2}` or `{"operation": "clear", "kinds": ["pushDrop"]}` (no kinds: every rule).
public struct WireFaultsRequest: Codable, Sendable, Hashable {
    /// `list` (also when absent), `add`, `remove` or `clear`.
    public var operation: String?
    public var rules: [WireFaultRule]?
    public var id: Int?
    public var kinds: [String]?

    public init(operation: String?, rules: [WireFaultRule]? = nil, id: Int? = nil, kinds: [String]? = nil) {
        self.operation = operation
        self.rules = rules
        self.id = id
        self.kinds = kinds
    }
}
