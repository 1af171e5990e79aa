import Foundation
import Testing

/// A terminal that cannot move the cursor (TERM=dumb) used to get a blank
/// screen and a stale clock; now the inspector says why and stops.
@Suite struct DumbTerminalTests {
    @Test(.enabled(if: TmuxSession.isAvailable, "tmux is not installed: this test needs it (apt-get install tmux)."))
    func theInspectorOnADumbTerminalSaysWhyAndStops() async throws {
        let binary = BinaryRunner.binaryURL.path
        let tmux = try TmuxSession(
            command: "TERM=dumb \(TmuxSession.quote(binary)); echo \"exit status $?\"; sleep 60", width: 100, height: 30)
        let deadline = ContinuousClock.now + .seconds(30)
        var screen = try tmux.screen()
        while !screen.contains("exit status"), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            screen = try tmux.screen()
        }
        let text = screen.replacingOccurrences(of: "\n", with: "")
        #expect(text.contains("exit status 1"), "\(screen)")
        #expect(text.contains("This terminal (TERM=dumb) cannot move the cursor"), "\(screen)")
        #expect(text.contains("syncscope run LESSON"), "\(screen)")
    }
}
