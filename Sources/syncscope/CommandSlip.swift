import Foundation
import SyncScenario

/// What `syncscope` answers, before the argument parser, to a command it
/// does not have: `syncscope lesosn 06` and `syncscope help lesosn` name the
/// command meant, on standard error, and fail (the parser alone would take
/// the first for the inspector's arguments and print the top-level help, with
/// success, for the second). `syncscope help api` is answered here too: the
/// API reference, carried inside the program.
enum CommandSlip {
    /// What to print and the exit status, or `nil`: the parser's to handle.
    struct Answer: Equatable {
        var standardOutput: String = ""
        var standardError: String = ""
        var status: Int32
    }

    /// The commands a person types (the hidden `bench` too: it says where the benchmarks went).
    static var commands: [String] {
        SyncScopeCommand.configuration.subcommands.map { $0.configuration.commandName ?? "" }.filter { !$0.isEmpty }
    }

    /// The commands listed to a person (not the hidden ones).
    static var listedCommands: [String] {
        SyncScopeCommand.configuration.subcommands
            .filter { $0.configuration.shouldDisplay }
            .compactMap { $0.configuration.commandName }
    }

    /// `help`'s own topics besides the commands.
    static let helpTopics = ["api"]

    static func answer(_ arguments: [String], apiReference: () -> String?) -> Answer? {
        guard let first = arguments.first else { return nil }
        if first == "help", arguments.count >= 2 {
            let topic = arguments[1]
            if topic == "api" {
                guard let text = apiReference() else {
                    return Answer(standardError: "syncscope: this build carries no API reference (its resources are missing).\n", status: 1)
                }
                return Answer(standardOutput: text.hasSuffix("\n") ? text : text + "\n", status: 0)
            }
            guard !commands.contains(topic), !topic.hasPrefix("-") else { return nil }
            return unknown(topic, status: 64, help: true)
        }
        // The default command (the inspector) takes options only: a first
        // word that is no command is a slip.
        guard !first.hasPrefix("-"), first != "help", !commands.contains(first) else { return nil }
        return unknown(first, status: 64, help: false)
    }

    private static func unknown(_ word: String, status: Int32, help: Bool) -> Answer {
        let candidates = listedCommands + (help ? helpTopics : [])
        var text = "syncscope: there is no command '\(word)'"
        if let match = Suggestions.closest(to: word, in: candidates), match != word {
            text += "; did you mean '\(match)'?"
            if !help {
                let rest = CommandLine.arguments.count > 2 ? " " + CommandLine.arguments.dropFirst(2).joined(separator: " ") : ""
                text += " (syncscope \(match)\(rest))"
            }
        } else {
            text += "."
        }
        text += "\nCommands: \(listedCommands.joined(separator: ", ")); `syncscope help COMMAND` says more, `syncscope help api` prints the API reference.\n"
        return Answer(standardError: text, status: status)
    }
}
