/// The built-in line-format definitions (Formats/Definitions/*.format), compiled into the binary
/// as package resources, by file name (Package.swift embeds every file there; this list names
/// them, and a test keeps the two equal).
enum BuiltInDefinitions {
    static let files: [String: [UInt8]] = [
        "aioapns.format": PackageResources.aioapns_format,
        "apns2.format": PackageResources.apns2_format,
        "bark-server.format": PackageResources.bark_server_format,
        "mattermost-push-proxy.format": PackageResources.mattermost_push_proxy_format,
        "parse-server.format": PackageResources.parse_server_format,
        "pushy.format": PackageResources.pushy_format,
        "rpush.format": PackageResources.rpush_format,
        "sygnal.format": PackageResources.sygnal_format,
    ]
}
