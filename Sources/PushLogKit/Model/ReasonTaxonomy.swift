/// The categories APNs responses are classified into, by reason (else status).
enum ReasonCategory: String, CaseIterable, Sendable {
    case accepted
    case tokenGone = "token-gone"
    case tokenBad = "token-bad"
    case envConfig = "env-config"
    case auth, request, rate, server, unknown
    /// No APNs response at all (TLS, DNS, timeouts, resets): stored with no status.
    case transport

    /// Server and rate errors may be retried; gone, bad-token and request errors never.
    var retryable: Bool { self == .server || self == .rate }
    var neverRetry: Bool { self == .tokenGone || self == .tokenBad || self == .request }
}

/// Classifies APNs responses by status and reason; the reason wins when they disagree.
enum ReasonTaxonomy {
    static let reasons: [(String, ReasonCategory, Int)] = [
        ("Unregistered", .tokenGone, 410), ("ExpiredToken", .tokenGone, 410),
        ("BadDeviceToken", .tokenBad, 400), ("DeviceTokenNotForTopic", .tokenBad, 400),
        ("MissingDeviceToken", .tokenBad, 400),
        ("BadEnvironmentKeyInToken", .envConfig, 403), ("BadEnvironmentKeyIdInToken", .envConfig, 403),
        ("BadCertificateEnvironment", .envConfig, 403),
        ("ExpiredProviderToken", .auth, 403), ("InvalidProviderToken", .auth, 403),
        ("MissingProviderToken", .auth, 403), ("UnrelatedKeyIdInToken", .auth, 403),
        ("BadCertificate", .auth, 403), ("Forbidden", .auth, 403),
        ("TooManyProviderTokenUpdates", .auth, 429),
        ("BadCollapseId", .request, 400), ("BadExpirationDate", .request, 400),
        ("BadMessageId", .request, 400), ("BadPriority", .request, 400), ("BadTopic", .request, 400),
        ("DuplicateHeaders", .request, 400), ("InvalidPushType", .request, 400),
        ("MissingTopic", .request, 400), ("PayloadEmpty", .request, 400), ("TopicDisallowed", .request, 400),
        ("BadPath", .request, 404), ("MethodNotAllowed", .request, 405), ("PayloadTooLarge", .request, 413),
        ("TooManyRequests", .rate, 429),
        ("InternalServerError", .server, 500), ("ServiceUnavailable", .server, 503),
        ("Shutdown", .server, 503), ("IdleTimeout", .server, 503),
    ]

    private static let byReason: [String: (ReasonCategory, Int)] = {
        var d: [String: (ReasonCategory, Int)] = [:]
        for (r, c, s) in reasons { d[r.lowercased()] = (c, s) }
        return d
    }()

    /// The category of a response.
    static func category(status: Int?, reason: String?) -> ReasonCategory {
        if let reason, !reason.isEmpty, let (c, _) = byReason[reason.lowercased()] { return c }
        guard let status else { return .unknown }
        if status == 200 && (reason ?? "").isEmpty { return .accepted }
        if status == 410 { return .tokenGone }
        if status >= 500 && status <= 599 { return .server }
        if status == 429 && (reason ?? "").isEmpty { return .rate }
        return .unknown
    }

    /// The status APNs sends with a reason, used when a log has the reason only.
    static func status(forReason r: String) -> Int? { byReason[r.lowercased()]?.1 }

    /// True when a log's error text is an APNs reason: a known one, or one CamelCase word as APNs
    /// writes them (a reason added after this list). Anything else (`dial tcp …: i/o timeout`,
    /// `remote error: tls: revoked certificate`) never reached APNs: a transport failure.
    static func isAPNsReason(_ text: String) -> Bool {
        if byReason[text.lowercased()] != nil { return true }
        guard let first = text.utf8.first, first >= 0x41 && first <= 0x5A, text.utf8.count <= 64 else { return false }
        return text.utf8.allSatisfy { ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) }
    }
}
