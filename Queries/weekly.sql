-- title: Weekly push health
-- description: One page for Monday: the KPIs of the week against the week before (from the
-- description: gone, churn, env-mismatch, silent, opt-out and errors reports), the top error
-- description: reasons, the incidents found in the data, the worst app versions and daily trends.
-- records: responses
-- param: week  ISO week, e.g. 2026-W47 (default: the last complete week)
-- param: budget=3  background pushes per token-hour (silent KPIs)
-- param: topic  only responses for this topic, in every KPI and section that can be split by topic
-- param: env  only responses sent to production or sandbox, likewise
-- param: unit=device  device or user (the turn_off_rate KPI)
-- KPIs: NAME = REPORT.SECTION.COLUMN, each report run on this week and the week before (so a KPI
-- always equals its report's figure); `whole` marks figures that cannot be split by topic or env,
-- left empty under --topic/--env rather than shown unfiltered.
-- kpi: responses = gone.summary.responses
-- kpi: accepted_share = weekly.basics.accepted_share
-- kpi: gone_rate = gone.summary.gone_rate
-- kpi: tokens_gone = gone.summary.tokens_gone
-- kpi: sends_after_gone = gone.summary.sends_after_gone
-- kpi: mismatched_sends = env-mismatch.summary.mismatched_sends
-- kpi: bad_device_token = env-mismatch.summary.bad_device_token
-- kpi: malformed_token_sends = env-mismatch.summary.malformed_token_sends
-- kpi: over_budget_share = silent.summary.over_budget_share
-- kpi: too_many_requests = silent.summary.too_many_requests
-- kpi: auth_errors = weekly.basics.auth_errors
-- kpi: turn_off_rate = opt-out.turn_off_rate.turn_off_rate whole
-- kpi: rotation_rate = churn.summary.rotation_rate whole
-- kpi: superseded_sends = churn.summary.superseded_sends
-- kpi: rejects = weekly.basics.rejects whole

-- section: basics
-- Used for the accepted share, auth-error, transport and rejects KPIs; :since/:until are the
-- week's bounds. Rejected lines have no topic or env: under --topic/--env rejects is null.
SELECT count(*) AS responses, count(CASE WHEN status = 200 THEN 1 END) AS accepted,
       round(1.0 * count(CASE WHEN status = 200 THEN 1 END) / nullif(count(*), 0), 6) AS accepted_share,
       count(CASE WHEN category_id = (SELECT id FROM categories WHERE name = 'auth') THEN 1 END) AS auth_errors,
       CASE WHEN :topic IS NULL AND :env IS NULL THEN
         (SELECT coalesce(sum(rejects), 0) FROM sources WHERE first_time_ms < :until AND last_time_ms >= :since) END AS rejects
FROM responses WHERE time_ms >= :since AND time_ms < :until
  AND (:topic_id IS NULL OR topic_id = :topic_id) AND (:env_id IS NULL OR env_id = :env_id);

-- section: top_reasons
SELECT coalesce((SELECT name FROM reasons WHERE id = s.reason_id), '(none)') AS reason, s.status,
       (SELECT name FROM categories WHERE id = s.category_id) AS category, count(*) AS responses,
       count(DISTINCT s.token_id) AS tokens,
       round(1.0 * count(*) / (SELECT sum(responses) FROM hourly_responses  -- the week's whole hours
                              WHERE hour >= :since / 3600000 AND hour < :until / 3600000
                                AND (:topic_id IS NULL OR topic_id = :topic_id) AND (:env_id IS NULL OR env_id = :env_id)), 6) AS response_share
FROM responses s
WHERE s.status <> 200 AND s.time_ms >= :since AND s.time_ms < :until
  AND (:topic_id IS NULL OR s.topic_id = :topic_id) AND (:env_id IS NULL OR s.env_id = :env_id)
GROUP BY s.reason_id, s.status, s.category_id ORDER BY responses DESC LIMIT 10;

-- section: incidents
-- An incident: 5-minute windows where auth, server, rate or transport errors (no APNs response:
-- TLS, DNS, timeouts) are at least 3 and at least 20% of the attempts (responses and transport
-- failures), merged when less than 15 minutes apart.
WITH RECURSIVE ks(k) AS (
  -- The week's 5-minute buckets, each read by its own range of the time index (no sort of the
  -- week's sends by bucket); x packs the bucket's attempts (high 32 bits) and errors (low 32 bits).
  SELECT :since / 300000 UNION ALL SELECT k + 1 FROM ks WHERE k < (:until - 1) / 300000
), bx AS MATERIALIZED (
  SELECT k, (SELECT (count(*) << 32) + count(CASE WHEN category_id IN (SELECT id FROM categories WHERE name IN ('auth', 'server', 'rate', 'transport')) THEN 1 END)
             FROM sends WHERE time_ms >= max(k * 300000, :since) AND time_ms < min((k + 1) * 300000, :until)
               AND kind IN (0, 2) AND (status IS NOT NULL OR category_id = 10)  -- 10: transport (a fixed id)
               AND (:topic_id IS NULL OR topic_id = :topic_id) AND (:env_id IS NULL OR env_id = :env_id)) AS x
  FROM ks
), b AS (
  SELECT k, x >> 32 AS responses, x & 4294967295 AS errors FROM bx WHERE x > 0
), h AS (
  SELECT k, responses, errors, CASE WHEN k - lag(k) OVER (ORDER BY k) <= 3 THEN 0 ELSE 1 END AS new_window
  FROM b WHERE errors >= 3 AND errors >= 0.2 * responses
), hot AS (
  SELECT k, responses, errors, sum(new_window) OVER (ORDER BY k ROWS UNBOUNDED PRECEDING) AS grp FROM h
), w AS (
  SELECT min(k) * 300000 AS ws, (max(k) + 1) * 300000 AS we, sum(errors) AS errors, sum(responses) AS responses
  FROM hot GROUP BY grp
)
SELECT rfc3339(w.ws) AS window_start, rfc3339(w.we) AS window_end, (w.we - w.ws) / 60000 AS minutes,
       (SELECT (SELECT name FROM categories WHERE id = s.category_id) || ': '
               || coalesce((SELECT name FROM reasons WHERE id = s.reason_id), s.error) FROM sends s
        WHERE s.time_ms >= w.ws AND s.time_ms < w.we
          AND s.category_id IN (SELECT id FROM categories WHERE name IN ('auth', 'server', 'rate', 'transport'))
          AND (:topic_id IS NULL OR s.topic_id = :topic_id) AND (:env_id IS NULL OR s.env_id = :env_id)
        GROUP BY s.category_id, coalesce(s.reason_id, s.error) ORDER BY count(*) DESC LIMIT 1) AS reason,
       w.errors, w.responses, round(1.0 * w.errors / w.responses, 6) AS error_share
FROM w ORDER BY w.ws;

-- section: worst_app_versions
-- app_version is that of the token's latest registration. The week's responses are counted per
-- token first, from the covering index sends_token read whole (+time_ms: no time plan), then
-- joined to each token's facts: reading a week's rows by time looks each one up in `sends` and
-- sorts them (at 25 M records 5.1 s against 2.4 s).
SELECT coalesce((SELECT name FROM app_versions WHERE id = f.reg_app_version_id), '(unknown)') AS app_version, sum(p.n) AS responses,
       sum(p.e) AS errors, round(1.0 * sum(p.e) / sum(p.n), 6) AS error_rate, sum(p.b) AS bad_device_token,
       coalesce(sum(p.n * f.malformed), 0) AS malformed_token_sends
FROM (SELECT s.token_id, count(*) AS n, sum(s.status <> 200) AS e,
             sum(s.reason_id = (SELECT id FROM reasons WHERE name = 'BadDeviceToken')) AS b
      FROM responses s
      WHERE +s.time_ms >= :since AND +s.time_ms < :until
        AND (:topic_id IS NULL OR s.topic_id = :topic_id) AND (:env_id IS NULL OR s.env_id = :env_id)
      GROUP BY s.token_id) p
LEFT JOIN token_facts f ON f.token_id = p.token_id
GROUP BY 1 ORDER BY error_rate DESC, responses DESC LIMIT 5;

-- section: trend_daily
-- Two weeks of days (the week before and this one), for the charts; days without responses are
-- filled with zeros by the runner, so an outage shows as a gap, not a shorter line. Responses and
-- 410s per day from hourly_responses (derived at ingest; the weeks are whole hours); the sends to a
-- token in another env than its latest registration's, through the sends_token index per token.
WITH d AS (
  SELECT hour / 24 AS day, sum(responses) AS responses, sum(gone) AS gone
  FROM hourly_responses
  WHERE hour >= (:since - 604800000) / 3600000 AND hour < :until / 3600000
    AND (:topic_id IS NULL OR topic_id = :topic_id) AND (:env_id IS NULL OR env_id = :env_id)
  GROUP BY hour / 24
), mm AS (
  SELECT s.time_ms / 86400000 AS day, count(*) AS mismatched_sends
  FROM (SELECT s.time_ms FROM token_facts f CROSS JOIN sends s ON s.token_id = f.token_id AND s.env_id < f.reg_env_id
        WHERE s.time_ms >= :since - 604800000 AND s.time_ms < :until AND s.kind IN (0, 2) AND s.status IS NOT NULL
          AND (:topic_id IS NULL OR s.topic_id = :topic_id) AND (:env_id IS NULL OR s.env_id = :env_id)
        UNION ALL
        SELECT s.time_ms FROM token_facts f CROSS JOIN sends s ON s.token_id = f.token_id AND s.env_id > f.reg_env_id
        WHERE s.time_ms >= :since - 604800000 AND s.time_ms < :until AND s.kind IN (0, 2) AND s.status IS NOT NULL
          AND (:topic_id IS NULL OR s.topic_id = :topic_id) AND (:env_id IS NULL OR s.env_id = :env_id)) s
  GROUP BY 1
), bg AS (
  -- Over-budget sends per day from the token-hour loads (accepted background pushes) of
  -- background_hourly (derived at ingest; the weeks are whole hours, as for d).
  SELECT day, sum(max(0, load - :budget)) AS over_budget_sends FROM (
    SELECT b.hour / 24 AS day, sum(b.accepted) AS load FROM background_hourly b
    WHERE b.hour >= (:since - 604800000) / 3600000 AND b.hour < :until / 3600000
      AND (:topic_id IS NULL OR b.topic_id = :topic_id) AND (:env_id IS NULL OR b.env_id = :env_id)
    GROUP BY b.hour, b.token_id
  ) GROUP BY day
)
SELECT bucket(d.day * 86400000, 'day') AS day, d.responses, round(1.0 * d.gone / d.responses, 6) AS gone_rate,
       coalesce(mm.mismatched_sends, 0) AS mismatched_sends, coalesce(bg.over_budget_sends, 0) AS over_budget_sends
FROM d LEFT JOIN mm ON mm.day = d.day LEFT JOIN bg ON bg.day = d.day ORDER BY d.day;

-- section: provider_hygiene
-- The hygiene report's rules broken this week or last: violations per week, 'not observable'
-- when that week's logs lack the rule's data. The CTEs after `weeks` are hygiene.sql's common
-- block (without its comments), the range starting a week earlier: scripts/sync-weekly-hygiene.py
-- writes it, HygieneTests checks it.
WITH weeks(wk, lo, hi) AS (SELECT 0, :since - 604800000, :since UNION ALL SELECT 1, :since, :until),
resp_rows AS NOT MATERIALIZED (
  SELECT s.id, coalesce(s.source_id, 0) AS src, s.time_ms AS t, s.push_type_id IS NULL AS untyped,
         coalesce(s.push_type_id = (SELECT id FROM push_types WHERE name = 'alert') AND s.has_alert = 0 AND s.has_sound = 0 AND s.has_badge = 0, 0) AS alert_v,
         coalesce(s.mutable_content = 1 AND s.has_alert = 0, 0) AS mutable_v
  FROM responses s
  WHERE s.time_ms >= (:since - 604800000) AND s.time_ms < :until
    AND (:topic_id IS NULL OR s.topic_id = :topic_id) AND (:env_id IS NULL OR s.env_id = :env_id)
), hyg_edge AS (
  SELECT min(bucket_start((:since - 604800000) + 3599999, 'hour'), :until) AS e1,
         max(bucket_start(:until, 'hour'), min(bucket_start((:since - 604800000) + 3599999, 'hour'), :until)) AS e2,
         bucket_start((:since - 604800000) + 3599999, 'hour') / 3600000 AS h0, bucket_start(:until, 'hour') / 3600000 AS h1
), hyg_rows AS (
  SELECT h.source_id AS src, h.hour / 24 AS day, h.hour, h.responses, h.with_headers, h.with_payload, h.with_ids, h.untyped,
         h.alert_logged AS alert_n, h.alert_empty AS alert_v, h.mutable_logged AS mutable_n, h.mutable_empty AS mutable_v
  FROM hygiene_hourly h, hyg_edge e
  WHERE h.hour >= e.h0 AND h.hour < e.h1 AND (:topic_id IS NULL OR h.topic_id = :topic_id) AND (:env_id IS NULL OR h.env_id = :env_id)
  UNION ALL
  SELECT coalesce(s.source_id, 0), s.time_ms / 86400000, s.time_ms / 3600000, 1,
         s.push_type_id IS NOT NULL OR s.priority IS NOT NULL OR s.collapse_id IS NOT NULL OR s.expiration IS NOT NULL,
         s.has_alert IS NOT NULL, s.apns_id IS NOT NULL OR s.attempt IS NOT NULL OR s.collapse_id IS NOT NULL,
         s.push_type_id IS NULL, coalesce(s.push_type_id = (SELECT id FROM push_types WHERE name = 'alert') AND s.has_alert IS NOT NULL, 0),
         coalesce(s.push_type_id = (SELECT id FROM push_types WHERE name = 'alert') AND s.has_alert = 0 AND s.has_sound = 0 AND s.has_badge = 0, 0),
         coalesce(s.mutable_content = 1 AND s.has_alert IS NOT NULL, 0), coalesce(s.mutable_content = 1 AND s.has_alert = 0, 0)
  FROM responses s, hyg_edge e
  WHERE s.time_ms >= (:since - 604800000) AND s.time_ms < e.e1
    AND (:topic_id IS NULL OR s.topic_id = :topic_id) AND (:env_id IS NULL OR s.env_id = :env_id)
  UNION ALL
  SELECT coalesce(s.source_id, 0), s.time_ms / 86400000, s.time_ms / 3600000, 1,
         s.push_type_id IS NOT NULL OR s.priority IS NOT NULL OR s.collapse_id IS NOT NULL OR s.expiration IS NOT NULL,
         s.has_alert IS NOT NULL, s.apns_id IS NOT NULL OR s.attempt IS NOT NULL OR s.collapse_id IS NOT NULL,
         s.push_type_id IS NULL, coalesce(s.push_type_id = (SELECT id FROM push_types WHERE name = 'alert') AND s.has_alert IS NOT NULL, 0),
         coalesce(s.push_type_id = (SELECT id FROM push_types WHERE name = 'alert') AND s.has_alert = 0 AND s.has_sound = 0 AND s.has_badge = 0, 0),
         coalesce(s.mutable_content = 1 AND s.has_alert IS NOT NULL, 0), coalesce(s.mutable_content = 1 AND s.has_alert = 0, 0)
  FROM responses s, hyg_edge e
  WHERE s.time_ms >= e.e2 AND s.time_ms < :until
    AND (:topic_id IS NULL OR s.topic_id = :topic_id) AND (:env_id IS NULL OR s.env_id = :env_id)
), resp AS (
  SELECT src, day, sum(responses) AS n, max(with_headers > 0) AS headers, max(with_payload > 0) AS payload,
         max(with_ids > 0) AS ids, sum(untyped) AS untyped_v, sum(alert_n) AS alert_n, sum(alert_v) AS alert_v,
         sum(mutable_n) AS mutable_n, sum(mutable_v) AS mutable_v,
         min(CASE WHEN untyped > 0 THEN hour END) AS untyped_h1, max(CASE WHEN untyped > 0 THEN hour END) AS untyped_h2,
         min(CASE WHEN alert_v > 0 THEN hour END) AS alert_h1, max(CASE WHEN alert_v > 0 THEN hour END) AS alert_h2,
         min(CASE WHEN mutable_v > 0 THEN hour END) AS mutable_h1, max(CASE WHEN mutable_v > 0 THEN hour END) AS mutable_h2
  FROM hyg_rows GROUP BY src, day
), resp_daily AS (
  SELECT day, sum(n) AS n, sum(CASE WHEN headers THEN n END) AS header_n, sum(CASE WHEN headers THEN untyped_v END) AS untyped_v,
         max(headers) AS headers, max(payload) AS payload, max(ids) AS ids, sum(n - untyped_v) AS typed,
         sum(alert_n) AS alert_n, sum(alert_v) AS alert_v, sum(mutable_n) AS mutable_n, sum(mutable_v) AS mutable_v
  FROM resp GROUP BY day
), resp_ends AS (
  SELECT rule, d1, d2,
         (SELECT min(r.t) FROM resp_rows r WHERE r.t >= h1 * 3600000 AND r.t < (h1 + 1) * 3600000 AND CASE rule
            WHEN 'missing_push_type' THEN r.untyped AND r.src IN (SELECT src FROM resp WHERE day = d1 AND headers)
            WHEN 'alert_without_content' THEN r.alert_v ELSE r.mutable_v END) AS f,
         (SELECT max(r.t) FROM resp_rows r WHERE r.t >= h2 * 3600000 AND r.t < (h2 + 1) * 3600000 AND CASE rule
            WHEN 'missing_push_type' THEN r.untyped AND r.src IN (SELECT src FROM resp WHERE day = d2 AND headers)
            WHEN 'alert_without_content' THEN r.alert_v ELSE r.mutable_v END) AS l
  FROM (SELECT 'missing_push_type' AS rule, min(day) AS d1, max(day) AS d2, min(untyped_h1) AS h1, max(untyped_h2) AS h2
        FROM resp WHERE headers AND untyped_v > 0
        UNION ALL SELECT 'alert_without_content', min(day), max(day), min(alert_h1), max(alert_h2) FROM resp WHERE alert_v > 0
        UNION ALL SELECT 'mutable_without_alert', min(day), max(day), min(mutable_h1), max(mutable_h2) FROM resp WHERE mutable_v > 0)
  WHERE d1 IS NOT NULL
), resp_first AS (
  SELECT e.rule, e.f, e.l,
         (SELECT min(r.id) FROM resp_rows r WHERE r.t = e.f AND CASE e.rule
            WHEN 'missing_push_type' THEN r.untyped AND r.src IN (SELECT src FROM resp WHERE day = e.d1 AND headers)
            WHEN 'alert_without_content' THEN r.alert_v ELSE r.mutable_v END) AS ex
  FROM resp_ends e
), bg_hours AS (
  SELECT b.hour, sum(b.pushes) AS n, sum(b.priorities) AS priorities, sum(b.with_alert) AS alert_v, sum(b.priority_not_5) AS p10_v
  FROM background_hourly b
  WHERE b.hour >= (SELECT h0 FROM hyg_edge) AND b.hour < (SELECT h1 FROM hyg_edge) AND (:topic_id IS NULL OR b.topic_id = :topic_id) AND (:env_id IS NULL OR b.env_id = :env_id)
  GROUP BY b.hour
  UNION ALL
  SELECT hour, count(*), count(priority), sum(with_alert), count(CASE WHEN coalesce(priority, 10) <> 5 THEN 1 END)
  FROM background_pushes
  WHERE time_ms >= (:since - 604800000) AND time_ms < (SELECT e1 FROM hyg_edge)
    AND (:topic_id IS NULL OR topic_id = :topic_id) AND (:env_id IS NULL OR env_id = :env_id)
  GROUP BY hour
  UNION ALL
  SELECT hour, count(*), count(priority), sum(with_alert), count(CASE WHEN coalesce(priority, 10) <> 5 THEN 1 END)
  FROM background_pushes
  WHERE time_ms >= (SELECT e2 FROM hyg_edge) AND time_ms < :until
    AND (:topic_id IS NULL OR topic_id = :topic_id) AND (:env_id IS NULL OR env_id = :env_id)
  GROUP BY hour
), bg AS (
  SELECT hour / 24 AS day, sum(n) AS n, sum(priorities) AS priorities, sum(alert_v) AS alert_v, sum(p10_v) AS p10_v
  FROM bg_hours GROUP BY day
), bg_ends AS (
  SELECT rule,
         (SELECT min(b.time_ms) FROM background_pushes b
          WHERE b.time_ms >= max(h1 * 3600000, (:since - 604800000)) AND b.time_ms < min((h1 + 1) * 3600000, :until)
            AND (:topic_id IS NULL OR b.topic_id = :topic_id) AND (:env_id IS NULL OR b.env_id = :env_id)
            AND CASE rule WHEN 'background_with_alert' THEN b.with_alert = 1 ELSE coalesce(b.priority, 10) <> 5 END) AS f,
         (SELECT max(b.time_ms) FROM background_pushes b
          WHERE b.time_ms >= max(h2 * 3600000, (:since - 604800000)) AND b.time_ms < min((h2 + 1) * 3600000, :until)
            AND (:topic_id IS NULL OR b.topic_id = :topic_id) AND (:env_id IS NULL OR b.env_id = :env_id)
            AND CASE rule WHEN 'background_with_alert' THEN b.with_alert = 1 ELSE coalesce(b.priority, 10) <> 5 END) AS l
  FROM (SELECT 'background_with_alert' AS rule, min(hour) AS h1, max(hour) AS h2 FROM bg_hours WHERE alert_v > 0
        UNION ALL SELECT 'background_priority_10', min(hour), max(hour) FROM bg_hours WHERE p10_v > 0)
  WHERE h1 IS NOT NULL
), bg_first AS (
  SELECT rule, f, l, (SELECT min(b.id) FROM background_pushes b
                WHERE b.time_ms = f AND (:topic_id IS NULL OR b.topic_id = :topic_id) AND (:env_id IS NULL OR b.env_id = :env_id)
                  AND CASE rule WHEN 'background_with_alert' THEN b.with_alert = 1 ELSE coalesce(b.priority, 10) <> 5 END) AS ex
  FROM bg_ends
  WHERE f IS NOT NULL
), errs AS (
  SELECT s.id, s.time_ms AS t, s.token_id, s.topic_id, s.category_id, s.reason_id
  FROM responses s
  WHERE s.status <> 200 AND s.time_ms >= (:since - 604800000) AND s.time_ms < :until
    AND (:topic_id IS NULL OR s.topic_id = :topic_id) AND (:env_id IS NULL OR s.env_id = :env_id)
    AND (s.category_id IN (SELECT id FROM categories WHERE never_retry = 1 OR name IN ('rate', 'server'))
         OR s.reason_id IN (SELECT id FROM reasons WHERE name IN ('ExpiredProviderToken', 'TooManyProviderTokenUpdates')))
), nr AS (
  SELECT e.id, e.t
  FROM errs e WHERE e.token_id IS NOT NULL AND e.category_id IN (SELECT id FROM categories WHERE never_retry = 1)
), nr_retries AS (
  SELECT n.id AS error_id, n.t AS error_t, l.retry_id FROM nr n JOIN retry_links l ON l.error_id = n.id
), bo_errs AS (
  SELECT e.id, e.t FROM errs e
  WHERE e.category_id IN (SELECT id FROM categories WHERE name IN ('rate', 'server')) AND e.token_id IS NOT NULL
), retried AS (
  SELECT e.id, e.t, l.retry_id AS rid, l.too_soon AS bad FROM bo_errs e JOIN backoff_retries l ON l.error_id = e.id
), gone AS (
  SELECT s.id, s.time_ms AS t
  FROM token_facts f CROSS JOIN responses s ON s.token_id = f.token_id AND s.time_ms > f.first_410
  WHERE f.first_410 IS NOT NULL
    AND s.time_ms >= (:since - 604800000) AND s.time_ms < :until
    AND (:topic_id IS NULL OR s.topic_id = :topic_id) AND (:env_id IS NULL OR s.env_id = :env_id)
    AND NOT EXISTS (SELECT 1 FROM registers x WHERE x.token_id = f.token_id
                    AND x.time_ms > coalesce(f.first_410_ts, f.first_410) AND x.time_ms <= s.time_ms)
), odd AS (
  SELECT s.id, s.time_ms AS t, s.token_id, k.masked
  FROM tokens k CROSS JOIN responses s ON s.token_id = k.id  -- from the few odd tokens, through sends_token
  WHERE k.malformed = 1 AND +s.time_ms >= (:since - 604800000) AND +s.time_ms < :until
    AND (:topic_id IS NULL OR s.topic_id = :topic_id) AND (:env_id IS NULL OR s.env_id = :env_id)
), jwt AS (
  SELECT e.id, e.t, (SELECT name FROM reasons WHERE id = e.reason_id) AS reason FROM errs e
  WHERE e.reason_id IN (SELECT id FROM reasons WHERE name IN ('ExpiredProviderToken', 'TooManyProviderTokenUpdates'))
), daily AS (
  SELECT 'background_with_alert' AS rule, day, alert_v AS v, NULL AS f, NULL AS l, NULL AS ex FROM bg WHERE alert_v > 0
  UNION ALL SELECT 'background_priority_10', day, p10_v, NULL, NULL, NULL FROM bg WHERE p10_v > 0
  UNION ALL SELECT 'alert_without_content', day, alert_v, NULL, NULL, NULL FROM resp_daily WHERE alert_v > 0
  UNION ALL SELECT 'missing_push_type', day, untyped_v, NULL, NULL, NULL FROM resp_daily WHERE untyped_v > 0
  UNION ALL SELECT 'mutable_without_alert', day, mutable_v, NULL, NULL, NULL FROM resp_daily WHERE mutable_v > 0
  UNION ALL SELECT 'retry_without_backoff', t / 86400000, count(*), min(t), max(t), min(rid) FROM retried WHERE bad GROUP BY 2
  UNION ALL SELECT 'non_retryable_retried', error_t / 86400000, count(*), min(error_t), max(error_t), min(retry_id) FROM nr_retries GROUP BY 2
  UNION ALL SELECT 'sent_after_gone', t / 86400000, count(*), min(t), max(t), min(id) FROM gone GROUP BY 2
  UNION ALL SELECT 'malformed_token', t / 86400000, count(*), min(t), max(t), min(id) FROM odd WHERE masked = 0 GROUP BY 2
  UNION ALL SELECT 'provider_token_refresh', t / 86400000, count(*), min(t), max(t), min(id) FROM jwt GROUP BY 2
), day_facts AS (
  SELECT day, n AS responses, header_n, headers, payload, ids, typed, alert_n, mutable_n,
         0 AS background, 0 AS bg_priorities, 0 AS masked, 0 AS retried, 0 AS nr_checked FROM resp_daily
  UNION ALL SELECT day, 0, 0, 0, 0, 0, 0, 0, 0, n, priorities, 0, 0, 0 FROM bg
  UNION ALL SELECT t / 86400000, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, count(*), 0, 0 FROM odd WHERE masked = 1 GROUP BY 1
  UNION ALL SELECT t / 86400000, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, count(*), 0 FROM retried GROUP BY 1
  UNION ALL SELECT t / 86400000, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, count(*) FROM nr GROUP BY 1
  UNION ALL SELECT error_t / 86400000, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, count(*) FROM nr_retries
    WHERE retry_id NOT IN (SELECT id FROM nr) GROUP BY 1
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
),
per_week AS (
  SELECT rule, sum(CASE WHEN day * 86400000 >= :since THEN v END) AS this_v,
         sum(CASE WHEN day * 86400000 < :since THEN v END) AS last_v
  FROM daily GROUP BY rule
)
SELECT l.rule,
       CASE WHEN l.missing IS NULL THEN coalesce(d.this_v, 0) ELSE 'not observable' END AS this_week,
       CASE WHEN p.missing IS NULL THEN coalesce(d.last_v, 0) ELSE 'not observable' END AS last_week,
       CASE WHEN l.missing IS NULL AND p.missing IS NULL THEN coalesce(d.this_v, 0) - coalesce(d.last_v, 0) END AS change
FROM rule_list l JOIN rule_list p ON p.rule = l.rule AND p.wk = 0
JOIN per_week d ON d.rule = l.rule
WHERE l.wk = 1 AND (coalesce(d.this_v, 0) > 0 OR coalesce(d.last_v, 0) > 0)
ORDER BY l.ord;
