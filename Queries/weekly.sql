-- title: Weekly push health
-- description: One page for Monday: the KPIs of the week against the week before (from the
-- description: gone, churn, env-mismatch, silent, opt-out and errors reports), the top error
-- description: reasons, the incidents found in the data, the worst app versions and daily trends.
-- param: week  ISO week, e.g. 2026-W47 (default: the last complete week)
-- param: budget=3  background pushes per token-hour (silent KPIs)
-- param: topic  only responses for this topic, in every KPI and section that can be split by topic
-- param: env  only responses sent to production or sandbox, likewise
-- param: unit=device  device or user (the turn_off_rate KPI)

-- section: basics
-- Used for the accepted share, auth-error, transport and rejects KPIs; :since/:until are the
-- week's bounds. Rejected lines have no topic or env: under --topic/--env rejects is null.
SELECT count(*) AS responses, coalesce(sum(status = 200), 0) AS accepted,
       round(1.0 * sum(status = 200) / nullif(count(*), 0), 6) AS accepted_share,
       coalesce(sum(category = 'auth'), 0) AS auth_errors,
       CASE WHEN :topic IS NULL AND :env IS NULL THEN
         (SELECT coalesce(sum(rejects), 0) FROM sources WHERE first_t < :until AND last_t >= :since) END AS rejects
FROM sends WHERE kind IN (0, 2) AND status IS NOT NULL AND t >= :since AND t < :until
  AND (:topic IS NULL OR topic = :topic) AND (:env IS NULL OR env = :env);

-- section: top_reasons
SELECT coalesce(s.reason, '(none)') AS reason, s.status, s.category, count(*) AS responses,
       count(DISTINCT s.token_id) AS tokens,
       round(1.0 * count(*) / (SELECT count(*) FROM sends WHERE kind IN (0, 2) AND status IS NOT NULL
                              AND t >= :since AND t < :until AND (:topic IS NULL OR topic = :topic) AND (:env IS NULL OR env = :env)), 6) AS response_share
FROM sends s
WHERE s.kind IN (0, 2) AND s.status IS NOT NULL AND s.status <> 200 AND s.t >= :since AND s.t < :until
  AND (:topic IS NULL OR s.topic = :topic) AND (:env IS NULL OR s.env = :env)
GROUP BY s.reason, s.status, s.category ORDER BY responses DESC LIMIT 10;

-- section: incidents
-- An incident: 5-minute windows where auth, server or rate errors are at least 3 and at least
-- 20% of the responses, merged when less than 15 minutes apart.
WITH b AS (
  SELECT t / 300000 AS k, count(*) AS responses, sum(category IN ('auth', 'server', 'rate')) AS errors
  FROM sends WHERE kind IN (0, 2) AND status IS NOT NULL AND t >= :since AND t < :until
    AND (:topic IS NULL OR topic = :topic) AND (:env IS NULL OR env = :env) GROUP BY k
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
       (SELECT s.category || ': ' || s.reason FROM sends s
        WHERE s.t >= w.ws AND s.t < w.we AND s.category IN ('auth', 'server', 'rate')
          AND (:topic IS NULL OR s.topic = :topic) AND (:env IS NULL OR s.env = :env)
        GROUP BY s.category, s.reason ORDER BY count(*) DESC LIMIT 1) AS reason,
       w.errors, w.responses, round(1.0 * w.errors / w.responses, 6) AS error_share
FROM w ORDER BY w.ws;

-- section: worst_app_versions
SELECT coalesce(f.reg_app_version, '(unknown)') AS app_version, count(*) AS responses,
       sum(s.status <> 200) AS errors, round(1.0 * sum(s.status <> 200) / count(*), 6) AS error_rate,
       sum(s.reason = 'BadDeviceToken') AS bad_device_token, coalesce(sum(f.malformed), 0) AS malformed_token_sends
FROM sends s LEFT JOIN token_facts f ON f.token_id = s.token_id
WHERE s.kind IN (0, 2) AND s.status IS NOT NULL AND s.t >= :since AND s.t < :until
  AND (:topic IS NULL OR s.topic = :topic) AND (:env IS NULL OR s.env = :env)
GROUP BY 1 ORDER BY error_rate DESC, responses DESC LIMIT 5;

-- section: trend_daily
-- Two weeks of days (the week before and this one), for the charts; days without responses are
-- filled with zeros by the runner, so an outage shows as a gap, not a shorter line.
WITH d AS (
  SELECT t / 86400000 AS day, count(*) AS responses, sum(status = 410) AS gone,
         sum(f.reg_env IS NOT NULL AND s.env IS NOT NULL AND s.env <> f.reg_env) AS mismatched_sends
  FROM sends s LEFT JOIN token_facts f ON f.token_id = s.token_id
  WHERE s.kind IN (0, 2) AND s.status IS NOT NULL AND s.t >= :since - 604800000 AND s.t < :until
    AND (:topic IS NULL OR s.topic = :topic) AND (:env IS NULL OR s.env = :env)
  GROUP BY day
), bg AS (
  SELECT day, sum(max(0, load - :budget)) AS over_budget_sends FROM (
    SELECT hour / 24 AS day, count(*) AS load FROM bg_pushes
    WHERE status = 200 AND hour BETWEEN (:since - 604800000) / 3600000 AND :until / 3600000
      AND t >= :since - 604800000 AND t < :until
      AND (:topic IS NULL OR topic = :topic) AND (:env IS NULL OR env = :env)
    GROUP BY hour, token_id
  ) GROUP BY day
)
SELECT bucket(d.day * 86400000, 'day') AS day, d.responses, round(1.0 * d.gone / d.responses, 6) AS gone_rate,
       d.mismatched_sends, coalesce(bg.over_budget_sends, 0) AS over_budget_sends
FROM d LEFT JOIN bg ON bg.day = d.day ORDER BY d.day;
