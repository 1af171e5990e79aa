import Foundation
import SyncCore
import SyncWire

/// Reads 64-bit identifiers written as hexadecimal.
enum Hex {
    static func string(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, 16 - digits.count)) + digits
    }

    static func value(_ text: String, _ what: String) throws(CloudError) -> UInt64 {
        guard let value = UInt64(text, radix: 16) else {
            throw StateFileError.invalid("\(what) '\(text.prefix(40))' is not a hexadecimal number")
        }
        return value
    }
}
