import Foundation
import SyncServerHost
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether `syncscope serve` can listen on an address, checked before it
/// opens its data folder, so that a port in use stops it with a sentence
/// (and before it changes anything) rather than with a socket error later.
public enum ListenCheck {
    /// Throws a ``ServeError`` that says what is wrong and what to do.
    public static func check(host: String, port: Int) throws {
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw ServeError(
                "Cannot listen on '\(host)': it is not an address of this machine (\(String(cString: gai_strerror(status)))). Use 127.0.0.1, or 0.0.0.0 for every interface.")
        }
        defer { freeaddrinfo(list) }
        let descriptor = socket(first.pointee.ai_family, first.pointee.ai_socktype, first.pointee.ai_protocol)
        guard descriptor >= 0 else { return }  // Let the server itself report it.
        defer { close(descriptor) }
        var yes: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        guard bind(descriptor, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else {
            let code = errno
            let shown = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
            switch code {
            case EADDRINUSE:
                throw ServeError(
                    "Port \(port) is already in use on \(host) (another syncscope serve?). Pass --port with another number, or --port 0 to pick a free one.")
            case EACCES:
                throw ServeError("Listening on \(shown) needs privileges (ports below 1024). Pass a --port of 1024 or more, or --port 0.")
            case EADDRNOTAVAIL:
                throw ServeError("Cannot listen on \(host): it is not an address of this machine. Use 127.0.0.1, or 0.0.0.0 for every interface.")
            default:
                throw ServeError("Cannot listen on \(shown): \(String(cString: strerror(code))).")
            }
        }
    }
}
