import Foundation
import SyncCore

/// Reads a schema file, turning every problem into a `file:line:column` sentence.
enum SchemaFile {
    static func text(_ path: String) throws -> String {
        do { return try String(contentsOf: URL(fileURLWithPath: path), encoding: .utf8) } catch {
            throw ClientFailure("Cannot read \(path): \((error as NSError).localizedDescription)")
        }
    }

    static func parse(_ path: String) throws -> ContainerSchema {
        let text = try text(path)
        do { return try SchemaLanguage.parse(text) } catch { throw ClientFailure(error.located(in: path)) }
    }

    /// The changes, one a line, or a line saying there are none.
    static func describe(_ changes: [String], none: String) -> String {
        changes.isEmpty ? none : changes.map { "  \($0)" }.joined(separator: "\n")
    }
}
