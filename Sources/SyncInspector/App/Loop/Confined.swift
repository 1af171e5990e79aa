/// A value used only on one thread at a time, carried into a task (the
/// compiler cannot see that its users never overlap).
struct Confined<Value>: @unchecked Sendable {
    let value: Value
}
