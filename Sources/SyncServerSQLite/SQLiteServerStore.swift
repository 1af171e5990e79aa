import Foundation
import SyncServerHost
import GRDB
import Synchronization
import SyncCore
import SyncServer

/// The data folder of one `syncscope serve` (`--data`): the journal in
/// SQLite (``Journal``), committed several calls per transaction
/// (``GroupCommitter``), `admin.json` and `users.json`.
///
/// Rules:
/// - The engine step is the order: a call that changed the state is queued
///   as the next row under the host's lock, right after its step, and the
///   call is answered once that row (and every row before it) is committed.
///   A read waits for the last row queued before it (its answer may show it).
/// - Checkpoints are taken under the host's lock after a row, once as many
///   rows came as ``ServeOptions/checkpointEvery`` (or half the records the
///   last one held, when more), one at a time; the committer encodes them off the lock.
/// - A history with a hole is refused by name, never started as new state:
///   a checkpoint missing while `meta` (or SQLite's row counter) shows rows
///   were folded into one, a checkpoint older than the one `meta` names, a
///   row missing between the checkpoint and the last row written.
package final class SQLiteServerStore: OneNodeStore {
    package let directory: URL
    package let recover: Bool
    /// ``ServeOptions/checkpointEvery``.
    package let checkpointEvery: Int
    package let journal: Journal
    /// Commits journal rows off the state lock, several per transaction.
    package let committer: GroupCommitter
    /// The number of the last row ever written when the folder was opened.
    package let lastSeq: Int64
    private let meta: [String: String]
    /// Whether ``open(options:)`` found a checkpoint (for the start-up banner).
    private let foundCheckpoint = Atomic<Bool>(false)

    package var name: String { "the data folder \(directory.path)" }

    /// Opens the folder's database (and takes the folder's lock). Throws a
    /// ``ServeError`` naming the folder when it cannot be used.
    package init(directory: URL, options: ServeOptions) throws {
        self.directory = directory
        recover = options.recover
        checkpointEvery = options.checkpointEvery
        do {
            journal = try Journal(directory: directory, recover: recover)
            meta = try journal.meta()
            try DataFolderCheck.checkUsed(directory, meta: meta, recover: recover)
            lastSeq = try journal.lastSeq()
        } catch let error as DataFolderLock.InUse {
            throw ServeError(
                "Another syncscope serve\(error.pid.map { " (process \($0))" } ?? "") is using the data folder \(error.path). Stop it, or pass another --data folder, or --in-memory.")
        } catch let error as ServeError {
            throw error
        } catch {
            throw ServeError(
                "Cannot open the data folder \(directory.path): \(ServerHost.explain(error, at: directory)) Pass another --data folder, or --in-memory.")
        }
        committer = GroupCommitter(journal: journal, lastSeq: lastSeq)
    }

    deinit {
        committer.finish()
    }

    package func open(options: ServeOptions) async throws -> StoreOpening {
        var generator = SystemRandomNumberGenerator()
        let seed = meta["seed"].flatMap { UInt64($0) } ?? options.seed ?? UInt64.random(in: 1...UInt64.max, using: &generator)
        let storedRetention = meta["retention"].map { Int($0) ?? -1 }.flatMap { $0 < 0 ? nil : $0 }
        let storedWindow = meta["coalescingWindow"].flatMap { Milliseconds($0) }
        let madeWith = ServerHost.Settings(
            retention: meta["seed"] == nil ? options.retention : storedRetention, coalescingWindow: storedWindow ?? options.coalescingWindow)
        let checkpoint: Journal.Checkpoint?
        do { checkpoint = try journal.checkpoint() } catch let error as ServeError { throw error } catch {
            throw ServeError("The data in \(journal.path) cannot be read back: \(error)")
        }
        try checkHistory(checkpoint)
        foundCheckpoint.store(checkpoint != nil, ordering: .relaxed)
        return StoreOpening(
            seed: seed, settings: madeWith, adminToken: try ServerHost.loadOrMakeAdminToken(directory),
            checkpoint: checkpoint.map { StoreCheckpoint(through: $0.throughSeq, time: $0.time, state: $0.state) })
    }

    /// Refuses a checkpoint that went missing or was replaced by an older one.
    private func checkHistory(_ checkpoint: Journal.Checkpoint?) throws {
        let through = checkpoint?.throughSeq ?? 0
        let recorded = meta[Journal.checkpointMetaKey].flatMap { Int64($0) } ?? 0
        let fix = "Restore the data folder from a copy, or pass another --data folder."
        if checkpoint == nil, recorded > 0 {
            throw ServeError(
                "The data folder \(directory.path) has lost its checkpoint: its history goes through journal row \(recorded), folded into a checkpoint that \(journal.path) no longer holds, so starting would lose the state. \(fix)")
        }
        if through < recorded {
            throw ServeError(
                "The data folder \(directory.path) holds a checkpoint through journal row \(through), older than the one it wrote (through row \(recorded)): the rows between were folded into the newer one, which is gone. \(fix)")
        }
    }

    /// A hole between the checkpoint and the rows, or after the last row.
    private func hole(from first: Int64, to last: Int64) -> ServeError {
        let rows = first == last ? "row \(first) is" : "rows \(first) to \(last) are"
        return ServeError(
            "The data folder \(directory.path) has a hole in its history: journal \(rows) missing from \(journal.path) (rows are numbered without gaps, and only a checkpoint deletes them), so starting would lose those calls. Restore the data folder from a copy, or pass another --data folder.")
    }

    package func replay(after position: Int64, into host: ServerHost) async throws -> [String] {
        var report: [String] = []
        if foundCheckpoint.load(ordering: .relaxed) { report.append("restored the checkpoint") }
        let wanted = ServerHost.Settings(retention: host.options.retention, coalescingWindow: host.options.coalescingWindow)
        do {
            // The records the rows will save, by zone, counted up front: each
            // zone's tables are sized once instead of regrowing (and
            // rehashing every record) again and again as the replay fills them.
            let expected = try Self.expectedRecords(in: journal, after: position)
            host.state.withLock { $0.core.engine.expectRecords(expected) }
            defer { host.state.withLock { $0.core.engine.expectRecords([:]) } }
            // One pass: each row's checksum is checked as it is replayed; a
            // damaged row stops the replay there (the rows before it stay applied).
            var next = position + 1
            var rows: [StoreRow] = []
            rows.reserveCapacity(Self.replayBatch)
            let (replayed, damaged) = try journal.replay(after: position) { seq, time, call in
                guard seq == next else { throw hole(from: next, to: seq - 1) }
                next += 1
                rows.append(StoreRow(position: seq, time: time, call: call, origin: nil))
                if rows.count == Self.replayBatch {
                    try host.apply(rows)
                    rows.removeAll(keepingCapacity: true)
                }
            }
            try host.apply(rows)
            var dropped = 0
            if let damaged {
                let calls = damaged.rowsFromIt == 1 ? "1 call" : "\(damaged.rowsFromIt) calls"
                guard recover else {
                    throw ServeError(
                        "Journal row \(damaged.seq) in \(journal.path) is damaged (\(damaged.why)); it and the rows after it hold the last \(calls) this server acknowledged. Start with --recover to drop them (those \(calls) are lost), or restore the data folder from a copy.")
                }
                try journal.dropRows(from: damaged.seq)
                dropped = damaged.rowsFromIt
                host.dropped.store(dropped, ordering: .relaxed)
                report.append("--recover dropped \(calls) from the damaged journal row \(damaged.seq) on (\(damaged.why)): \(calls) lost")
            } else if next - 1 < lastSeq {
                throw hole(from: next, to: lastSeq)
            }
            if replayed > 0 { report.append("replayed \(replayed) journal row\(replayed == 1 ? "" : "s")") }
            let madeWith = ServerHost.Settings(
                retention: host.state.withLock { $0.core.engine.configuration.retention },
                coalescingWindow: host.state.withLock { $0.core.push.configuration.coalescingWindow })
            if madeWith != wanted {
                // Settings live in the engine's configuration: carry the state over exactly.
                let file = try host.state.withLock { (state: inout ServerHost.State) throws -> ServerStateFile in
                    let file = ServerHost.checkpointFile(state.core)
                    state.core = ServerHost.makeCore(seed: state.core.engine.configuration.seed, settings: wanted, clock: host.clock)
                    try ServerHost.restore(file, into: state.core)
                    return file
                }
                try writeCheckpoint(file, host)
                report.append("now with \(wanted)")
            } else if dropped > 0 {
                try writeCheckpoint(host.state.withLock { ServerHost.checkpointFile($0.core) }, host)
            } else if replayed >= 1000 {
                // Many rows replayed: a checkpoint of the state they built, so the
                // next start does not replay them again. It is taken now and
                // encoded on the committer's checkpoint thread and committed in
                // order with the rows after it, while the server already answers; a kill -9
                // before it is written only means the next start replays them again.
                host.state.withLock { (state: inout ServerHost.State) in
                    _ = queueCheckpoint(time: host.clock.now(), &state)
                }
            }
            let seed = host.state.withLock { $0.core.engine.configuration.seed }
            try journal.setMeta([
                "seed": String(seed), "retention": wanted.retention.map(String.init) ?? "none",
                "coalescingWindow": String(wanted.coalescingWindow), "format": "2",
            ])
        } catch let error as CloudError {
            throw ServeError("The data in \(journal.path) cannot be read back: \(error.reason)")
        } catch let error as ServeError {
            throw error
        } catch {
            throw ServeError("The data in \(journal.path) cannot be read back: \(error)")
        }
        return report
    }

    /// Rows handed to ``ServerHost/apply(_:)`` at a time while replaying.
    package static let replayBatch = 256

    /// Writes a checkpoint of `file` as of the last row ever written, at start-up (before any call).
    private func writeCheckpoint(_ file: ServerStateFile, _ host: ServerHost) throws {
        try journal.writeCheckpoint(try CheckpointFormat.encode(file), through: lastSeq, time: host.clock.now())
        host.state.withLock { $0.checkpointedThrough = lastSeq }
    }


    package func perform(_ prepared: PreparedCall, on host: ServerHost) async -> StoreOutcome {
        var done = host.step(prepared, delivering: true)
        guard let ticket = done.ticket else { return done }
        // The answer is worded before the wait, while earlier rows may be
        // committing: the wait then often finds this row durable already and
        // the call goes on without suspending. It is sent only once its row
        // is durable all the same (a failure replaces it with a 503).
        let answer = done.outcome.answer()
        done.outcome = StepOutcome(changedState: done.outcome.changedState, answer: { answer })
        if let failure = await committer.waitUntilDurable(ticket) {
            done.failure = failure
            host.failStorage(failure)
        }
        return done
    }

    package func keep(_ prepared: PreparedCall, changed: Bool, at time: Milliseconds, _ state: inout ServerHost.State) -> Int64? {
        if changed {
            committer.enqueueRow(time: time, call: prepared)
            state.rowsSinceCheckpoint += 1
            // One periodic checkpoint at a time: a second one queued behind it would hold another snapshot for nothing.
            if state.rowsSinceCheckpoint >= max(checkpointEvery, state.recordsAtCheckpoint / 2), !committer.checkpointUnderWay {
                _ = queueCheckpoint(time: time, &state)
            }
        }
        let ticket = committer.lastRowTicket
        return ticket == 0 ? nil : ticket
    }

    /// Queues a checkpoint of the state as it is now (taken under the lock;
    /// encoded on the committer's checkpoint thread and committed after the
    /// rows it holds) and starts counting rows towards the next one.
    private func queueCheckpoint(time: Milliseconds, _ state: inout ServerHost.State) -> GroupCommitter.CheckpointTicket {
        let (records, encode) = ServerHost.checkpointLater(state.core)
        let (ticket, through) = committer.enqueueCheckpoint(time: time, encode: encode)
        state.checkpointedThrough = through
        state.rowsSinceCheckpoint = 0
        state.recordsAtCheckpoint = records
        return ticket
    }

    package func checkpointNow(_ host: ServerHost) async {
        let ticket = host.state.withLock { (state: inout ServerHost.State) -> GroupCommitter.CheckpointTicket? in
            guard state.storageFailure == nil, self.committer.lastSeq > state.checkpointedThrough else { return nil }
            return queueCheckpoint(time: host.clock.tick(), &state)
        }
        guard let ticket else { return }
        let waiting = committer
        _ = await OwnThread.run { waiting.waitUntilDurableBlocking(ticket) }
    }

    /// Writes a checkpoint (whenever a journal row came after the last one,
    /// so the next start replays nothing), folds the WAL into
    /// `syncscope.sqlite` and closes it (the database file alone then holds everything).
    package func stop(_ host: ServerHost) async -> String {
        let first = host.state.withLock { (state: inout ServerHost.State) -> Bool in
            guard !state.stopped else { return false }
            state.stopped = true
            if state.storageFailure == nil, self.committer.failure == nil, self.committer.lastSeq > state.checkpointedThrough {
                _ = queueCheckpoint(time: host.clock.tick(), &state)
            }
            return true
        }
        guard first else { return "already stopped" }
        let (finishing, journal) = (committer, journal)
        return await OwnThread.run {
            if let failure = finishing.finish() {
                return "the state could not be folded into \(journal.path) (\(failure)); the journal keeps every acknowledged call"
            }
            do {
                try journal.close()
                return "state saved in \(journal.path)"
            } catch {
                return "the state could not be folded into \(journal.path) (\(error)); the journal keeps every acknowledged call"
            }
        }
    }

    package func abandon() async {
        let finishing = committer
        _ = await OwnThread.run { finishing.finish() }
    }

    package func usersChanged(_ users: [UserAccount]) throws {
        try UsersFile(users: users.map { UsersFile.User(name: $0.name, webAuthToken: $0.webAuthToken) }).write(to: directory)
    }


    /// The records the `records/modify` rows after `seq` save, by zone (read
    /// from each binary row's first bytes). A count too high (rows that change
    /// the same records again) only costs memory, so a row claiming more
    /// operations than a call may carry counts for nothing, and a zone's count
    /// stops at ``maxExpectedRecords``.
    package static func expectedRecords(in journal: Journal, after seq: Int64) throws -> [RecordZoneID: Int] {
        try journal.queue.read { db in
            var counts: [RecordZoneID: Int] = [:]
            let rows = try Row.fetchCursor(
                db, sql: "SELECT path, user, substr(body, 1, 1024) AS head FROM journal WHERE seq > ? AND path LIKE '%/records/modify'",
                arguments: [seq])
            while let row = try rows.next() {
                guard let head = row["head"] as Data?, let (zone, count) = JournaledCallBody.zoneAndOperationCount(head),
                      count <= APIDispatcher.maxOperations
                else { continue }
                let path: String = row["path"]
                var zoneID = zone
                if path.contains("/public/") {
                    zoneID = RecordZoneID(zoneName: zone.zoneName, ownerName: RecordZoneID.publicOwnerName)
                } else if zoneID.ownerName.isEmpty || zoneID.ownerName == RecordZoneID.currentUserName {
                    zoneID.ownerName = row["user"] ?? ""
                }
                counts[zoneID, default: 0] += count
            }
            return counts.mapValues { min($0, maxExpectedRecords) }
        }
    }

    /// The most records a replay makes room for in one zone up front.
    package static let maxExpectedRecords = 2_000_000
}
