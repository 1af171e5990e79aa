import SyncCore

/// Keeps a world alive: every `interval` of its time (virtual, or real on a live server), one of the
/// writing devices creates, edits or deletes a note.
public final class DemoWriter {
    public var interval: Milliseconds
    public var isRunning: Bool {
        didSet { if isRunning && !oldValue { nextActionTime = nil } }
    }
    /// Device names that write, in turn chosen at random.
    public var writers: [String]
    /// Zone to write into, per device name (zones the device's user owns or shares).
    public var zones: [String: RecordZoneID]
    public private(set) var actions = 0
    private var random: SeededRandom
    private var scheduled: Milliseconds?
    private var counter = 0
    private var lastTime: Milliseconds = 0

    public init(seed: UInt64, interval: Milliseconds = 3_000, writers: [String], zones: [String: RecordZoneID], running: Bool = true) {
        self.interval = max(1, interval)
        self.writers = writers
        self.zones = zones
        self.isRunning = running
        random = SeededRandom(seed: seed).derived(0x57_52_49_54)
    }

    /// When the writer acts next (while running).
    public var nextActionTime: Milliseconds? {
        get { scheduled ?? (lastTime + interval) }
        set { scheduled = newValue }
    }

    func act(in simulation: SyncWorld) async {
        lastTime = simulation.clock.now()
        scheduled = lastTime + interval
        let candidates = writers.compactMap { name in simulation.device(named: name) }.filter { $0.isOnline && zones[$0.name] != nil }
        guard !candidates.isEmpty else { return }
        let device = candidates[Int(random.next() % UInt64(candidates.count))]
        guard let zoneID = zones[device.name] else { return }
        await write(on: device, zoneID: zoneID, in: simulation)
    }

    /// Makes `count` saves at once from one device (a write burst).
    public func burst(_ count: Int, on device: SyncDevice, in simulation: SyncWorld) async {
        guard let zoneID = zones[device.name] else { return }
        simulation.note("write burst: \(count) saves", device: device.name)
        for _ in 0..<max(0, count) {
            counter += 1
            let record = Record(
                recordID: RecordID(recordName: "burst-\(counter)", zoneID: zoneID), recordType: "Note",
                fields: ["title": .string("Burst note \(counter)"), "body": .string("written in a burst")])
            try? device.engine.save(record)
        }
        await simulation.perform("send burst", on: device) { _ in }
        actions += count
    }

    private func write(on device: SyncDevice, zoneID: RecordZoneID, in simulation: SyncWorld) async {
        actions += 1
        // The record to delete or edit is drawn by its offset in record-name
        // order, read from the store without listing the zone, so a change
        // costs the same in a zone of ten records or of a hundred thousand.
        let existing = device.cachedRecordCount(in: zoneID)
        let roll = random.next() % 10
        if roll < 2 && existing > 3 {
            guard let victim = device.cachedRecord(atOffset: Int(random.next() % UInt64(existing)), in: zoneID) else { return }
            await simulation.delete(victim.recordID, on: device)
        } else if roll < 6 && existing > 0 {
            guard var record = device.cachedRecord(atOffset: Int(random.next() % UInt64(existing)), in: zoneID) else { return }
            counter += 1
            record["body"] = .string("edited by \(device.name) (\(counter))")
            await simulation.save(record, on: device)
        } else {
            counter += 1
            let titles = ["Groceries", "Ideas", "Call Bob", "Recipe", "Packing list", "Books", "Gift ideas", "Plans"]
            let title = titles[Int(random.next() % UInt64(titles.count))]
            let record = Record(
                recordID: RecordID(recordName: "note-\(device.name.lowercased())-\(counter)", zoneID: zoneID), recordType: "Note",
                fields: ["title": .string(title), "body": .string("written by \(device.name)")])
            await simulation.save(record, on: device)
        }
    }
}
