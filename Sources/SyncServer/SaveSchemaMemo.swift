import SyncCore

/// What one `records/modify` request's schema checks found so far, so that
/// the next record of the same type and shape is admitted without a lookup
/// (see `ServerEngine.admitSave`). Lives for one request only; not state.
struct SaveSchemaMemo {
    /// The record type the previous save looked up (`nil`: none, or the schema lacks it).
    var type: RecordTypeSchema?
    /// The fields of the last record that fitted ``type``.
    var fitted: RecordFields?

    /// Whether two records have the same field names, in order, with values
    /// of the same types (so one fits a record type exactly when the other does).
    static func sameShape(_ a: RecordFields, _ b: RecordFields) -> Bool {
        guard a.count == b.count else { return false }
        for index in a.indices {
            let x = a[index]
            let y = b[index]
            guard x.name == y.name, x.value.elementType == y.value.elementType else { return false }
            if case .list = x.value {
                guard case .list = y.value else { return false }
            } else if case .list = y.value {
                return false
            }
        }
        return true
    }
}
