-- title: Trace of a token, device, user or apns-id
-- description: `pushlog --clickhouse URL trace KEY`: what KEY names (checked in pushlog's order:
-- description: an apns-id, a device, a user, a token or its prefix or masked form, an apns-id
-- description: prefix), the tokens and devices around it, and the timeline of their records with
-- description: the columns, details and order of pushlog's SQLite timeline (Trace).
-- param: key  the key as given, trimmed, {key:String}; an apns-id UUID in lower case
-- param: prefix  a token key's part before '…' (all of it without one), {prefix:String}
-- param: suffix  a token key's part after '…', {suffix:String}
-- param: hex  an apns-id prefix's hex digits in lower case, {hex:String}; '' = not hex
-- param: tokens  the timeline's tokens, {tokens:Array(String)}
-- param: devices  the timeline's devices, {devices:Array(String)}
-- param: user  registrations and settings of this user without a device, {user:Nullable(String)}
-- param: apns  sends and receipts of this apns-id, {apns:Nullable(String)}
-- param: excluding  tokens whose records are left out, {excluding:Array(String)}
-- param: kinds  only records of these kinds, {kinds:Array(String)}; [] = all

-- section: apns_id
-- Records of this apns-id: a send, request, response or receipt.
SELECT count() AS n FROM (
  SELECT 1 FROM pushlog.records WHERE kind IN ('send', 'request', 'response', 'receipt') AND apns_id = {key:String} LIMIT 1);

-- section: device
-- A device that registered or reported its settings.
SELECT count() AS n FROM (SELECT 1 FROM pushlog.records WHERE kind IN ('register', 'settings') AND device = {key:String} LIMIT 1);

-- section: user
-- A user of a device, or named by a registration or settings without a device.
SELECT count() AS n FROM (
  SELECT 1 FROM pushlog.kept_device_facts WHERE user = {key:String}
  UNION ALL
  SELECT 1 FROM pushlog.records WHERE kind IN ('register', 'settings') AND device IS NULL AND user = {key:String}
  LIMIT 1);

-- section: tokens
-- Tokens starting with the prefix and ending with the suffix (LIKE, as SQLite compares it).
SELECT DISTINCT token FROM pushlog.records
WHERE token <> '' AND startsWith(token, {prefix:String}) AND token ILIKE concat('%', {suffix:String})
ORDER BY token LIMIT 3;

-- section: apns_prefix
-- apns-ids of sends starting with the key: a UUID by its hex digits (any dashes), any other id by
-- its text.
SELECT DISTINCT apns_id FROM pushlog.kept_sends
WHERE apns_id IS NOT NULL
  AND if(match(apns_id, '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'),
         {hex:String} <> '' AND startsWith(replaceAll(apns_id, '-', ''), {hex:String}), startsWith(apns_id, {key:String}))
ORDER BY apns_id LIMIT 3;

-- section: token_devices
-- The devices that registered these tokens.
SELECT DISTINCT device FROM pushlog.kept_registers WHERE has({tokens:Array(String)}, token) AND device IS NOT NULL ORDER BY device;

-- section: device_tokens
-- The tokens these devices registered.
SELECT DISTINCT token FROM pushlog.kept_registers WHERE has({devices:Array(String)}, assumeNotNull(device)) AND device IS NOT NULL
ORDER BY token;

-- section: apns_tokens
-- The tokens of this apns-id's sends.
SELECT DISTINCT token FROM pushlog.kept_sends WHERE apns_id = {key:String} AND token <> '' ORDER BY token;

-- section: user_devices
-- The devices whose user (the greatest name seen with the device) is this user.
SELECT dkey AS device FROM pushlog.kept_device_facts WHERE user = {key:String} AND NOT startsWith(dkey, 'user:') ORDER BY dkey;

-- section: user_tokens
-- The tokens registered on those devices, or by the user without a device.
SELECT DISTINCT token FROM pushlog.records FINAL
WHERE kind = 'register' AND token <> ''
  AND ((device IS NULL AND user = {key:String})
       OR device IN (SELECT dkey FROM pushlog.kept_device_facts WHERE user = {key:String} AND NOT startsWith(dkey, 'user:')))
ORDER BY token;

-- section: timeline
-- Every record of the scope in time order: sends of the tokens or of the apns-id; registrations
-- and unregistrations of the tokens or devices (registrations without a device: of the user);
-- settings of the devices or the user; receipts of the apns-id or of the sends. Records of the
-- excluded tokens are left out; kinds: only these ([] = all). A detail is NULL where pushlog's is.
-- Ties in time and kind: by file and line, then token and detail (NULL first, as SQLite orders).
WITH {tokens:Array(String)} AS tokens, {devices:Array(String)} AS devices, {user:Nullable(String)} AS u,
     {apns:Nullable(String)} AS a, {excluding:Array(String)} AS excluding, {kinds:Array(String)} AS kinds,
     -- The apns-id, and those of the tokens' sends, requests and responses (through the records' key).
     scope_apns_ids AS (SELECT assumeNotNull(a) WHERE a IS NOT NULL
                        UNION ALL
                        SELECT apns_id FROM pushlog.records
                        WHERE has(tokens, token) AND kind IN ('send', 'request', 'response') AND apns_id IS NOT NULL)
SELECT pushlog_rfc3339(x.t) AS time, x.kind AS kind, nullIf(x.token, '') AS token, x.detail AS detail, x.source AS source, x.line AS line
FROM (
  SELECT time_ms AS t, toString(kind) AS kind, token,
         trimBoth(concat(coalesce(toString(status), ''), ' ', coalesce(toString(reason), ''),
                         if(apns_timestamp IS NULL, '', concat(' (APNs timestamp ', pushlog_rfc3339(assumeNotNull(apns_timestamp)), ')')),
                         ' apns-id ', coalesce(apns_id, '?'), ' env ', coalesce(toString(env), '?'), ' ', coalesce(toString(push_type), ''),
                         if(attempt IS NULL, '', concat(' attempt ', toString(assumeNotNull(attempt)))))) AS detail,
         toString(source) AS source, line
  FROM pushlog.kept_sends
  -- kept_sends is in time order: read at the times of the records of the tokens, of the
  -- responses logged apart from their requests (no token: the request's apns-id), and of the
  -- apns-id; each part a range of the records' key, or the apns-id index.
  WHERE (has(tokens, token) OR apns_id = a)
    AND time_ms IN (SELECT time_ms FROM pushlog.records WHERE has(tokens, token) AND kind IN ('send', 'request', 'response')
                    UNION ALL
                    SELECT time_ms FROM pushlog.records WHERE token = '' AND kind = 'response' AND apns_id IN scope_apns_ids
                    UNION ALL
                    SELECT time_ms FROM pushlog.records WHERE a IS NOT NULL AND kind IN ('send', 'request', 'response') AND apns_id = a)
  UNION ALL
  -- The other kinds, each part read through an index: the records' key for the tokens, the
  -- device and apns-id indexes for the devices and receipts (a condition naming several kinds at
  -- once reads every record, and so does FINAL). A record is in one part only, and in it once:
  -- copies of a record (a block sent again) are the same row, as the ingest stores no second copy
  -- of a record read from another file.
  SELECT time_ms, toString(kind), token,
         multiIf(kind = 'register',
                 concat('device ', coalesce(device, '?'), ' user ', coalesce(user, '?'), ' env ', coalesce(toString(env), '?'),
                        ' app ', coalesce(toString(app_version), '?'), ' auth ', coalesce(toString(auth), '?')),
                 kind = 'unregister', concat('device ', coalesce(device, '?')),
                 kind = 'settings',
                 if(auth IS NULL, NULL,
                    concat('auth ', toString(auth), ' alert ', coalesce(toString(alert_setting), '?'), ' device ', coalesce(device, '?'))),
                 if(apns_id IS NULL, NULL,
                    concat(coalesce(toString(receipt), '?'), ' ', coalesce(toString(result), ''), ' apns-id ', assumeNotNull(apns_id)))),
         toString(source), line
  FROM (
    SELECT * FROM pushlog.records WHERE kind IN ('register', 'unregister') AND has(tokens, token)
    UNION ALL
    SELECT * FROM pushlog.records
    WHERE kind IN ('register', 'unregister', 'settings') AND has(devices, device) AND NOT (kind IN ('register', 'unregister') AND has(tokens, token))
    UNION ALL
    -- Registrations and settings without a device, of the user.
    SELECT * FROM pushlog.records
    WHERE u IS NOT NULL AND kind IN ('register', 'settings') AND device IS NULL AND user = u AND NOT (kind = 'register' AND has(tokens, token))
    UNION ALL
    -- Receipts of the apns-id, or of the tokens' sends.
    SELECT * FROM pushlog.records
    WHERE kind = 'receipt'
      AND apns_id IN scope_apns_ids
  )
  LIMIT 1 BY token, time_ms, line_hash
) AS x
WHERE (x.token = '' OR NOT has(excluding, x.token)) AND (empty(kinds) OR has(kinds, x.kind))
ORDER BY x.t, x.kind, x.source, x.line, token ASC NULLS FIRST, detail ASC NULLS FIRST;
