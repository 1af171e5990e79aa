import Foundation
import Testing

/// An asciinema v2 `.cast` file read back: its header and its events.
public struct CastFile {
    public var header: [String: Any]
    public var events: [(time: Double, code: String, data: String)]

    public init(path: String) throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let lines = text.split(separator: "\n").map(String.init)
        let first = try #require(lines.first)
        header = try #require(try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
        events = try lines.dropFirst().map { line in
            let array = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [Any])
            try #require(array.count == 3, "an event has a time, a code and data: \(line)")
            return (try #require(array[0] as? Double), try #require(array[1] as? String), try #require(array[2] as? String))
        }
    }

    /// Each output event's data: one per frame the recorder wrote.
    public var frames: [String] { events.filter { $0.code == "o" }.map(\.data) }
    /// All output, joined.
    public var output: String { frames.joined() }
    public var timesNeverGoBack: Bool { zip(events, events.dropFirst()).allSatisfy { $0.time <= $1.time } }
}
