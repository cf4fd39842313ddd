/// Version and names shared by the library and the CLI.
public enum PushLog {
    public static let version = "0.1.0"
}
