# Builds bench/data/hourly-baselines.json: R forecast's ets, stlf and tbats
# forecasts of the hourly and sub-hourly development series of issue 30 at
# the origins of tools/datasets/hourly-data.ts (48 steps each; the h = 24 scores read
# the first 24: these methods' forecasts do not depend on h).
#
#   npm run build && node dist/tools/datasets/hourly-data.js --export /tmp/hourly-series.json
#   Rscript bench/data/make-hourly-baselines.R /tmp/hourly-series.json
#
# Each series' forecasts are cached in /tmp/hourly-baselines-cache/<index>.rds
# as soon as they are made, and the JSON is written once every series is
# there; so a run can be split over processes and resumed, e.g.
#   Rscript bench/data/make-hourly-baselines.R /tmp/hourly-series.json 1 17 &
#   Rscript bench/data/make-hourly-baselines.R /tmp/hourly-series.json 18 35
#   Rscript bench/data/make-hourly-baselines.R /tmp/hourly-series.json
# (the forecasts do not depend on the split).
#   (R 4.2.2, forecast 8.20; Debian packages r-cran-forecast r-cran-jsonlite)
#
# What each method is given (kept affordable on a shared 2-core machine):
# - training slice: the last 4 weeks of steps before the origin (672 hourly,
#   1,344 half-hourly points), for per-minute series the last 4 days (5,760);
# - ets: ets(ts(x, frequency = steps per day)); R's ets models no season
#   longer than 24, so on half-hourly and per-minute data it fits a
#   non-seasonal model (its own warning says so);
# - stlf: stlf(msts(x, c(day, week))) when the slice holds two weeks, else
#   stlf(ts(x, frequency = day)) (per-minute slices: the day only);
# - tbats: tbats(msts(x, c(day, week)), use.parallel = FALSE) at the LAST
#   origin of each part only, and not on per-minute series (a period of
#   1,440 costs minutes per fit); other origins store null.
suppressPackageStartupMessages({ library(forecast) })
args <- commandArgs(trailingOnly = TRUE)
input <- if (length(args) >= 1) args[1] else "/tmp/hourly-series.json"
d <- jsonlite::fromJSON(input, simplifyVector = FALSE)
range <- if (length(args) >= 3) as.integer(args[2]):as.integer(args[3]) else seq_along(d$series)
cache <- "/tmp/hourly-baselines-cache"
dir.create(cache, showWarnings = FALSE)
H <- d$horizon
fc <- function(expr) tryCatch(signif(as.numeric(expr), 7), error = function(e) { message("  failed: ", conditionMessage(e)); NULL })
out <- list()
started <- Sys.time()
for (si in range) {
  s <- d$series[[si]]
  cached <- file.path(cache, paste0(si, ".rds"))
  if (file.exists(cached)) next
  y <- as.numeric(unlist(s$y))
  day <- s$day
  cap <- if (day >= 1440) 4 * day else 28 * day
  parts <- vapply(s$origins, function(o) o$part, "")
  last_of_part <- vapply(seq_along(s$origins), function(i) !any(parts[-seq_len(i)] == parts[i]), TRUE)
  origins <- list()
  for (i in seq_along(s$origins)) {
    o <- s$origins[[i]]$origin
    x <- y[max(1, o - cap + 1):o]
    per <- if (length(x) >= 14 * day) c(day, 7 * day) else day
    ets_f <- fc(suppressWarnings(forecast(ets(ts(x, frequency = day)), h = H)$mean))
    stlf_f <- fc(stlf(msts(x, seasonal.periods = per), h = H)$mean)
    tbats_f <- NULL
    if (last_of_part[i] && day < 1440) tbats_f <- fc(forecast(tbats(msts(x, seasonal.periods = per), use.parallel = FALSE), h = H)$mean)
    origins[[i]] <- list(part = s$origins[[i]]$part, origin = o, train = length(x), ets = ets_f, stlf = stlf_f, tbats = tbats_f)
  }
  saveRDS(list(id = s$id, origins = origins), cached)
  cat(s$id, length(origins), "origins,", round(as.numeric(difftime(Sys.time(), started, units = "mins")), 1), "min\n")
}
files <- file.path(cache, paste0(seq_along(d$series), ".rds"))
if (!all(file.exists(files))) {
  cat(sum(file.exists(files)), "of", length(files), "series done; the JSON is written when all are\n")
  quit(status = 0)
}
for (f in files) { r <- readRDS(f); out[[r$id]] <- r$origins }
meta <- list(generated_by = "Rscript bench/data/make-hourly-baselines.R (see its header)", r = R.version.string,
  forecast = as.character(packageVersion("forecast")), horizon = H, series = out)
writeLines(jsonlite::toJSON(meta, auto_unbox = TRUE, digits = NA, null = "null"), "bench/data/hourly-baselines.json")
cat(length(out), "series,", round(as.numeric(difftime(Sys.time(), started, units = "mins")), 1), "min\n")
