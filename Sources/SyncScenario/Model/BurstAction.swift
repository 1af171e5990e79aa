import Foundation
import SyncCore

/// A writer: `count` saves by one device to one zone.
public struct BurstAction: Sendable, Equatable {
    /// When the burst's saves go to the server.
    public enum SendMode: String, Sendable, Equatable, CaseIterable {
        /// Each save is sent on its own: `count` commits.
        case each
        /// All saves are sent together at the end: one commit.
        case end
        /// Nothing is sent: the saves stay pending.
        case none
    }

    public var device: String
    public var database: DatabaseScope
    public var zone: ZoneRef
    public var count: Int
    public var recordType: String
    /// Record names are this prefix and the save's number, from 1.
    public var recordNamePrefix: String
    /// Fields of every record; `{n}` in a string becomes the save's number.
    public var fields: RecordFields
    public var send: SendMode
    /// Clock advance after each save.
    public var intervalMs: Milliseconds

    public init(
        device: String, database: DatabaseScope = .private, zone: ZoneRef, count: Int, recordType: String = "Item",
        recordNamePrefix: String? = nil, fields: RecordFields = RecordFields(), send: SendMode = .each,
        intervalMs: Milliseconds = 0
    ) {
        self.device = device
        self.database = database
        self.zone = zone
        self.count = count
        self.recordType = recordType
        self.recordNamePrefix = recordNamePrefix ?? BurstAction.defaultPrefix(for: recordType)
        self.fields = fields
        self.send = send
        self.intervalMs = intervalMs
    }

    /// `Item` → `item-`.
    public static func defaultPrefix(for recordType: String) -> String {
        recordType.lowercased() + "-"
    }

    /// The record name of save number `number` (1 …`count`).
    public func recordName(_ number: Int) -> String {
        "\(recordNamePrefix)\(number)"
    }

    /// The fields of save number `number`, with `{n}` replaced in strings.
    public func fields(_ number: Int) -> RecordFields {
        func substitute(_ value: FieldValue) -> FieldValue {
            switch value {
            case .string(let s): .string(s.replacingOccurrences(of: "{n}", with: String(number)))
            case .list(let type, let items): .list(type, items.map(substitute))
            default: value
            }
        }
        return RecordFields(fields.map { Field(name: $0.name, value: substitute($0.value)) })
    }
}
