import Foundation
import SyncCore
import SyncServer

/// One measured figure, with its goal when it has one.
struct BenchmarkFigure {
    enum Goal {
        case atMost(Double)
        case atLeast(Double)
    }

    var key: String
    var label: String
    var value: Double
    var unit: String
    var goal: Goal?

    var met: Bool? {
        switch goal {
        case .atMost(let limit)?: value <= limit
        case .atLeast(let floor)?: value >= floor
        case nil: nil
        }
    }
}
