-- title: Opt-out after opt-in
-- description: Of the units (devices or users) that opted in to notifications, how many later
-- description: turned them off, how fast, and how each weekly opt-in cohort held up.
-- param: since  start of the range (units by opt-in time)
-- param: until  end of the range, exclusive
-- param: unit=device  device or user

-- section: summary
-- Observations are the auth of register and settings records (device_facts is derived from
-- them after each ingest). A device opts in at its first authorized observation and turns off
-- at its first later denied one. A user opts in when its first device does and turns off when a
-- device that had opted in turns off. uninstalled: opted-in units not turned off whose last
-- token got a 410 and was not registered again after the 410's timestamp. provisional: units
-- whose first decided observation (not notDetermined) is provisional.
WITH d AS (
  SELECT f.*, CASE WHEN :unit = 'user' THEN coalesce(f.user, f.dkey) ELSE f.dkey END AS unit,
         coalesce(t.first_410 IS NOT NULL AND t.last_reg <= coalesce(t.first_410_ts, t.first_410), 0) AS gone
  FROM device_facts f LEFT JOIN token_facts t ON t.token_id = f.last_token
), ranked AS (
  SELECT d.*, row_number() OVER (PARTITION BY unit ORDER BY last_reg DESC NULLS LAST) AS by_last_reg,
              row_number() OVER (PARTITION BY unit ORDER BY fd_t NULLS LAST) AS by_first_decided
  FROM d
), units AS (
  SELECT unit, min(opt_in) AS opt_in, min(off) AS off,
         max(CASE WHEN by_last_reg = 1 THEN gone END) AS last_gone,
         min(fd_t) AS fd_t, max(CASE WHEN by_first_decided = 1 THEN fd_auth = 'provisional' END) AS fd_provisional
  FROM ranked GROUP BY unit
), u AS (
  SELECT *, opt_in >= :since AND opt_in < :until AS in_range FROM units
)
SELECT coalesce(sum(in_range), 0) AS opted_in,
       coalesce(sum(in_range AND off IS NOT NULL), 0) AS turned_off,
       round(1.0 * sum(in_range AND off IS NOT NULL) / nullif(sum(in_range), 0), 6) AS turned_off_share,
       round(median(CASE WHEN in_range AND off IS NOT NULL THEN (off - opt_in) / 86400000.0 END), 3) AS median_days_to_off,
       coalesce(sum(in_range AND off IS NULL AND last_gone = 1), 0) AS uninstalled,
       coalesce(sum(fd_provisional = 1 AND fd_t >= :since AND fd_t < :until), 0) AS provisional
FROM u;

-- section: by_cohort
-- cohort: ISO week of opt-in. still_on_7d / still_on_30d: share of the cohort still on after 7 /
-- 30 days, among units observed that long (turned off within the period, or observed after it).
WITH units AS (
  SELECT CASE WHEN :unit = 'user' THEN coalesce(user, dkey) ELSE dkey END AS unit,
         min(opt_in) AS opt_in, min(off) AS off, max(last_obs) AS last_obs
  FROM device_facts GROUP BY 1
), c AS (
  SELECT iso_week_start(opt_in) AS w, opt_in, off, last_obs,
         (off IS NOT NULL AND off < opt_in + 7 * 86400000) AS off7,
         (off IS NOT NULL AND off < opt_in + 7 * 86400000) OR last_obs >= opt_in + 7 * 86400000 AS seen7,
         (off IS NOT NULL AND off < opt_in + 30 * 86400000) AS off30,
         (off IS NOT NULL AND off < opt_in + 30 * 86400000) OR last_obs >= opt_in + 30 * 86400000 AS seen30
  FROM units WHERE opt_in >= :since AND opt_in < :until
)
SELECT iso_week(w) AS cohort, count(*) AS opted_in, sum(off IS NOT NULL) AS turned_off,
       round(1.0 * sum(off IS NOT NULL) / count(*), 6) AS turned_off_share,
       round(1.0 * sum(seen7 AND NOT off7) / nullif(sum(seen7), 0), 6) AS still_on_7d_share,
       sum(seen7) AS observed_7d,
       round(1.0 * sum(seen30 AND NOT off30) / nullif(sum(seen30), 0), 6) AS still_on_30d_share,
       sum(seen30) AS observed_30d
FROM c GROUP BY w ORDER BY w;
