/// An optional that encodes as `null` when absent, where synthesized Codable would leave the key
/// out: the API's rule (docs/api.md) is that every key is present. Decoding accepts `null` or a
/// missing key. The one way the project writes optional fields.
@propertyWrapper
public struct NullWhenAbsent<Value> {
    public var wrappedValue: Value?

    public init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }
}

extension NullWhenAbsent: Encodable where Value: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}

extension NullWhenAbsent: Decodable where Value: Decodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try container.decode(Value.self)
    }
}

extension NullWhenAbsent: Equatable where Value: Equatable {}
extension NullWhenAbsent: Hashable where Value: Hashable {}
extension NullWhenAbsent: Sendable where Value: Sendable {}

extension KeyedDecodingContainer {
    /// A missing key decodes as nil, as it would for a plain optional.
    public func decode<Value: Decodable>(_ type: NullWhenAbsent<Value>.Type, forKey key: Key) throws -> NullWhenAbsent<Value> {
        try decodeIfPresent(type, forKey: key) ?? NullWhenAbsent(wrappedValue: nil)
    }
}
