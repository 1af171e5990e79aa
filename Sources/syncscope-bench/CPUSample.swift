import Foundation
import Logging
import Synchronization
import SyncCore
import SyncWire
import SyncNetwork
import SyncPostgres
import SyncServerHTTP

/// CPU time used so far, in seconds: by each node process, by this process, by the whole machine.
struct CPUSample {
    var wall: Double
    var nodes: [Double]
    var client: Double
    var machine: Double

    init(nodes: [NodeProcess]) {
        wall = Double(DispatchTime.now().uptimeNanoseconds) / 1e9
        self.nodes = nodes.map { Self.processSeconds($0.pid) }
        var usage = rusage()
        #if os(Linux)
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        client = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        machine = Self.machineBusySeconds()
    }

    private init(wall: Double, nodes: [Double], client: Double, machine: Double) {
        self.wall = wall
        self.nodes = nodes
        self.client = client
        self.machine = machine
    }

    func since(_ earlier: CPUSample) -> CPUSample {
        CPUSample(
            wall: max(wall - earlier.wall, 1e-9), nodes: zip(nodes, earlier.nodes).map { $0 - $1 }, client: client - earlier.client,
            machine: machine - earlier.machine)
    }

    static var ticksPerSecond: Double { Double(max(1, sysconf(Int32(_SC_CLK_TCK)))) }

    /// utime + stime from `/proc/PID/stat` (0 where there is no `/proc`).
    static func processSeconds(_ pid: Int32) -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = text.lastIndex(of: ")") else { return 0 }
        // After the command's closing parenthesis: field 3 (state) onwards; utime and stime are fields 14 and 15.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / ticksPerSecond
    }

    /// Busy time of every core together, from `/proc/stat` (all but idle and I/O wait).
    static func machineBusySeconds() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8), let line = text.split(separator: "\n").first, line.hasPrefix("cpu ") else { return 0 }
        let values = line.split(separator: " ").dropFirst().compactMap { Double($0) }
        guard values.count >= 5 else { return 0 }
        // user nice system idle iowait irq softirq steal (guest times are inside user already).
        let busy = values.prefix(8).enumerated().filter { $0.offset != 3 && $0.offset != 4 }.map(\.element).reduce(0, +)
        return busy / ticksPerSecond
    }
}
