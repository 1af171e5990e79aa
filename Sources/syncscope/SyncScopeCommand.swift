import ArgumentParser

@main
struct SyncScopeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "syncscope",
        abstract: "See how CloudKit-style change-token sync works.",
        discussion: """
            SyncScope simulates a CloudKit server (databases, zones, change history, \
            signed change tokens) and devices that sync with it. With no subcommand it \
            opens the inspector.
            """,
        version: "0.1.0",
        subcommands: [
            InspectCommand.self, LessonCommand.self, DemoCommand.self, RunCommand.self, LessonsCommand.self, ServeCommand.self,
            ClientCommand.self, DeviceCommand.self, DoctorCommand.self, SchemaCommand.self, ExploreCommand.self, BenchMovedCommand.self,
        ],
        defaultSubcommand: InspectCommand.self
    )
}
