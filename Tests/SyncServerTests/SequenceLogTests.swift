import Testing
@testable import SyncServer

/// ``SequenceLog/walkLive(from:_:)``: the one walk every change fetch makes.
@Suite struct SequenceLogTests {
    /// A log of a…e, with b and d superseded by later changes of the same keys.
    func log() -> SequenceLog<String> {
        var log = SequenceLog<String>()
        for key in ["a", "b", "c", "d", "e"] { log.append(key) }
        log.remove(2)
        log.append("b")
        log.remove(4)
        log.append("d")
        return log
    }

    @Test func walksTheLiveEntriesInOrderAndReachesTheEnd() {
        var log = log()
        var seen: [String] = []
        let stoppedAt = log.walkLive(from: 1) { sequence, key in
            seen.append("\(sequence):\(key)")
            return true
        }
        #expect(seen == ["1:a", "3:c", "5:e", "6:b", "7:d"])
        #expect(stoppedAt == nil)
    }

    @Test func startsAtTheFirstLiveEntryAtOrAfterTheSequenceGiven() {
        var log = log()
        var seen: [Int64] = []
        _ = log.walkLive(from: 2) { sequence, _ in
            seen.append(sequence)
            return true
        }
        #expect(seen == [3, 5, 6, 7])
        var none: [Int64] = []
        #expect(log.walkLive(from: 8) { sequence, _ in none.append(sequence); return true } == nil)
        #expect(none.isEmpty)
    }

    @Test func stopsWhereTheVisitSaysAndAnswersTheEntryItDidNotTake() {
        var log = log()
        var taken: [String] = []
        let stoppedAt = log.walkLive(from: 1) { _, key in
            guard taken.count < 2 else { return false }
            taken.append(key)
            return true
        }
        #expect(taken == ["a", "c"])
        #expect(stoppedAt == 5)
        // The walk can resume from there, and the dead entries it passed stay skipped.
        var rest: [String] = []
        #expect(log.walkLive(from: 5) { _, key in rest.append(key); return true } == nil)
        #expect(rest == ["e", "b", "d"])
    }
}
