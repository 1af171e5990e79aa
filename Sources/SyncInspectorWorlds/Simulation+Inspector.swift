import SyncCore
import SyncInspector
import SyncServer
import SyncSimulation
import SyncWorlds

/// The faults overlay (`!`) injects into the in-process server.
extension Simulation: FaultInjectingWorld {
    public func injectFault(_ rule: FaultRule) {
        addFaults(FaultPlan([rule]))
    }

    public func clearInjectedFaults() {
        clearFaults()
    }
}

extension InspectorController {
    /// An inspector on an in-process simulation (the demo world, a lesson's world).
    public convenience init(
        simulation: Simulation, lesson: LessonSession? = nil, keepAlive: AnyObject? = nil, paused: Bool = false, speed: Double = 1,
        screenSize: Size = Size(width: 80, height: 24), theme: Theme = .monochrome, realClock: any SyncClock = SystemClock(),
        log: InspectorLog? = nil
    ) async {
        await self.init(
            world: simulation, lesson: lesson, keepAlive: keepAlive, paused: paused, speed: speed, screenSize: screenSize,
            theme: theme, realClock: realClock, log: log)
    }

    /// The world as an in-process simulation, for callers that built the
    /// controller with one (tests, benchmarks). The inspector itself goes
    /// through ``InspectorController/world`` and never asks for this.
    public var simulation: Simulation {
        guard let simulation = world as? Simulation else {
            preconditionFailure("InspectorController.simulation asked of a world that is not a Simulation; use world.")
        }
        return simulation
    }
}
