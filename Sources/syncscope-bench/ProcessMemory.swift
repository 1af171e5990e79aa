import Foundation
import SyncCore
import SyncServer

/// Resident memory of this process, from /proc (Linux).
enum ProcessMemory {
    static func residentBytes() -> Int { field("VmRSS:") }
    static func peakResidentBytes() -> Int { field("VmHWM:") }

    /// Resets VmHWM to the current RSS so the peak measures what follows.
    static func resetPeak() {
        if let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") {
            handle.write(Data("5".utf8))
            try? handle.close()
        }
    }

    private static func field(_ name: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix(name) {
            let digits = line.split(separator: " ").compactMap { Int($0) }
            return (digits.first ?? 0) * 1024
        }
        return 0
    }
}
