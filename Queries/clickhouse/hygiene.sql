-- title: Provider hygiene
-- description: The rules of a correct APNs provider, checked from its own logs: per rule how
-- description: often it was broken, since when, an example to look at and what to change.
-- description: ClickHouse version of Queries/hygiene.sql (same sections, columns and labels).
-- param: since  start of the range (responses by time), {since:DateTime64(3)}; 1900-01-01 = open
-- param: until  end of the range, exclusive, {until:DateTime64(3)}; 2299-12-31 = open
-- param: topic  only responses for this topic, {topic:String}; '' = all
-- param: env  only responses sent to this env, {env:String}; '' = all
-- param: rule  only this rule, {rule:String}; '' = all
-- The rules, their data and 'not observable' are Queries/hygiene.sql's: every violation is a
-- response dated by its own time, except the two retry rules, whose retries are dated and
-- selected by the error they follow (the retries are kept over all history, facts.sql). Both
-- sections compute the same facts of the range (one statement each).

-- section: rules
-- One row per rule, in a fixed order. example: the apns-id of one violating response (the
-- first for the per-response and background rules, else the one stored first), example_token
-- its token. "Stored first": in the order pushlog stores records (files in the order ingested,
-- then lines).
WITH pushlog_ms({since:DateTime64(3)}) AS since, pushlog_ms({until:DateTime64(3)}) AS until,
r AS (
  SELECT time_ms, line_hash, source, line, token, apns_id, env, push_type, priority, collapse_id, expiration,
         mutable_content, has_alert, has_sound, has_badge, attempt, status, reason, category, token_malformed,
         token_masked, intDiv(time_ms, 86400000) AS day
  FROM pushlog.kept_responses
  WHERE time_ms >= since AND time_ms < until
    AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String})
), sd AS (
  -- Per source and UTC day: what its responses log (APNs headers, payloads, retry ids) and the
  -- responses each rule applies to.
  SELECT source, day, count() AS n,
         max(push_type IS NOT NULL OR priority IS NOT NULL OR collapse_id IS NOT NULL OR expiration IS NOT NULL) AS day_headers,
         max(has_alert IS NOT NULL) AS day_payload, max(apns_id IS NOT NULL OR attempt IS NOT NULL OR collapse_id IS NOT NULL) AS day_ids,
         countIf(push_type IS NOT NULL) AS day_typed,
         countIf(coalesce(push_type = 'alert' AND has_alert IS NOT NULL, 0) = 1) AS day_alert_n,
         countIf(coalesce(mutable_content = 1 AND has_alert IS NOT NULL, 0) = 1) AS day_mutable_n,
         countIf(token_malformed = 1 AND token_masked = 1) AS day_masked
  FROM r GROUP BY source, day
), broken AS (
  -- The responses that break a per-response rule (3-5, 9, 10), one row per rule broken;
  -- missing_push_type only where the source logs APNs headers that day.
  SELECT ord, t, src, line, apns, token FROM (
    SELECT time_ms AS t, toString(source) AS src, line, apns_id AS apns, token, day,
           arrayJoin(arrayFilter(o -> o > 0, [
             if(coalesce(push_type = 'alert' AND has_alert = 0 AND has_sound = 0 AND has_badge = 0, 0) = 1, 3, 0),
             if(push_type IS NULL, 4, 0),
             if(coalesce(mutable_content = 1 AND has_alert = 0, 0) = 1, 5, 0),
             if(token_malformed = 1 AND token_masked = 0, 9, 0),
             if(status <> 200 AND reason IN ('ExpiredProviderToken', 'TooManyProviderTokenUpdates'), 10, 0)])) AS ord
    FROM r
    WHERE coalesce(push_type = 'alert' AND has_alert = 0 AND has_sound = 0 AND has_badge = 0, 0) = 1 OR push_type IS NULL
       OR coalesce(mutable_content = 1 AND has_alert = 0, 0) = 1 OR (token_malformed = 1 AND token_masked = 0)
       OR (status <> 200 AND reason IN ('ExpiredProviderToken', 'TooManyProviderTokenUpdates')))
  WHERE ord <> 4 OR (src, day) IN (SELECT toString(source), day FROM sd WHERE day_headers = 1)
), bg AS (
  SELECT t, source, line, apns_id, token, priority, with_alert FROM pushlog.kept_background_pushes
  WHERE t >= since AND t < until AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String})
), errs AS (
  -- The range's error responses to a token (kept_errors), what the retry rules start from.
  SELECT time_ms, line_hash, category FROM pushlog.kept_errors
  WHERE response = 1 AND token <> '' AND time_ms >= since AND time_ms < until
    AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String})
), backoff AS (
  -- 429 and 5xx responses of the range with their first retry (kept over all history).
  SELECT et, bad, r_source, r_line, r_apns, r_token FROM pushlog.kept_rate_retries
  WHERE et >= since AND et < until
    AND (et, ek) IN (SELECT time_ms, line_hash FROM errs WHERE category IN ('rate', 'server'))
), links AS (
  -- Never-retry errors of the range and each of their retries (kept over all history); `again`: the
  -- retry is itself such an error of the range (not checked twice).
  SELECT et, r_source, r_line, r_apns, token,
         r_status <> 200 AND r_category IN ('token-gone', 'token-bad', 'request') AND rt >= since AND rt < until
           AND ({env:String} = '' OR r_env = {env:String}) AS again
  FROM pushlog.kept_retry_links
  WHERE et >= since AND et < until
    AND (et, ek) IN (SELECT time_ms, line_hash FROM errs WHERE category IN ('token-gone', 'token-bad', 'request'))
), v AS (
  -- Every violation: its rule (ord), time (a retry's: its error's), and the record shown as its example.
  SELECT ord, t, src, line, apns, token FROM broken
  UNION ALL
  SELECT arrayJoin(arrayFilter(o -> o > 0, [if(with_alert = 1, 1, 0), if(coalesce(priority, 10) <> 5, 2, 0)])), t, toString(source),
         line, apns_id, token FROM bg
  UNION ALL SELECT 6, et, toString(r_source), r_line, r_apns, r_token FROM backoff WHERE bad
  UNION ALL SELECT 7, et, toString(r_source), r_line, r_apns, token FROM links
  UNION ALL
  -- sent_after_gone, as gone.sends_after_gone (kept_gone: its flag depends on the token's history only).
  SELECT 8, time_ms, toString(source), line, apns_id, token FROM pushlog.kept_gone
  WHERE after_gone = 1 AND time_ms >= since AND time_ms < until
    AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String})
), file_order AS (
  -- The order pushlog stores records in: the files in the order they were ingested (the version of
  -- their final `sources` row), then their lines; files without a `sources` row (loaded from
  -- `pushlog export`) first, by path.
  SELECT groupArray(path) AS paths, groupArray(version) AS versions FROM pushlog.sources FINAL
), daily AS (
  -- Violations per rule and UTC day: count, first and last time, and the example: of rules 1-5 the
  -- first violation (the first stored at its time), of the others the first stored.
  SELECT ord, intDiv(t, 86400000) AS day, count() AS v, min(t) AS f, max(t) AS l, min(key) AS k, argMin(tuple(apns, token), key) AS ex
  FROM (SELECT v.*, tuple(if(ord <= 5, t, toInt64(0)), file_order.versions[indexOf(file_order.paths, src)], src, line) AS key
        FROM v CROSS JOIN file_order)
  GROUP BY ord, day
), seen AS (
  -- What the range's logs record: a rule without its data is not observable, and the responses
  -- each rule applies to (checked).
  SELECT a.*, e.*, b.*, c.*, n.*
  FROM (SELECT sum(n) AS responses, max(day_headers) AS headers, max(day_payload) AS payload, max(day_ids) AS ids,
               sum(day_typed) > 0 AS typed, sumIf(n, day_headers = 1) AS header_responses, sum(day_alert_n) AS alert_n,
               sum(day_mutable_n) AS mutable_n, sum(day_masked) AS masked
        FROM sd) AS a
  CROSS JOIN (SELECT countIf(category IN ('token-gone', 'token-bad', 'request')) AS nr_errors FROM errs) AS e
  CROSS JOIN (SELECT count() AS background, count(priority) AS bg_priorities FROM bg) AS b
  CROSS JOIN (SELECT count() AS retried FROM backoff) AS c
  CROSS JOIN (SELECT countIf(NOT again) AS nr_retries FROM links) AS n
), rule_list AS (
  SELECT arrayJoin(range(1, 11)) AS ord,
         ['background_with_alert', 'background_priority_10', 'alert_without_content', 'missing_push_type',
          'mutable_without_alert', 'retry_without_backoff', 'non_retryable_retried', 'sent_after_gone',
          'malformed_token', 'provider_token_refresh'][ord] AS rule,
         arrayMap(x -> toInt64(x), [background, background, alert_n, header_responses, mutable_n, retried, nr_errors + nr_retries,
                                    responses, toInt64(responses) - toInt64(masked), responses])[ord] AS checked,
         [if(background = 0 AND NOT typed AND NOT payload, 'no push_type or payload logged: background pushes cannot be told apart', NULL),
          multiIf(background = 0 AND NOT typed AND NOT payload, 'no push_type or payload logged: background pushes cannot be told apart',
                  background > 0 AND bg_priorities = 0, 'no apns-priority logged for background pushes', NULL),
          if(NOT payload, 'no payloads logged', NULL),
          if(NOT headers, 'no APNs headers logged (push_type, priority, collapse_id, expiration)', NULL),
          if(NOT payload, 'no payloads logged', NULL),
          if(NOT ids, 'no apns-id, attempt or collapse-id logged: retries cannot be told apart', NULL),
          if(NOT ids, 'no apns-id, attempt or collapse-id logged: retries cannot be told apart', NULL),
          NULL,
          if(responses > 0 AND responses = masked, 'every token in the logs is masked', NULL),
          NULL][ord] AS missing
  FROM seen
), totals AS (
  SELECT ord, sum(v) AS v, min(f) AS f, max(l) AS l, argMin(ex, k) AS ex FROM daily GROUP BY ord
), malformed_detail AS (
  -- The app versions that registered the malformed tokens (unmasked) the range sent to.
  SELECT if(empty(versions), NULL, concat('registered by app versions ', arrayStringConcat(
           arrayMap(x -> concat(x.2, ' (', toString(-x.1), ' tokens)'), arraySort(versions)), ', '))) AS detail
  FROM (SELECT groupArray(tuple(-toInt64(n), v)) AS versions FROM (
          SELECT coalesce(app_version, '(unknown)') AS v, uniqExact(token) AS n FROM pushlog.kept_registers
          WHERE token IN (SELECT token FROM r WHERE token_malformed = 1 AND token_masked = 0) GROUP BY v))
), provider_detail AS (
  SELECT if(empty(reasons), NULL, arrayStringConcat(arrayMap(x -> concat(x.2, ' ', toString(-x.1)), arraySort(reasons)), ', ')) AS detail
  FROM (SELECT groupArray(tuple(-toInt64(n), reason)) AS reasons FROM (
          SELECT toString(reason) AS reason, count() AS n FROM pushlog.kept_errors
          WHERE response = 1 AND reason IN ('ExpiredProviderToken', 'TooManyProviderTokenUpdates') AND time_ms >= since AND time_ms < until
            AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String})
          GROUP BY reason))
)
SELECT l.rule AS rule,
       if(l.missing IS NULL, toInt64(coalesce(t.v, 0))::Variant(Int64, String), 'not observable'::Variant(Int64, String)) AS violations,
       toInt64(l.checked) AS checked,
       if(l.missing IS NULL AND l.checked > 0, pushlog_round(coalesce(t.v, 0) / l.checked, 6), NULL) AS share,
       if(l.missing IS NULL AND t.f IS NOT NULL, pushlog_rfc3339(t.f), NULL) AS first_seen,
       if(l.missing IS NULL AND t.l IS NOT NULL, pushlog_rfc3339(t.l), NULL) AS last_seen,
       if(l.missing IS NULL, t.ex.1, NULL) AS example, if(l.missing IS NULL, nullIf(t.ex.2, ''), NULL) AS example_token,
       coalesce(l.missing, multiIf(l.ord = 9, (SELECT detail FROM malformed_detail), l.ord = 10, (SELECT detail FROM provider_detail), NULL))
         AS detail,
       ['send background pushes with content-available only; put alert, sound and badge in an alert push',
        'send background pushes with apns-priority 5',
        'give every alert push an alert (title/body), sound or badge, or send it as background',
        'set apns-push-type on every request (alert, background, voip, ...)',
        'set mutable-content only on pushes with an alert: the service extension never runs without one',
        'back off exponentially after 429 and 5xx: wait at least 1 s, longer at each attempt',
        'never retry 400 and 410 answers: fix the request, or drop the token',
        'stop sending to a token after its 410 until the app registers it again',
        'upload tokens as hex (the bytes of deviceToken, hex-encoded), not the description of the Data',
        'refresh the provider JWT every 20 to 60 minutes, and reuse it meanwhile'][l.ord] AS advice
FROM rule_list AS l LEFT JOIN totals AS t ON t.ord = l.ord
WHERE {rule:String} = '' OR l.rule = {rule:String}
ORDER BY l.ord
SETTINGS join_use_nulls = 1, allow_experimental_variant_type = 1;

-- section: by_day
-- Violations per UTC day and rule (days without any are left out; rules not observable too).
WITH pushlog_ms({since:DateTime64(3)}) AS since, pushlog_ms({until:DateTime64(3)}) AS until,
r AS (
  SELECT time_ms, line_hash, source, line, token, apns_id, env, push_type, priority, collapse_id, expiration,
         mutable_content, has_alert, has_sound, has_badge, attempt, status, reason, category, token_malformed,
         token_masked, intDiv(time_ms, 86400000) AS day
  FROM pushlog.kept_responses
  WHERE time_ms >= since AND time_ms < until
    AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String})
), sd AS (
  -- Per source and UTC day: what its responses log (APNs headers, payloads, retry ids) and the
  -- responses each rule applies to.
  SELECT source, day, count() AS n,
         max(push_type IS NOT NULL OR priority IS NOT NULL OR collapse_id IS NOT NULL OR expiration IS NOT NULL) AS day_headers,
         max(has_alert IS NOT NULL) AS day_payload, max(apns_id IS NOT NULL OR attempt IS NOT NULL OR collapse_id IS NOT NULL) AS day_ids,
         countIf(push_type IS NOT NULL) AS day_typed,
         countIf(coalesce(push_type = 'alert' AND has_alert IS NOT NULL, 0) = 1) AS day_alert_n,
         countIf(coalesce(mutable_content = 1 AND has_alert IS NOT NULL, 0) = 1) AS day_mutable_n,
         countIf(token_malformed = 1 AND token_masked = 1) AS day_masked
  FROM r GROUP BY source, day
), broken AS (
  -- The responses that break a per-response rule (3-5, 9, 10), one row per rule broken;
  -- missing_push_type only where the source logs APNs headers that day.
  SELECT ord, t, src, line, apns, token FROM (
    SELECT time_ms AS t, toString(source) AS src, line, apns_id AS apns, token, day,
           arrayJoin(arrayFilter(o -> o > 0, [
             if(coalesce(push_type = 'alert' AND has_alert = 0 AND has_sound = 0 AND has_badge = 0, 0) = 1, 3, 0),
             if(push_type IS NULL, 4, 0),
             if(coalesce(mutable_content = 1 AND has_alert = 0, 0) = 1, 5, 0),
             if(token_malformed = 1 AND token_masked = 0, 9, 0),
             if(status <> 200 AND reason IN ('ExpiredProviderToken', 'TooManyProviderTokenUpdates'), 10, 0)])) AS ord
    FROM r
    WHERE coalesce(push_type = 'alert' AND has_alert = 0 AND has_sound = 0 AND has_badge = 0, 0) = 1 OR push_type IS NULL
       OR coalesce(mutable_content = 1 AND has_alert = 0, 0) = 1 OR (token_malformed = 1 AND token_masked = 0)
       OR (status <> 200 AND reason IN ('ExpiredProviderToken', 'TooManyProviderTokenUpdates')))
  WHERE ord <> 4 OR (src, day) IN (SELECT toString(source), day FROM sd WHERE day_headers = 1)
), bg AS (
  SELECT t, source, line, apns_id, token, priority, with_alert FROM pushlog.kept_background_pushes
  WHERE t >= since AND t < until AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String})
), errs AS (
  -- The range's error responses to a token (kept_errors), what the retry rules start from.
  SELECT time_ms, line_hash, category FROM pushlog.kept_errors
  WHERE response = 1 AND token <> '' AND time_ms >= since AND time_ms < until
    AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String})
), backoff AS (
  -- 429 and 5xx responses of the range with their first retry (kept over all history).
  SELECT et, bad, r_source, r_line, r_apns, r_token FROM pushlog.kept_rate_retries
  WHERE et >= since AND et < until
    AND (et, ek) IN (SELECT time_ms, line_hash FROM errs WHERE category IN ('rate', 'server'))
), links AS (
  -- Never-retry errors of the range and each of their retries (kept over all history); `again`: the
  -- retry is itself such an error of the range (not checked twice).
  SELECT et, r_source, r_line, r_apns, token,
         r_status <> 200 AND r_category IN ('token-gone', 'token-bad', 'request') AND rt >= since AND rt < until
           AND ({env:String} = '' OR r_env = {env:String}) AS again
  FROM pushlog.kept_retry_links
  WHERE et >= since AND et < until
    AND (et, ek) IN (SELECT time_ms, line_hash FROM errs WHERE category IN ('token-gone', 'token-bad', 'request'))
), v AS (
  -- Every violation: its rule (ord), time (a retry's: its error's), and the record shown as its example.
  SELECT ord, t, src, line, apns, token FROM broken
  UNION ALL
  SELECT arrayJoin(arrayFilter(o -> o > 0, [if(with_alert = 1, 1, 0), if(coalesce(priority, 10) <> 5, 2, 0)])), t, toString(source),
         line, apns_id, token FROM bg
  UNION ALL SELECT 6, et, toString(r_source), r_line, r_apns, r_token FROM backoff WHERE bad
  UNION ALL SELECT 7, et, toString(r_source), r_line, r_apns, token FROM links
  UNION ALL
  -- sent_after_gone, as gone.sends_after_gone (kept_gone: its flag depends on the token's history only).
  SELECT 8, time_ms, toString(source), line, apns_id, token FROM pushlog.kept_gone
  WHERE after_gone = 1 AND time_ms >= since AND time_ms < until
    AND ({topic:String} = '' OR topic = {topic:String}) AND ({env:String} = '' OR env = {env:String})
), file_order AS (
  -- The order pushlog stores records in: the files in the order they were ingested (the version of
  -- their final `sources` row), then their lines; files without a `sources` row (loaded from
  -- `pushlog export`) first, by path.
  SELECT groupArray(path) AS paths, groupArray(version) AS versions FROM pushlog.sources FINAL
), daily AS (
  -- Violations per rule and UTC day: count, first and last time, and the example: of rules 1-5 the
  -- first violation (the first stored at its time), of the others the first stored.
  SELECT ord, intDiv(t, 86400000) AS day, count() AS v, min(t) AS f, max(t) AS l, min(key) AS k, argMin(tuple(apns, token), key) AS ex
  FROM (SELECT v.*, tuple(if(ord <= 5, t, toInt64(0)), file_order.versions[indexOf(file_order.paths, src)], src, line) AS key
        FROM v CROSS JOIN file_order)
  GROUP BY ord, day
), seen AS (
  -- What the range's logs record: a rule without its data is not observable, and the responses
  -- each rule applies to (checked).
  SELECT a.*, e.*, b.*, c.*, n.*
  FROM (SELECT sum(n) AS responses, max(day_headers) AS headers, max(day_payload) AS payload, max(day_ids) AS ids,
               sum(day_typed) > 0 AS typed, sumIf(n, day_headers = 1) AS header_responses, sum(day_alert_n) AS alert_n,
               sum(day_mutable_n) AS mutable_n, sum(day_masked) AS masked
        FROM sd) AS a
  CROSS JOIN (SELECT countIf(category IN ('token-gone', 'token-bad', 'request')) AS nr_errors FROM errs) AS e
  CROSS JOIN (SELECT count() AS background, count(priority) AS bg_priorities FROM bg) AS b
  CROSS JOIN (SELECT count() AS retried FROM backoff) AS c
  CROSS JOIN (SELECT countIf(NOT again) AS nr_retries FROM links) AS n
), rule_list AS (
  SELECT arrayJoin(range(1, 11)) AS ord,
         ['background_with_alert', 'background_priority_10', 'alert_without_content', 'missing_push_type',
          'mutable_without_alert', 'retry_without_backoff', 'non_retryable_retried', 'sent_after_gone',
          'malformed_token', 'provider_token_refresh'][ord] AS rule,
         arrayMap(x -> toInt64(x), [background, background, alert_n, header_responses, mutable_n, retried, nr_errors + nr_retries,
                                    responses, toInt64(responses) - toInt64(masked), responses])[ord] AS checked,
         [if(background = 0 AND NOT typed AND NOT payload, 'no push_type or payload logged: background pushes cannot be told apart', NULL),
          multiIf(background = 0 AND NOT typed AND NOT payload, 'no push_type or payload logged: background pushes cannot be told apart',
                  background > 0 AND bg_priorities = 0, 'no apns-priority logged for background pushes', NULL),
          if(NOT payload, 'no payloads logged', NULL),
          if(NOT headers, 'no APNs headers logged (push_type, priority, collapse_id, expiration)', NULL),
          if(NOT payload, 'no payloads logged', NULL),
          if(NOT ids, 'no apns-id, attempt or collapse-id logged: retries cannot be told apart', NULL),
          if(NOT ids, 'no apns-id, attempt or collapse-id logged: retries cannot be told apart', NULL),
          NULL,
          if(responses > 0 AND responses = masked, 'every token in the logs is masked', NULL),
          NULL][ord] AS missing
  FROM seen
)
SELECT pushlog_bucket(d.day * 86400000, 'day') AS day, l.rule AS rule, toInt64(d.v) AS violations
FROM daily AS d INNER JOIN rule_list AS l ON l.ord = d.ord
WHERE l.missing IS NULL AND ({rule:String} = '' OR l.rule = {rule:String})
ORDER BY d.day, l.ord
SETTINGS join_use_nulls = 1;
