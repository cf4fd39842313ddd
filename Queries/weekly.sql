-- title: Weekly push health
-- description: One page for Monday: the KPIs of the week against the week before (from the
-- description: gone, churn, env-mismatch, silent, opt-out and errors reports), the top error
-- description: reasons, the incidents found in the data, the worst app versions and daily trends.
-- records: responses
-- param: week week  ISO week, e.g. 2026-W47 (default: the last complete week)
-- param: budget int = 3  background pushes per token-hour (silent KPIs)
-- param: topic text  only responses for this topic, in every KPI and section that can be split by topic
-- param: env text  only responses sent to production or sandbox, likewise
-- param: unit enum(device,user) = device  device or user (the turn_off_rate KPI)
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
-- The hygiene rules broken this week or last: violations per week ('not observable' when that
-- week's logs lack the rule's data), the hygiene report itself run on each week.
-- weeks: provider_hygiene = hygiene.rules.violations by rule
-- column: this_week,last_week count unit=violations
-- Columns of the page's own sections; a column named as a KPI (the daily responses, gone_rate,
-- mismatched_sends) means what the KPI's source column means.
-- column: reason,status,category,app_version,day,rule,week key
-- column: accepted_share rate better=up  Accepted by APNs
-- column: auth_errors count unit=responses  Auth errors (JWT/certificate)
-- column: rejects count unit=lines  Rejected log lines
-- column: response_share,error_rate,error_share rate
-- column: window_start,window_end time
-- column: over_budget_sends count unit=pushes needs=token  Background pushes over budget
-- The turn-off rate of the last eight weeks, each against the units on at its start.
-- trend: trend_turn_off_rate = opt-out.turn_off_rate.turn_off_rate weeks 8 whole
-- fill: trend_daily.day by day
-- heading: kpis  Key figures
-- heading: top_reasons  Top error reasons
-- heading: incidents  Incidents
-- heading: worst_app_versions  Worst app versions
-- heading: trend_daily  Day by day
-- heading: trend_turn_off_rate  Turn-off rate by week
-- The incidents are marked on the daily charts and listed under "what changed".
-- marks: incidents count=errors  incidents (bursts of auth, server or rate errors)

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
WITH RECURSIVE five_minutes(k) AS (
  -- The week's 5-minute buckets (k: epoch ms / 300000), each read by its own range of the time
  -- index (no sort of the week's sends by bucket).
  SELECT :since / 300000 UNION ALL SELECT k + 1 FROM five_minutes WHERE k < (:until - 1) / 300000
), bucket_counts AS MATERIALIZED (
  -- attempts: responses and transport failures; errors: those of them in the incident
  -- categories, counted from the failures' partial indexes (sends_errors, sends_transport), which
  -- hold few rows.
  SELECT k,
         (SELECT count(*) FROM attempts
          WHERE time_ms >= max(k * 300000, :since) AND time_ms < min((k + 1) * 300000, :until)
            AND (:topic_id IS NULL OR topic_id = :topic_id) AND (:env_id IS NULL OR env_id = :env_id)) AS attempts,
         (SELECT count(*) FROM responses
          WHERE time_ms >= max(k * 300000, :since) AND time_ms < min((k + 1) * 300000, :until) AND status <> 200
            AND category_id IN (SELECT id FROM categories WHERE name IN ('auth', 'server', 'rate', 'transport'))
            AND (:topic_id IS NULL OR topic_id = :topic_id) AND (:env_id IS NULL OR env_id = :env_id))
         + (SELECT count(*) FROM transport_failures
            WHERE time_ms >= max(k * 300000, :since) AND time_ms < min((k + 1) * 300000, :until)
              AND kind IN (0, 2) AND status IS NULL
              AND (:topic_id IS NULL OR topic_id = :topic_id) AND (:env_id IS NULL OR env_id = :env_id)) AS errors
  FROM five_minutes
), hot_buckets AS (
  SELECT k, attempts, errors, CASE WHEN k - lag(k) OVER (ORDER BY k) <= 3 THEN 0 ELSE 1 END AS new_window
  FROM bucket_counts WHERE attempts > 0 AND errors >= 3 AND errors >= 0.2 * attempts
), grouped AS (
  SELECT k, attempts, errors, sum(new_window) OVER (ORDER BY k ROWS UNBOUNDED PRECEDING) AS grp FROM hot_buckets
), incident_windows AS (
  SELECT min(k) * 300000 AS ws, (max(k) + 1) * 300000 AS we, sum(errors) AS errors, sum(attempts) AS responses
  FROM grouped GROUP BY grp
)
SELECT rfc3339(w.ws) AS window_start, rfc3339(w.we) AS window_end, (w.we - w.ws) / 60000 AS minutes,
       (SELECT (SELECT name FROM categories WHERE id = s.category_id) || ': '
               || coalesce((SELECT name FROM reasons WHERE id = s.reason_id), s.error) FROM sends s
        WHERE s.time_ms >= w.ws AND s.time_ms < w.we
          AND s.category_id IN (SELECT id FROM categories WHERE name IN ('auth', 'server', 'rate', 'transport'))
          AND (:topic_id IS NULL OR s.topic_id = :topic_id) AND (:env_id IS NULL OR s.env_id = :env_id)
        GROUP BY s.category_id, coalesce(s.reason_id, s.error) ORDER BY count(*) DESC LIMIT 1) AS reason,
       w.errors, w.responses, round(1.0 * w.errors / w.responses, 6) AS error_share
FROM incident_windows w ORDER BY w.ws;

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
WITH daily_responses AS (
  SELECT hour / 24 AS day, sum(responses) AS responses, sum(gone) AS gone
  FROM hourly_responses
  WHERE hour >= (:since - 604800000) / 3600000 AND hour < :until / 3600000
    AND (:topic_id IS NULL OR topic_id = :topic_id) AND (:env_id IS NULL OR env_id = :env_id)
  GROUP BY hour / 24
), daily_mismatched AS (
  -- Per token, its responses to another env than its registered one: env_id <> reg_env_id as the
  -- two ranges below and above it of sends_token (token, env), which a <> cannot read.
  SELECT s.time_ms / 86400000 AS day, count(*) AS mismatched_sends
  FROM (SELECT s.time_ms FROM token_facts f CROSS JOIN responses s ON s.token_id = f.token_id AND s.env_id < f.reg_env_id
        WHERE s.time_ms >= :since - 604800000 AND s.time_ms < :until
          AND (:topic_id IS NULL OR s.topic_id = :topic_id) AND (:env_id IS NULL OR s.env_id = :env_id)
        UNION ALL
        SELECT s.time_ms FROM token_facts f CROSS JOIN responses s ON s.token_id = f.token_id AND s.env_id > f.reg_env_id
        WHERE s.time_ms >= :since - 604800000 AND s.time_ms < :until
          AND (:topic_id IS NULL OR s.topic_id = :topic_id) AND (:env_id IS NULL OR s.env_id = :env_id)) s
  GROUP BY 1
), daily_over_budget AS (
  -- Over-budget sends per day from the token-hour loads (accepted background pushes) of
  -- background_hourly (derived at ingest; the weeks are whole hours, as for daily_responses).
  SELECT day, sum(max(0, load - :budget)) AS over_budget_sends FROM (
    SELECT b.hour / 24 AS day, sum(b.accepted) AS load FROM background_hourly b
    WHERE b.hour >= (:since - 604800000) / 3600000 AND b.hour < :until / 3600000
      AND (:topic_id IS NULL OR b.topic_id = :topic_id) AND (:env_id IS NULL OR b.env_id = :env_id)
    GROUP BY b.hour, b.token_id
  ) GROUP BY day
)
SELECT bucket(d.day * 86400000, 'day') AS day, d.responses, round(1.0 * d.gone / d.responses, 6) AS gone_rate,
       coalesce(mm.mismatched_sends, 0) AS mismatched_sends, coalesce(bg.over_budget_sends, 0) AS over_budget_sends
FROM daily_responses d LEFT JOIN daily_mismatched mm ON mm.day = d.day LEFT JOIN daily_over_budget bg ON bg.day = d.day ORDER BY d.day;
