/// The record kinds of the pushlog event schema.
enum EventKind: Int, CaseIterable, Sendable {
    case send = 0
    case request, response, register, settings, receipt, unregister

    /// The name used in logs, summaries and JSON.
    var name: String {
        switch self {
        case .send: return "send"
        case .request: return "request"
        case .response: return "response"
        case .register: return "register"
        case .settings: return "settings"
        case .receipt: return "receipt"
        case .unregister: return "unregister"
        }
    }

    init?(name: String) {
        guard let k = EventKind.allCases.first(where: { $0.name == name }) else { return nil }
        self = k
    }
}
