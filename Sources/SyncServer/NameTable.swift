import Foundation
import SyncCore

/// Interns user, device and record-type names.
struct NameTable {
    private(set) var names: [String] = [""]
    private var indices: [String: UInt32] = ["": 0]

    mutating func intern(_ name: String) -> UInt32 {
        if let i = indices[name] { return i }
        let i = UInt32(names.count)
        names.append(name)
        indices[name] = i
        return i
    }

    subscript(index: UInt32) -> String { names[Int(index)] }

    /// The index of a name already interned; `nil` for a name never seen.
    func index(of name: String) -> UInt32? { indices[name] }
}
