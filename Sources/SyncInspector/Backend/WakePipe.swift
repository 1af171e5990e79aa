#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A self-pipe: any thread writes a byte to wake the loop, which waits on
/// the pipe's read end beside standard input (`poll(2)`; see
/// ``TerminalBackend/readKey(timeoutMs:wakingOn:)``). So the loop blocks
/// until a key, the end of an effect or its timer, and never spins.
public final class WakePipe: Sendable {
    /// The end the loop waits on.
    public let readEnd: Int32
    private let writeEnd: Int32

    public init() {
        var ends: [Int32] = [-1, -1]
        let made = ends.withUnsafeMutableBufferPointer { pipe($0.baseAddress!) } == 0
        precondition(made, "no pipe for waking the inspector's loop: the process is out of file descriptors")
        readEnd = ends[0]
        writeEnd = ends[1]
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    /// Wakes the loop (from any thread). A full pipe already will.
    public func wake() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Empties the pipe (the loop, once woken).
    public func drain() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while bytes.withUnsafeMutableBytes({ read(readEnd, $0.baseAddress, $0.count) }) > 0 {}
    }
}
