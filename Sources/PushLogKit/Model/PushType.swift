/// The APNs push types (`apns-push-type`), in the order of their fixed ids in `push_types`
/// (id = position + 1): the parser writes a logged type in this spelling, the store seeds them.
enum PushType {
    static let names: [StaticString] = [
        "alert", "background", "voip", "complication", "fileprovider", "mdm", "location", "liveactivity", "pushtotalk",
        "controls", "widgets",
    ]
}
