import Foundation
import SyncInspector
import SyncScenarioRunner

/// A headless run's transcript as an asciinema v2 recording, for slides:
/// the same text `syncscope run` prints, paced like a person reading it —
/// a pause before each step, a longer one after narrative, lines of a
/// batch in quick succession. The pacing comes from the text alone, so the
/// same run gives the same file, byte for byte.
final class TranscriptCast {
    static let width = 100
    static let height = 40

    private let writer: AsciicastWriter
    private var time: Double = 0

    init(path: String, title: String) throws(AsciicastError) {
        writer = try AsciicastWriter(path: path, width: Self.width, height: Self.height, title: title)
    }

    /// Adds one transcript event's text.
    func add(_ event: TranscriptEvent, text: String) throws(AsciicastError) {
        switch event.kind {
        case .step: time += 0.8
        case .say, .scenario: time += 0.4
        default: time += 0.1
        }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        for (index, line) in lines.enumerated() {
            if index > 0 { time += 0.05 }
            try writer.output(String(line) + "\r\n", at: time)
        }
        if case .say(let words) = event.kind {
            // Time to read it: about 40 characters a second, at most six seconds.
            time += min(6, 1 + Double(words.count) / 40)
        }
    }
}
