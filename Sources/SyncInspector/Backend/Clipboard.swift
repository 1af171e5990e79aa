/// Copying text to the clipboard of the terminal the inspector runs in,
/// with the OSC 52 escape sequence (`ESC ] 52 ; c ; base64 BEL`).
///
/// A program cannot ask a terminal whether it honours OSC 52, so the
/// inspector says what it sent and how to tell whether it worked. Inside
/// tmux the sequence is sent twice: as it is (tmux copies it with
/// `set-clipboard on`) and wrapped for tmux to pass on to the outer terminal
/// (`allow-passthrough on`).
public enum Clipboard {
    /// How the text went out.
    public enum Outcome: Hashable, Sendable {
        /// The sequence went to the terminal (`viaTmux`: also wrapped for tmux).
        case sent(viaTmux: Bool)
        /// This terminal has no way to take it (a test backend that keeps
        /// nothing, output that is not a terminal).
        case unavailable(String)
    }

    /// The most characters copied; terminals refuse (or cut) longer OSC 52 payloads.
    public static let limit = 8_000

    /// The bytes that put `text` on the clipboard: OSC 52 (and, inside tmux,
    /// the same sequence in tmux's passthrough wrapper after it).
    public static func sequence(for text: String, insideTmux: Bool) -> [UInt8] {
        let payload = base64(Array(text.utf8))
        let osc = Array("\u{1B}]52;c;".utf8) + payload + [0x07]
        guard insideTmux else { return osc }
        // tmux passthrough: ESC P tmux; <sequence with every ESC doubled> ESC \
        var wrapped = Array("\u{1B}Ptmux;".utf8)
        for byte in osc {
            if byte == 0x1B { wrapped.append(0x1B) }
            wrapped.append(byte)
        }
        wrapped += [0x1B, 0x5C]
        return osc + wrapped
    }

    /// What the message line says after `y`.
    public static func message(copied what: String, outcome: Outcome) -> InspectorMessage {
        switch outcome {
        case .sent(let viaTmux):
            let tmux = viaTmux ? " (inside tmux: needs set-clipboard on, or allow-passthrough on)" : ""
            return InspectorMessage(
                "Copied \(what): sent to the terminal's clipboard (OSC 52)\(tmux). If nothing arrived, your terminal does not support OSC 52.",
                kind: .success)
        case .unavailable(let why):
            return InspectorMessage("Could not copy \(what): \(why)", kind: .warning)
        }
    }

    /// Standard base64 (RFC 4648, with padding).
    static func base64(_ bytes: [UInt8]) -> [UInt8] {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= bytes.count {
            let n = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)], alphabet[Int(n & 63)]]
            index += 3
        }
        let rest = bytes.count - index
        if rest == 1 {
            let n = UInt32(bytes[index]) << 16
            out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)], 0x3D, 0x3D]
        } else if rest == 2 {
            let n = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8
            out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)], 0x3D]
        }
        return out
    }
}

extension TerminalBackend {
    /// By default a backend cannot copy; ``NcursesBackend`` and ``TestBackend`` can.
    public func copyToClipboard(_ text: String) -> Clipboard.Outcome {
        .unavailable("this terminal backend cannot reach a clipboard.")
    }
}
