import Foundation
import SyncCore
import SyncServer

struct BenchmarkResults {
    var figures: [BenchmarkFigure] = []

    func table() -> String {
        var lines = [pad("figure", 50) + " " + pad("value", 17) + " " + pad("goal", 13), String(repeating: "-", count: 88)]
        for figure in figures {
            let value = (figure.unit.isEmpty ? Self.count(figure.value) : Self.format(figure.value) + " " + figure.unit)
            let goal: String
            switch figure.goal {
            case .atMost(let v)?: goal = "≤ \(Self.format(v))"
            case .atLeast(let v)?: goal = "≥ \(Self.format(v))"
            case nil: goal = ""
            }
            let verdict = figure.met.map { $0 ? "met" : "MISSED" } ?? ""
            lines.append(pad(figure.label, 50) + " " + pad(value, 17) + " " + pad(goal, 13) + " " + verdict)
        }
        return lines.joined(separator: "\n")
    }

    func json() -> String {
        let body = figures.map { "\"\($0.key)\": \(Self.jsonNumber($0.value))" }.joined(separator: ", ")
        return "{\(body)}"
    }

    private func pad(_ s: String, _ width: Int) -> String {
        s.count >= width ? s : s + String(repeating: " ", count: width - s.count)
    }

    static func format(_ v: Double) -> String {
        guard v.isFinite else { return "n/a" }
        if v >= 1000 { return grouped(Int(v.rounded())) }
        if v >= 10 { return String(format: "%.1f", v) }
        return String(format: "%.3f", v)
    }

    /// A count: a whole number, grouped.
    static func count(_ v: Double) -> String {
        v.isFinite ? grouped(Int(v.rounded())) : "n/a"
    }

    /// 1234567 → "1,234,567", so that large figures read at a glance.
    static func grouped(_ n: Int) -> String {
        let digits = String(n.magnitude)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return n < 0 ? "-" + out : out
    }

    static func jsonNumber(_ v: Double) -> String {
        guard v.isFinite else { return "null" }
        return String(format: "%.6g", v)
    }
}
