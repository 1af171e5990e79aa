import ArgumentParser
import Foundation
import SyncServerHTTP

@main
struct SyncScopeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "syncscope",
        abstract: "See how CloudKit-style change-token sync works.",
        discussion: """
            SyncScope simulates a CloudKit server (databases, zones, change history, \
            signed change tokens) and devices that sync with it. With no subcommand it \
            opens the inspector. `syncscope inspect --server URL` opens it on a running \
            `syncscope serve` instead: every client of the server, live, its token history \
            and the sync doctor's diagnoses. `syncscope help api` prints the reference of \
            the CloudKit Web Services API that `syncscope serve` answers.
            """,
        version: "0.1.0",
        subcommands: [
            InspectCommand.self, LessonCommand.self, DemoCommand.self, RunCommand.self, LessonsCommand.self, ServeCommand.self,
            ClientCommand.self, DeviceCommand.self, DoctorCommand.self, SchemaCommand.self, ExploreCommand.self, BenchMovedCommand.self,
        ],
        defaultSubcommand: InspectCommand.self
    )

    /// A mistyped command, or `help api`, is answered before the parser (``CommandSlip``).
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if let answer = CommandSlip.answer(arguments, apiReference: { WebServicesReference.markdown }) {
            FileHandle.standardOutput.write(Data(answer.standardOutput.utf8))
            FileHandle.standardError.write(Data(answer.standardError.utf8))
            Foundation.exit(answer.status)
        }
        await main(arguments)
    }
}
