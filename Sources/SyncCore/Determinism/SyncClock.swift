/// A source of "now": the time stamped onto server data (record creation and
/// modification, push notifications, token ages), in milliseconds since 1970.
///
/// One clock family, with one job each:
/// - ``SyncClock`` is what the engine, devices and push layer read. The
///   simulation runs on a ``VirtualClock`` so that the same scenario and seed
///   give the same transcript; the network server and a network device use
///   ``SystemClock``, the wall clock.
/// - Durations (timeouts, deadlines, benchmarks, frame times) are measured with
///   the standard `ContinuousClock`, never by subtracting wall-clock times,
///   which can jump.
public protocol SyncClock: Sendable {
    func now() -> Milliseconds
}
