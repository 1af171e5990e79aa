#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The wall clock (`CLOCK_REALTIME`), in milliseconds since 1970: the live ``SyncClock``.
public struct SystemClock: SyncClock {
    public init() {}
    public func now() -> Milliseconds {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Milliseconds(spec.tv_sec) * 1000 + Milliseconds(spec.tv_nsec / 1_000_000)
    }
}
