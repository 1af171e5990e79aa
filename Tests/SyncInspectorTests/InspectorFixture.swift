import SyncCore
import SyncServer
import SyncSimulation
import SyncWorlds
import Testing
@testable import SyncInspector
import SyncInspectorWorlds

/// Real time that moves only when a test says so: a ``VirtualClock`` standing in for the wall clock.
typealias FakeRealClock = VirtualClock

/// The demo world with the writer stopped and the clock paused, in a
/// controller laid out for `size`.
func makeInspector(
    seed: UInt64? = nil, size: Size = Size(width: 80, height: 24), paused: Bool = true, writer: Bool = false,
    writerInterval: Milliseconds = 3_000, speed: Double = 1, realClock: FakeRealClock = FakeRealClock()
) async throws -> InspectorController {
    let world = try await DemoWorld.make(seed: seed, writerRunning: writer, writerInterval: writerInterval)
    return await InspectorController(
        simulation: world.simulation, keepAlive: world.runner, paused: paused, speed: speed, screenSize: size, realClock: realClock)
}

extension InspectorController {
    func press(_ keys: KeyEvent...) async {
        for key in keys { await handle(key) }
    }

    /// Types text, one character at a time.
    func type(_ text: String) async {
        for character in text { await handle(.character(character)) }
    }

    func device(_ name: String) throws -> SyncDevice {
        try #require(simulation.device(named: name))
    }

    /// Focuses a device by name with the number keys.
    func focus(_ name: String) async throws {
        let index = try #require(state.snapshot.devices.firstIndex { $0.name == name })
        await handle(.character(Character("\(index + 1)")))
        #expect(state.device?.name == name)
    }

    /// Selects a zone of the zones pane by its displayed name.
    func selectZone(_ name: String) async throws {
        let user = state.device?.user ?? ""
        for _ in InspectorPane.allCases where state.pane != .zones { await handle(.tab) }
        for _ in 0..<state.snapshot.zones.count where state.zone?.displayName(for: user) != name {
            await handle(.character("j"))
        }
        for _ in 0..<state.snapshot.zones.count where state.zone?.displayName(for: user) != name {
            await handle(.character("k"))
        }
        #expect(state.zone?.displayName(for: user) == name)
    }

    /// Selects a record of the records pane by name.
    func selectRecord(_ name: String) async throws {
        for _ in InspectorPane.allCases where state.pane != .records { await handle(.tab) }
        await handle(.character("g"))
        for _ in 0..<state.snapshot.records.count where state.record?.name != name { await handle(.character("j")) }
        try #require(state.record?.name == name, "no record \(name) in \(state.snapshot.records.rows.map(\.name))")
    }

    /// The label of the focused field of the open form.
    var focusedField: String? {
        guard case .form(_, let form)? = state.overlay, form.fields.indices.contains(form.focus) else { return nil }
        return form.fields[form.focus].label
    }

    /// Opens the edit form of the selected record, replaces one field and submits.
    func editField(_ label: String, to text: String) async throws {
        await handle(.character("e"))
        guard case .form(_, let form)? = state.overlay else {
            Issue.record("no edit form: \(lines.joined(separator: "\n"))")
            return
        }
        for _ in form.fields where focusedField != label { await handle(.tab) }
        try #require(focusedField == label, "no field \(label) in \(form.fields.map(\.label))")
        await press(.control("a"), .control("k"))
        await type(text)
        await handle(.enter)
    }

    /// Lets the simulation run: pushes arrive, devices fetch.
    func settle() async {
        await simulation.settle()
        await refresh()
    }

    /// The lines of the current frame.
    var lines: [String] { frame().lines() }

    /// The text inside one pane (without its border), line by line.
    func pane(_ pane: InspectorPane) -> [String] {
        let rect = state.layout.rect(of: pane).inset(by: 1)
        let frame = frame()
        return (rect.y..<rect.maxY).map { y in
            var line = ""
            for x in rect.x..<rect.maxX where !frame[x: x, y: y].isContinuation { line += frame[x: x, y: y].text }
            return line
        }
    }

    /// The title line of a pane (its top border).
    func title(of pane: InspectorPane) -> String {
        let rect = state.layout.rect(of: pane)
        let line = frame().lines()[rect.y]
        return String(line.dropFirst(rect.x).prefix(rect.width))
    }
}

extension Array where Element == String {
    /// The first line containing `text`.
    func line(containing text: String) -> String? { first { $0.contains(text) } }
}

let notesZone = DemoWorld.notes
