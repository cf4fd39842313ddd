import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Queries over ClickHouse's HTTP interface: the SQL in the POST body (or `query=` when the body
/// is an INSERT's data), values as query parameters (`param_NAME` for `{NAME:Type}`), never
/// spliced into SQL text; settings as URL keys. Synchronous: the CLI runs one query at a time.
public final class ClickHouseClient: Sendable {
    public let url: ClickHouseURL
    private let session: URLSession
    /// Seconds a query may take before the request is abandoned.
    static let timeout: TimeInterval = 3600

    public init(_ url: ClickHouseURL) {
        self.url = url
        let config = URLSessionConfiguration.ephemeral
        config.timeoutIntervalForRequest = ClickHouseClient.timeout
        config.timeoutIntervalForResource = ClickHouseClient.timeout
        session = URLSession(configuration: config)
    }

    /// Runs `sql` and returns the response body. `params` become `param_NAME`; `settings` URL keys.
    /// `inDatabase: false` for statements that may run before the URL's database exists.
    public func execute(
        _ sql: String, params: [String: String] = [:], settings: [String: String] = [:], data: Data? = nil, inDatabase: Bool = true
    ) throws -> Data {
        var c = URLComponents(url: url.endpoint, resolvingAgainstBaseURL: false)!
        var items = inDatabase ? [URLQueryItem(name: "database", value: url.database)] : []
        for (k, v) in settings.sorted(by: { $0.key < $1.key }) { items.append(URLQueryItem(name: k, value: v)) }
        for (k, v) in params.sorted(by: { $0.key < $1.key }) { items.append(URLQueryItem(name: "param_" + k, value: v)) }
        if data != nil { items.append(URLQueryItem(name: "query", value: sql)) }
        c.queryItems = items
        // `+` is a space in a query string to ClickHouse; URLComponents leaves it as is.
        c.percentEncodedQuery = c.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        var request = URLRequest(url: c.url!)
        request.httpMethod = "POST"
        request.httpBody = data ?? Data(sql.utf8)
        if let user = url.user {
            let token = Data("\(user):\(url.password ?? "")".utf8).base64EncodedString()
            request.setValue("Basic " + token, forHTTPHeaderField: "Authorization")
        }
        let (body, response, error) = send(request)
        guard let http = response as? HTTPURLResponse else {
            let why = (error as NSError?)?.localizedDescription ?? "no response"
            throw ClickHouseError(code: nil, "cannot reach ClickHouse at \(url): \(why)")
        }
        guard http.statusCode == 200 else {
            let code = (http.value(forHTTPHeaderField: "X-ClickHouse-Exception-Code")).flatMap { Int($0) }
            let text = String(decoding: body ?? Data(), as: UTF8.self)
            let message = ClickHouseError.serverMessage(text)
            throw ClickHouseError(code: code, "ClickHouse (\(url)): " + (message.isEmpty ? "HTTP \(http.statusCode)" : message))
        }
        return body ?? Data()
    }

    /// One request, waited for: the CLI has nothing else to do meanwhile.
    private func send(_ request: URLRequest) -> (Data?, URLResponse?, Error?) {
        final class Box: @unchecked Sendable {  // written by the task's handler before `done` signals
            var result: (Data?, URLResponse?, Error?) = (nil, nil, nil)
        }
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        session.dataTask(with: request) { d, r, e in
            box.result = (d, r, e)
            done.signal()
        }.resume()
        done.wait()
        return box.result
    }

    /// A string as the text of a `{name:String}` parameter: the server reads a parameter escaped
    /// as in TSV, so a backslash (which a malformed token, a path or a topic may hold) would start
    /// an escape sequence, and a tab or a newline must be written as one.
    public static func parameter(_ s: String) -> String {
        var out = ""
        for c in s.unicodeScalars {
            switch c {
            case "\\": out += "\\\\"
            case "\t": out += "\\t"
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// Runs a SELECT and reads its rows (TabSeparatedWithNamesAndTypes) as a result table.
    public func table(_ name: String, sql: String, params: [String: String] = [:], settings: [String: String] = [:]) throws
        -> ResultTable
    {
        var s = settings
        s["default_format"] = "TabSeparatedWithNamesAndTypes"
        let body = try execute(sql, params: params, settings: s)
        return try ClickHouseTSV.table(name, body)
    }
}
