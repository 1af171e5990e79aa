import SyncCore

/// What one `records/modify` request's schema checks found so far, so that
/// the next record of the same type and shape is admitted without a lookup
/// (see `ServerEngine.admitSave`). Lives for one request only; not state.
struct SaveSchemaMemo {
    /// The record type the previous save looked up (`nil`: none, or the schema lacks it).
    var type: RecordTypeSchema?
    /// The fields of the last record that fitted ``type``.
    var fitted: RecordFields?

    /// Whether a save of `recordType` with `fields` fits as the last record
    /// that fitted did: the same type, and fields of the same shape. The
    /// fast path of every save but the first of a request's type and shape:
    /// no lookup, no string built, nothing retained.
    func admits(_ recordType: String, _ fields: RecordFields) -> Bool {
        guard let name = type?.name, name == recordType, let fitted else { return false }
        return Self.sameShape(fitted, fields)
    }

    /// Whether two records have the same field names, in order, with values
    /// of the same types (so one fits a record type exactly when the other does).
    static func sameShape(_ a: RecordFields, _ b: RecordFields) -> Bool {
        a.storage.withUnsafeBufferPointer { x in
            b.storage.withUnsafeBufferPointer { y in
                guard x.count == y.count else { return false }
                for index in x.indices {
                    guard x[index].value.hasSameType(as: y[index].value), x[index].name == y[index].name else { return false }
                }
                return true
            }
        }
    }
}

extension FieldValue {
    /// The same CloudKit type: the same scalar type, or lists of the same element type.
    func hasSameType(as other: FieldValue) -> Bool {
        switch (self, other) {
        case (.string, .string), (.int64, .int64), (.double, .double), (.bytes, .bytes), (.encryptedBytes, .encryptedBytes),
            (.timestamp, .timestamp), (.reference, .reference), (.location, .location), (.asset, .asset):
            true
        case (.list(let a, _), .list(let b, _)):
            a == b
        default:
            false
        }
    }
}
