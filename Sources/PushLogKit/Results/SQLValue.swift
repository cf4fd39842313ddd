import CSQLite
import Foundation

/// A value read from a result row.
public enum SQLValue: Equatable, Sendable {
    case null
    case int(Int64)
    case double(Double)
    case text(String)

    var asDouble: Double? {
        switch self {
        case .int(let v): return Double(v)
        case .double(let v): return v
        case .text(let s): return Double(s)
        case .null: return nil
        }
    }
}
