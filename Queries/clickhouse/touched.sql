-- title: what the loads since the last rebuild touched
-- description: The keys whose kept facts (facts.sql) a load can change: the tokens, devices and
-- description: opt-out units of the rows loaded since the facts were last built, closed over what
-- description: links records (a receipt answers a push by apns-id; a device's registrations make
-- description: its tokens' runs). `pushlog --clickhouse URL ingest` builds them, then recomputes
-- description: only these keys' rows of the tables facts.sql keeps per key (`/*kept per KEY*/`),
-- description: and every other table whole. It falls back to the whole rebuild when the facts
-- description: were never built by this version, or the load is of a kind this does not follow.
-- Each run names its tables with its own suffix (pushlog replaces `kept_touched_` and `kept_new`),
-- so a run never reads the sets a killed one left behind.

-- The rows loaded since the last rebuild started: those of the parts that did not hold records
-- then. A part is never changed once written, so these are every row the facts have not seen; a
-- merge since writes its rows into a new part, which makes them look new too (they cost work only).
CREATE OR REPLACE TABLE pushlog.kept_new ENGINE = MergeTree ORDER BY tuple() AS
SELECT kind, token, apns_id, device, user FROM pushlog.records
WHERE _part NOT IN (SELECT arrayJoin(records_parts) FROM pushlog.kept_state);

-- Devices (and 'user:ID' for observations that name only a user) with new registrations or settings.
CREATE OR REPLACE TABLE pushlog.kept_touched_dkey ENGINE = MergeTree ORDER BY tuple() AS
SELECT DISTINCT if(device IS NOT NULL, device, concat('user:', user)) AS value FROM pushlog.kept_new
WHERE kind IN ('register', 'settings') AND (device IS NOT NULL OR user IS NOT NULL);

-- Tokens: those of the new rows, those a new receipt's push was sent to (its background push's
-- receipt time), and every token the devices above registered (their runs, and so when each token
-- was superseded, change).
CREATE OR REPLACE TABLE pushlog.kept_touched_token ENGINE = MergeTree ORDER BY tuple() AS
SELECT DISTINCT value FROM (
  SELECT token AS value FROM pushlog.kept_new WHERE token <> ''
  UNION ALL
  SELECT token FROM pushlog.kept_background_pushes
  WHERE apns_id IN (SELECT apns_id FROM pushlog.kept_new WHERE kind = 'receipt' AND apns_id IS NOT NULL)
  UNION ALL
  SELECT token FROM pushlog.kept_observations
  WHERE kind = 'register' AND dkey IN (SELECT value FROM pushlog.kept_touched_dkey));

-- Opt-out units (a device's dkey, or a user): the devices above and those whose latest token's
-- facts change (its 410), with their users before the load and after.
CREATE OR REPLACE TABLE pushlog.kept_touched_unit ENGINE = MergeTree ORDER BY tuple() AS
WITH d AS (
  SELECT dkey, user FROM pushlog.kept_device_facts
  WHERE dkey IN (SELECT value FROM pushlog.kept_touched_dkey) OR last_token IN (SELECT value FROM pushlog.kept_touched_token)
)
SELECT DISTINCT value FROM (
  SELECT value FROM pushlog.kept_touched_dkey
  UNION ALL SELECT assumeNotNull(dkey) FROM d WHERE dkey IS NOT NULL
  UNION ALL SELECT assumeNotNull(user) FROM d WHERE user IS NOT NULL
  UNION ALL SELECT assumeNotNull(user) FROM pushlog.kept_new WHERE kind IN ('register', 'settings') AND user IS NOT NULL);
