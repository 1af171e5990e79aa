import Foundation
import SyncCore

/// A recording could not be written.
public struct AsciicastError: Error, Hashable, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
