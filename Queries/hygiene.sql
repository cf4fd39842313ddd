-- title: Provider hygiene
-- description: The rules of a correct APNs provider, checked from its own logs: per rule how
-- description: often it was broken, since when, an example to look at and what to change.
-- records: responses
-- param: since time  start of the range (responses by time)
-- param: until time  end of the range, exclusive
-- param: topic text  only responses for this topic
-- param: env text  only responses sent to this env
-- param: rule text  only this rule, e.g. --rule non_retryable_retried --fail-if 'violations > 0'
-- column: rule,day key
-- column: violations count unit=violations
-- column: checked count better=none
-- column: share rate
-- column: first_seen,last_seen time
-- column: example,example_token,detail,advice text
-- materialize: source_days, resp_daily, errors_in_range, non_retryable, bg_hours, background_daily, nr_retries, retried, gone, odd_tokens, provider_token_errors, daily, rule_list

-- common:
-- A response is a send or response record with a status (one attempt). Every violation is a
-- response, dated by its own time, except the two retry rules, whose retries are dated and
-- selected by the error they follow (as errors.retried_non_retryable counts them).
--
-- The rules (violations / checked):
-- background_with_alert: background pushes (as silent counts them) whose payload has alert, sound
--   or badge / background pushes. Equals silent.with_alert.
-- background_priority_10: background pushes whose priority is not 5 (missing = APNs' default,
--   10) / background pushes. Equals silent.priority_not_5.
-- alert_without_content: push type alert whose payload has no alert, sound or badge / alert
--   pushes whose payload was logged.
-- missing_push_type: responses without apns-push-type / responses of the sources that log APNs
--   headers, decided per source and UTC day (some response of that source and day has a
--   push_type, priority, collapse_id or expiration).
-- mutable_without_alert: mutable-content 1 and no alert / mutable-content pushes whose payload
--   was logged.
-- retry_without_backoff: a 429 or 5xx response's first retry (a later response to the same
--   token and topic within one hour with the same apns-id or attempt > 1) that came less than
--   1 s after it, or not later than the interval before it (when the error was itself a retry
--   of a 429/5xx) / 429 and 5xx responses that were retried.
-- non_retryable_retried: as errors.retried_non_retryable: later responses to the same token and
--   topic within one hour of a token-gone, token-bad or request error, with the same apns-id,
--   attempt > 1 or the same collapse-id, and no registration of the token in between; each
--   retry counts once, for the latest such error before it / those errors and their retries.
-- sent_after_gone: as gone.sends_after_gone / all responses.
-- malformed_token: responses to tokens that are not hex (masked tokens in the logs excluded) /
--   responses to unmasked tokens; detail: the app versions that registered them.
-- provider_token_refresh: ExpiredProviderToken or TooManyProviderTokenUpdates / all responses.
-- `not observable` instead of a count: the logs of the range lack the data the rule needs
-- (no APNs headers, no payloads, no priorities, no apns-id/attempt/collapse-id, only masked
-- tokens); `detail` says which.
--
-- weeks: the periods whose facts are told apart; one, the range (the weekly page runs this
-- report once per week).
weeks(wk, lo, hi) AS (SELECT 0, -9000000000000000000, 9000000000000000000),
resp_rows AS NOT MATERIALIZED (
  -- The responses of the range with the flags of the per-response rules, read only around a
  -- rule's first and last violation.
  SELECT s.id, coalesce(s.source_id, 0) AS src, s.time_ms AS t, s.push_type_id IS NULL AS untyped,
         coalesce(s.push_type_id = (SELECT id FROM push_types WHERE name = 'alert') AND s.has_alert = 0 AND s.has_sound = 0 AND s.has_badge = 0, 0) AS alert_v,
         coalesce(s.mutable_content = 1 AND s.has_alert = 0, 0) AS mutable_v
  FROM responses s
  WHERE s.time_ms >= :since AND s.time_ms < :until
    AND (:topic_id IS NULL OR s.topic_id = :topic_id) AND (:env_id IS NULL OR s.env_id = :env_id)
), whole_hours(lo, hi) AS (
  -- Whole UTC hours of the range, [lo, hi), are read from hygiene_hourly and background_hourly
  -- (derived at ingest); the partial hours at its ends (the two rows of record_edges) from sends
  -- and the background_pushes view.
  SELECT whole_hours_start(:since, :until), whole_hours_end(:since, :until)
), record_edges(lo, hi) AS (
  SELECT :since, lo FROM whole_hours UNION ALL SELECT hi, :until FROM whole_hours
), hyg_rows AS (
  SELECT h.source_id AS src, h.hour / 24 AS day, h.hour, h.responses, h.with_headers, h.with_payload, h.with_ids, h.untyped,
         h.alert_logged AS alert_n, h.alert_empty AS alert_v, h.mutable_logged AS mutable_n, h.mutable_empty AS mutable_v
  FROM hygiene_hourly h, whole_hours w
  WHERE h.hour >= w.lo / 3600000 AND h.hour < w.hi / 3600000 AND (:topic_id IS NULL OR h.topic_id = :topic_id) AND (:env_id IS NULL OR h.env_id = :env_id)
  UNION ALL
  SELECT coalesce(s.source_id, 0), s.time_ms / 86400000, s.time_ms / 3600000, 1,
         s.push_type_id IS NOT NULL OR s.priority IS NOT NULL OR s.collapse_id IS NOT NULL OR s.expiration IS NOT NULL,
         s.has_alert IS NOT NULL, s.apns_id IS NOT NULL OR s.attempt IS NOT NULL OR s.collapse_id IS NOT NULL,
         s.push_type_id IS NULL, coalesce(s.push_type_id = (SELECT id FROM push_types WHERE name = 'alert') AND s.has_alert IS NOT NULL, 0),
         coalesce(s.push_type_id = (SELECT id FROM push_types WHERE name = 'alert') AND s.has_alert = 0 AND s.has_sound = 0 AND s.has_badge = 0, 0),
         coalesce(s.mutable_content = 1 AND s.has_alert IS NOT NULL, 0), coalesce(s.mutable_content = 1 AND s.has_alert = 0, 0)
  FROM record_edges r CROSS JOIN responses s
  WHERE s.time_ms >= r.lo AND s.time_ms < r.hi
    AND (:topic_id IS NULL OR s.topic_id = :topic_id) AND (:env_id IS NULL OR s.env_id = :env_id)
), source_days AS (
  -- Per source and UTC day. headers: some response has a push_type, priority, collapse_id or
  -- expiration; payload: a payload was logged (has_alert is 0 or 1 then); ids: an apns_id,
  -- attempt or collapse_id.
  SELECT src, day, sum(responses) AS n, max(with_headers > 0) AS headers, max(with_payload > 0) AS payload,
         max(with_ids > 0) AS ids, sum(untyped) AS untyped_v, sum(alert_n) AS alert_n, sum(alert_v) AS alert_v,
         sum(mutable_n) AS mutable_n, sum(mutable_v) AS mutable_v,
         min(CASE WHEN untyped > 0 THEN hour END) AS untyped_h1, max(CASE WHEN untyped > 0 THEN hour END) AS untyped_h2,
         min(CASE WHEN alert_v > 0 THEN hour END) AS alert_h1, max(CASE WHEN alert_v > 0 THEN hour END) AS alert_h2,
         min(CASE WHEN mutable_v > 0 THEN hour END) AS mutable_h1, max(CASE WHEN mutable_v > 0 THEN hour END) AS mutable_h2
  FROM hyg_rows GROUP BY src, day
), resp_daily AS (
  -- Per day; missing_push_type counts only the sources that log APNs headers that day.
  SELECT day, sum(n) AS n, sum(CASE WHEN headers THEN n END) AS header_n, sum(CASE WHEN headers THEN untyped_v END) AS untyped_v,
         max(headers) AS headers, max(payload) AS payload, max(ids) AS ids, sum(n - untyped_v) AS typed,
         sum(alert_n) AS alert_n, sum(alert_v) AS alert_v, sum(mutable_n) AS mutable_n, sum(mutable_v) AS mutable_v
  FROM source_days GROUP BY day
), resp_ends AS (
  -- The first and last violation of each per-response rule, looked up in its first and last hour
  -- (the hour of hyg_rows with the first / last violating response).
  SELECT rule, d1, d2,
         (SELECT min(r.t) FROM resp_rows r WHERE r.t >= h1 * 3600000 AND r.t < (h1 + 1) * 3600000 AND CASE rule
            WHEN 'missing_push_type' THEN r.untyped AND r.src IN (SELECT src FROM source_days WHERE day = d1 AND headers)
            WHEN 'alert_without_content' THEN r.alert_v ELSE r.mutable_v END) AS f,
         (SELECT max(r.t) FROM resp_rows r WHERE r.t >= h2 * 3600000 AND r.t < (h2 + 1) * 3600000 AND CASE rule
            WHEN 'missing_push_type' THEN r.untyped AND r.src IN (SELECT src FROM source_days WHERE day = d2 AND headers)
            WHEN 'alert_without_content' THEN r.alert_v ELSE r.mutable_v END) AS l
  FROM (SELECT 'missing_push_type' AS rule, min(day) AS d1, max(day) AS d2, min(untyped_h1) AS h1, max(untyped_h2) AS h2
        FROM source_days WHERE headers AND untyped_v > 0
        UNION ALL SELECT 'alert_without_content', min(day), max(day), min(alert_h1), max(alert_h2) FROM source_days WHERE alert_v > 0
        UNION ALL SELECT 'mutable_without_alert', min(day), max(day), min(mutable_h1), max(mutable_h2) FROM source_days WHERE mutable_v > 0)
  WHERE d1 IS NOT NULL
), resp_first AS (
  -- The example of those rules: the first violation.
  SELECT e.rule, e.f, e.l,
         (SELECT min(r.id) FROM resp_rows r WHERE r.t = e.f AND CASE e.rule
            WHEN 'missing_push_type' THEN r.untyped AND r.src IN (SELECT src FROM source_days WHERE day = e.d1 AND headers)
            WHEN 'alert_without_content' THEN r.alert_v ELSE r.mutable_v END) AS ex
  FROM resp_ends e
), bg_hours AS (
  -- Background pushes as the silent report reads them, per hour: whole hours from
  -- background_hourly, the partial hours at the ends from background_pushes (record_edges), each
  -- part in its table's order (no sort of every push); no hour is in two parts.
  SELECT b.hour, sum(b.pushes) AS n, sum(b.priorities) AS priorities, sum(b.with_alert) AS alert_v, sum(b.priority_not_5) AS p10_v
  FROM background_hourly b
  WHERE b.hour >= (SELECT lo FROM whole_hours) / 3600000 AND b.hour < (SELECT hi FROM whole_hours) / 3600000
    AND (:topic_id IS NULL OR b.topic_id = :topic_id) AND (:env_id IS NULL OR b.env_id = :env_id)
  GROUP BY b.hour
  UNION ALL
  SELECT p.hour, count(*), count(p.priority), sum(p.with_alert), count(CASE WHEN coalesce(p.priority, 10) <> 5 THEN 1 END)
  FROM record_edges r CROSS JOIN background_pushes p
  WHERE p.time_ms >= r.lo AND p.time_ms < r.hi
    AND (:topic_id IS NULL OR p.topic_id = :topic_id) AND (:env_id IS NULL OR p.env_id = :env_id)
  GROUP BY p.hour
), background_daily AS (
  SELECT hour / 24 AS day, sum(n) AS n, sum(priorities) AS priorities, sum(alert_v) AS alert_v, sum(p10_v) AS p10_v
  FROM bg_hours GROUP BY day
), bg_ends AS (
  -- The first and last violation of the background rules, looked up in their first and last hour.
  SELECT rule,
         (SELECT min(b.time_ms) FROM background_pushes b
          WHERE b.time_ms >= max(h1 * 3600000, :since) AND b.time_ms < min((h1 + 1) * 3600000, :until)
            AND (:topic_id IS NULL OR b.topic_id = :topic_id) AND (:env_id IS NULL OR b.env_id = :env_id)
            AND CASE rule WHEN 'background_with_alert' THEN b.with_alert = 1 ELSE coalesce(b.priority, 10) <> 5 END) AS f,
         (SELECT max(b.time_ms) FROM background_pushes b
          WHERE b.time_ms >= max(h2 * 3600000, :since) AND b.time_ms < min((h2 + 1) * 3600000, :until)
            AND (:topic_id IS NULL OR b.topic_id = :topic_id) AND (:env_id IS NULL OR b.env_id = :env_id)
            AND CASE rule WHEN 'background_with_alert' THEN b.with_alert = 1 ELSE coalesce(b.priority, 10) <> 5 END) AS l
  FROM (SELECT 'background_with_alert' AS rule, min(hour) AS h1, max(hour) AS h2 FROM bg_hours WHERE alert_v > 0
        UNION ALL SELECT 'background_priority_10', min(hour), max(hour) FROM bg_hours WHERE p10_v > 0)
  WHERE h1 IS NOT NULL
), bg_first AS (
  -- The example of the background rules: the first violation (the least id at its time).
  SELECT rule, f, l, (SELECT min(b.id) FROM background_pushes b
                WHERE b.time_ms = f AND (:topic_id IS NULL OR b.topic_id = :topic_id) AND (:env_id IS NULL OR b.env_id = :env_id)
                  AND CASE rule WHEN 'background_with_alert' THEN b.with_alert = 1 ELSE coalesce(b.priority, 10) <> 5 END) AS ex
  FROM bg_ends
  WHERE f IS NOT NULL
), errors_in_range AS (
  -- The errors the retry and JWT rules read, in one pass over the error index (sends_errors holds
  -- every column read here: no row lookups).
  SELECT s.id, s.time_ms AS t, s.token_id, s.topic_id, s.category_id, s.reason_id
  FROM responses s
  WHERE s.status <> 200 AND s.time_ms >= :since AND s.time_ms < :until
    AND (:topic_id IS NULL OR s.topic_id = :topic_id) AND (:env_id IS NULL OR s.env_id = :env_id)
    AND (s.category_id IN (SELECT id FROM categories WHERE never_retry = 1 OR name IN ('rate', 'server'))
         OR s.reason_id IN (SELECT id FROM reasons WHERE name IN ('ExpiredProviderToken', 'TooManyProviderTokenUpdates')))
), non_retryable AS (
  -- Non-retryable errors of the range (token-gone, token-bad, request).
  SELECT e.id, e.t
  FROM errors_in_range e WHERE e.token_id IS NOT NULL AND e.category_id IN (SELECT id FROM categories WHERE never_retry = 1)
), nr_retries AS (
  -- Their retries, found at ingest (retry_links; the definition is errors.sql's): a retry that
  -- follows several such errors belongs to the latest one.
  SELECT n.id AS error_id, n.t AS error_t, l.retry_id FROM non_retryable n JOIN retry_links l ON l.error_id = n.id
), backoff_errors AS (
  SELECT e.id, e.t FROM errors_in_range e
  WHERE e.category_id IN (SELECT id FROM categories WHERE name IN ('rate', 'server')) AND e.token_id IS NOT NULL
), retried AS (
  -- Their first retries and whether each came too soon, found at ingest (backoff_retries, with
  -- the definition above).
  SELECT e.id, e.t, l.retry_id AS rid, l.too_soon AS bad FROM backoff_errors e JOIN backoff_retries l ON l.error_id = e.id
), gone AS (
  -- As gone.sends_after_gone: responses after the token's first 410 with no registration of the
  -- token between that 410's APNs timestamp (or time) and the send.
  SELECT s.id, s.time_ms AS t
  FROM token_facts f CROSS JOIN responses s ON s.token_id = f.token_id AND s.time_ms > f.first_410
  WHERE f.first_410 IS NOT NULL
    AND s.time_ms >= :since AND s.time_ms < :until
    AND (:topic_id IS NULL OR s.topic_id = :topic_id) AND (:env_id IS NULL OR s.env_id = :env_id)
    AND NOT EXISTS (SELECT 1 FROM registers x WHERE x.token_id = f.token_id
                    AND x.time_ms > coalesce(f.first_410_ts, f.first_410) AND x.time_ms <= s.time_ms)
), odd_tokens AS (
  -- Responses to non-hex tokens, malformed (the provider's fault) or masked (the log's).
  SELECT s.id, s.time_ms AS t, s.token_id, k.masked
  FROM tokens k CROSS JOIN responses s ON s.token_id = k.id  -- from the few odd tokens, through sends_token
  WHERE k.malformed = 1 AND +s.time_ms >= :since AND +s.time_ms < :until
    AND (:topic_id IS NULL OR s.topic_id = :topic_id) AND (:env_id IS NULL OR s.env_id = :env_id)
), provider_token_errors AS (
  SELECT e.id, e.t, (SELECT name FROM reasons WHERE id = e.reason_id) AS reason FROM errors_in_range e
  WHERE e.reason_id IN (SELECT id FROM reasons WHERE name IN ('ExpiredProviderToken', 'TooManyProviderTokenUpdates'))
), daily AS (
  -- Violations per rule and UTC day: count, first and last time, an example (a sends row id).
  SELECT 'background_with_alert' AS rule, day, alert_v AS v, NULL AS f, NULL AS l, NULL AS ex FROM background_daily WHERE alert_v > 0
  UNION ALL SELECT 'background_priority_10', day, p10_v, NULL, NULL, NULL FROM background_daily WHERE p10_v > 0
  UNION ALL SELECT 'alert_without_content', day, alert_v, NULL, NULL, NULL FROM resp_daily WHERE alert_v > 0
  UNION ALL SELECT 'missing_push_type', day, untyped_v, NULL, NULL, NULL FROM resp_daily WHERE untyped_v > 0
  UNION ALL SELECT 'mutable_without_alert', day, mutable_v, NULL, NULL, NULL FROM resp_daily WHERE mutable_v > 0
  UNION ALL SELECT 'retry_without_backoff', t / 86400000, count(*), min(t), max(t), min(rid) FROM retried WHERE bad GROUP BY 2
  UNION ALL SELECT 'non_retryable_retried', error_t / 86400000, count(*), min(error_t), max(error_t), min(retry_id) FROM nr_retries GROUP BY 2
  UNION ALL SELECT 'sent_after_gone', t / 86400000, count(*), min(t), max(t), min(id) FROM gone GROUP BY 2
  UNION ALL SELECT 'malformed_token', t / 86400000, count(*), min(t), max(t), min(id) FROM odd_tokens WHERE masked = 0 GROUP BY 2
  UNION ALL SELECT 'provider_token_refresh', t / 86400000, count(*), min(t), max(t), min(id) FROM provider_token_errors GROUP BY 2
), day_facts AS (
  -- What the logs record, per UTC day: a rule without its data is not observable, and the
  -- responses each rule applies to (checked).
  SELECT day, n AS responses, header_n, headers, payload, ids, typed, alert_n, mutable_n,
         0 AS background, 0 AS bg_priorities, 0 AS masked, 0 AS retried, 0 AS nr_checked FROM resp_daily
  UNION ALL SELECT day, 0, 0, 0, 0, 0, 0, 0, 0, n, priorities, 0, 0, 0 FROM background_daily
  UNION ALL SELECT t / 86400000, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, count(*), 0, 0 FROM odd_tokens WHERE masked = 1 GROUP BY 1
  UNION ALL SELECT t / 86400000, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, count(*), 0 FROM retried GROUP BY 1
  UNION ALL SELECT t / 86400000, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, count(*) FROM non_retryable GROUP BY 1
  UNION ALL SELECT error_t / 86400000, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, count(*) FROM nr_retries
    WHERE retry_id NOT IN (SELECT id FROM non_retryable) GROUP BY 1
), seen AS (
  SELECT w.wk, coalesce(sum(f.responses), 0) AS responses, coalesce(max(f.headers), 0) AS headers,
         coalesce(max(f.payload), 0) AS payload, coalesce(max(f.ids), 0) AS ids, coalesce(sum(f.typed), 0) > 0 AS typed,
         coalesce(sum(f.header_n), 0) AS header_responses, coalesce(sum(f.alert_n), 0) AS alert_n,
         coalesce(sum(f.mutable_n), 0) AS mutable_n, coalesce(sum(f.background), 0) AS background,
         coalesce(sum(f.bg_priorities), 0) AS bg_priorities, coalesce(sum(f.masked), 0) AS masked,
         coalesce(sum(f.retried), 0) AS retried, coalesce(sum(f.nr_checked), 0) AS nr_checked
  FROM weeks w LEFT JOIN day_facts f ON f.day * 86400000 >= w.lo AND f.day * 86400000 < w.hi
  GROUP BY w.wk
), rule_list(wk, ord, rule, checked, missing, advice) AS (
  -- checked: the responses the rule applies to; missing: why it is not observable (NULL: it is).
  SELECT wk, 1, 'background_with_alert', background,
         CASE WHEN background = 0 AND NOT typed AND NOT payload THEN 'no push_type or payload logged: background pushes cannot be told apart' END,
         'send background pushes with content-available only; put alert, sound and badge in an alert push'
  FROM seen UNION ALL
  SELECT wk, 2, 'background_priority_10', background,
         CASE WHEN background = 0 AND NOT typed AND NOT payload THEN 'no push_type or payload logged: background pushes cannot be told apart'
              WHEN background > 0 AND bg_priorities = 0 THEN 'no apns-priority logged for background pushes' END,
         'send background pushes with apns-priority 5' FROM seen UNION ALL
  SELECT wk, 3, 'alert_without_content', alert_n,
         CASE WHEN NOT payload THEN 'no payloads logged' END,
         'give every alert push an alert (title/body), sound or badge, or send it as background' FROM seen UNION ALL
  SELECT wk, 4, 'missing_push_type', header_responses,
         CASE WHEN NOT headers THEN 'no APNs headers logged (push_type, priority, collapse_id, expiration)' END,
         'set apns-push-type on every request (alert, background, voip, ...)' FROM seen UNION ALL
  SELECT wk, 5, 'mutable_without_alert', mutable_n,
         CASE WHEN NOT payload THEN 'no payloads logged' END,
         'set mutable-content only on pushes with an alert: the service extension never runs without one' FROM seen UNION ALL
  SELECT wk, 6, 'retry_without_backoff', retried,
         CASE WHEN NOT ids THEN 'no apns-id, attempt or collapse-id logged: retries cannot be told apart' END,
         'back off exponentially after 429 and 5xx: wait at least 1 s, longer at each attempt' FROM seen UNION ALL
  SELECT wk, 7, 'non_retryable_retried', nr_checked,
         CASE WHEN NOT ids THEN 'no apns-id, attempt or collapse-id logged: retries cannot be told apart' END,
         'never retry 400 and 410 answers: fix the request, or drop the token' FROM seen UNION ALL
  SELECT wk, 8, 'sent_after_gone', responses, NULL,
         'stop sending to a token after its 410 until the app registers it again' FROM seen UNION ALL
  SELECT wk, 9, 'malformed_token', responses - masked,
         CASE WHEN responses > 0 AND responses = masked THEN 'every token in the logs is masked' END,
         'upload tokens as hex (the bytes of deviceToken, hex-encoded), not the description of the Data' FROM seen UNION ALL
  SELECT wk, 10, 'provider_token_refresh', responses, NULL,
         'refresh the provider JWT every 20 to 60 minutes, and reuse it meanwhile' FROM seen
), totals AS (
  SELECT rule, sum(v) AS v, min(f) AS f, max(l) AS l, min(ex) AS ex
  FROM (SELECT rule, v, f, l, ex FROM daily UNION ALL SELECT rule, 0, f, l, ex FROM resp_first
        UNION ALL SELECT rule, 0, f, l, ex FROM bg_first)
  GROUP BY rule
)

-- section: rules
-- One row per rule, in a fixed order. example: the apns-id of one violating response (the
-- first for the per-response and background rules, else the one stored first), example_token
-- its token.
SELECT l.rule,
       CASE WHEN l.missing IS NULL THEN coalesce(t.v, 0) ELSE 'not observable' END AS violations,
       l.checked,
       CASE WHEN l.missing IS NULL THEN round(1.0 * coalesce(t.v, 0) / nullif(l.checked, 0), 6) END AS share,
       rfc3339(t.f) AS first_seen, rfc3339(t.l) AS last_seen,
       apns_text(x.apns_id) AS example, k.token AS example_token,
       coalesce(l.missing,
         CASE l.rule
           WHEN 'malformed_token' THEN
             (SELECT 'registered by app versions ' || group_concat(v || ' (' || n || ' tokens)', ', ') FROM (
                SELECT coalesce((SELECT name FROM app_versions WHERE id = g.app_version_id), '(unknown)') AS v,
                       count(DISTINCT g.token_id) AS n
                FROM registers g WHERE g.token_id IN (SELECT token_id FROM odd_tokens WHERE masked = 0)
                GROUP BY 1 ORDER BY n DESC, v))
           WHEN 'provider_token_refresh' THEN
             (SELECT group_concat(reason || ' ' || n, ', ') FROM (SELECT reason, count(*) AS n FROM provider_token_errors GROUP BY reason ORDER BY n DESC, reason))
         END) AS detail,
       l.advice
FROM rule_list l
LEFT JOIN totals t ON t.rule = l.rule AND l.missing IS NULL
LEFT JOIN sends x ON x.id = t.ex
LEFT JOIN tokens k ON k.id = x.token_id
WHERE :rule IS NULL OR l.rule = :rule
ORDER BY l.ord;

-- section: by_day
-- Violations per UTC day and rule (days without any are left out; rules not observable too).
SELECT bucket(d.day * 86400000, 'day') AS day, d.rule, d.v AS violations
FROM daily d JOIN rule_list l ON l.rule = d.rule AND l.missing IS NULL
WHERE :rule IS NULL OR d.rule = :rule
ORDER BY d.day, l.ord;
