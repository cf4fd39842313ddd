/// A usage error: exit 2 with a one-line message and a hint.
struct UsageError: Error {
    let message: String
    let hint: String
}

/// A failure that has already been explained on stderr, with its exit status.
struct ExitStatus: Error { let code: Int32 }

/// A runtime failure with a message (exit 1).
struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ s: String) { description = s }
}
