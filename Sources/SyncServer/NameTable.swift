import Foundation
import SyncCore

/// Interns user, device and record-type names.
struct NameTable {
    private(set) var names: [String] = [""]
    private var indices: [String: UInt32] = ["": 0]
    /// The name interned last and its index: a save interns its record's
    /// type once per record, and a request's records are mostly of one
    /// type, so this answers most calls without hashing the name.
    private var last: (name: String, index: UInt32) = ("", 0)

    mutating func intern(_ name: String) -> UInt32 {
        if name == last.name { return last.index }
        let i = indices[name] ?? add(name)
        last = (name, i)
        return i
    }

    private mutating func add(_ name: String) -> UInt32 {
        let i = UInt32(names.count)
        names.append(name)
        indices[name] = i
        return i
    }

    subscript(index: UInt32) -> String { names[Int(index)] }

    /// The index of a name already interned; `nil` for a name never seen.
    func index(of name: String) -> UInt32? { indices[name] }
}
