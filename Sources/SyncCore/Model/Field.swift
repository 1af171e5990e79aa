/// One named field of a record.
public struct Field: Sendable, Hashable {
    public var name: String
    public var value: FieldValue

    public init(name: String, value: FieldValue) {
        self.name = name
        self.value = value
    }
}
