import Testing
@testable import SyncScenarioRunner
