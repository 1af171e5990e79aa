import Foundation
import SyncCore

/// Name rules shared by users, zones, records and fields.
enum Validation {
    static func checkName(_ name: String, what: String, maxLength: Int = 255) throws(CloudError) {
        guard !name.isEmpty else { throw CloudError(.invalidArguments, "The \(what) is empty.") }
        guard name.utf8.count <= maxLength else {
            throw CloudError(.invalidArguments, "The \(what) '\(name.prefix(32))…' is longer than \(maxLength) bytes.")
        }
        guard !containsControlOrSlash(name) else {
            throw CloudError(.invalidArguments, "The \(what) '\(name)' contains a control character or '/'.")
        }
    }

    /// Whether a name has a control character or `/`. An ASCII name (the
    /// usual one) is judged by its bytes (ASCII's control characters are
    /// 0–31 and 127); only other names look up Unicode's categories.
    private static func containsControlOrSlash(_ name: String) -> Bool {
        var ascii = true
        for byte in name.utf8 {
            if byte >= 0x80 {
                ascii = false
                break
            }
            if byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: "/") { return true }
        }
        if ascii { return false }
        return name.unicodeScalars.contains { $0.properties.generalCategory == .control || $0 == "/" }
    }

    /// Rejects values the wire cannot carry: a list item of another type than
    /// its list's, a list inside a list, a number that is not finite. Walks the
    /// value without allocating.
    static func checkFieldValue(_ value: FieldValue, field: String, recordName: String, zoneID: RecordZoneID) throws(CloudError) {
        func invalid(_ problem: String) -> CloudError {
            CloudError(.invalidArguments, "Field '\(field)' of record '\(recordName)': \(problem).", recordName: recordName, zoneID: zoneID)
        }
        func checkScalar(_ value: FieldValue) throws(CloudError) {
            switch value {
            case .double(let d) where !d.isFinite:
                throw invalid("the number \(d) is not finite; only finite numbers can be stored")
            case .location(let l) where !l.latitude.isFinite || !l.longitude.isFinite:
                throw invalid("the location (\(l.latitude), \(l.longitude)) is not finite; only finite coordinates can be stored")
            default:
                break
            }
        }
        guard case .list(let element, let items) = value else { return try checkScalar(value) }
        for (index, item) in items.enumerated() {
            if case .list = item { throw invalid("item \(index) is a list; a \(element.listName) cannot hold lists") }
            guard item.elementType == element else {
                throw invalid("item \(index) is \(item.typeName), but a \(element.listName) holds only \(element.rawValue) values")
            }
            try checkScalar(item)
        }
    }

    /// A record name as CKRecord.ID allows it: 1 to 255 ASCII characters, no
    /// control characters, not starting with an underscore (names starting
    /// with `_` are CloudKit's own); `/` is allowed.
    static func checkRecordName(_ name: String) throws(CloudError) {
        guard !name.isEmpty else { throw CloudError(.invalidArguments, "The record name is empty.") }
        guard name.utf8.count <= 255 else {
            throw CloudError(.invalidArguments, "The record name '\(name.prefix(32))…' is longer than 255 characters.", recordName: name)
        }
        // Printable ASCII (0x20...0x7E: ASCII less its controls), checked on
        // the bytes: every save passes here, and Unicode properties are slow.
        guard name.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else {
            throw CloudError(
                .invalidArguments, "The record name '\(name)' has a character that is not printable ASCII; record names are ASCII.",
                recordName: name)
        }
        guard name.utf8.first != UInt8(ascii: "_") else {
            throw CloudError(
                .invalidArguments, "The record name '\(name)' starts with an underscore, which CloudKit keeps for its own records.",
                recordName: name)
        }
    }

    /// A field name: 1 to 255 ASCII letters, digits and `_`, starting with a
    /// letter. Checked on the bytes, as every field of every save passes here.
    static func checkFieldName(_ name: String) throws(CloudError) {
        // ASCII letters: the only alphabetic ASCII characters.
        func isLetter(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
        }
        let valid = name.utf8.count <= 255
            && name.utf8.first.map(isLetter) == true
            && name.utf8.allSatisfy { byte in
                isLetter(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
            }
        guard valid else {
            throw CloudError(
                .invalidArguments,
                "'\(name)' is not a valid field name: use ASCII letters, digits and '_', starting with a letter.")
        }
    }
}
