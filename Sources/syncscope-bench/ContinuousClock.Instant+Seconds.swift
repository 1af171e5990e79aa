extension ContinuousClock.Instant {
    /// Seconds from `start` to this instant (benchmarks time with the standard monotonic clock).
    func seconds(since start: Self) -> Double {
        let elapsed = (self - start).components
        return Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
    }
}
