# The loop shared by make-hourly-baselines.R and make-subhourly-baselines.R
# (sourced by both; what each method is given is in their headers): for each
# series of the exported JSON (all, or those from args[2] to args[3]), R
# forecast's ets and stlf at every origin and tbats at the last origin of each
# part where `with_tbats(day)`, each series cached in
# /tmp/<name>-baselines-cache/<index>.rds; once every series is cached, the
# file bench/data/<name>-baselines.json.
# - cap(day): the most steps before the origin a fit is given;
# - horizon(d, s): the steps forecast for series s of the export d;
# - meta(d): the fields written between the versions and the series.
make_baselines <- function(name, cap, horizon, with_tbats, meta = function(d) list()) {
  suppressPackageStartupMessages({ library(forecast) })
  args <- commandArgs(trailingOnly = TRUE)
  input <- if (length(args) >= 1) args[1] else paste0("/tmp/", name, "-series.json")
  d <- jsonlite::fromJSON(input, simplifyVector = FALSE)
  range <- if (length(args) >= 3) as.integer(args[2]):as.integer(args[3]) else seq_along(d$series)
  cache <- paste0("/tmp/", name, "-baselines-cache")
  dir.create(cache, showWarnings = FALSE)
  fc <- function(expr) tryCatch(signif(as.numeric(expr), 7), error = function(e) { message("  failed: ", conditionMessage(e)); NULL })
  out <- list()
  started <- Sys.time()
  for (si in range) {
    s <- d$series[[si]]
    cached <- file.path(cache, paste0(si, ".rds"))
    if (file.exists(cached)) next
    y <- as.numeric(unlist(s$y))
    day <- s$day
    H <- horizon(d, s)
    parts <- vapply(s$origins, function(o) o$part, "")
    last_of_part <- vapply(seq_along(s$origins), function(i) !any(parts[-seq_len(i)] == parts[i]), TRUE)
    origins <- list()
    for (i in seq_along(s$origins)) {
      o <- s$origins[[i]]$origin
      x <- y[max(1, o - cap(day) + 1):o]
      per <- if (length(x) >= 14 * day) c(day, 7 * day) else day
      ets_f <- fc(suppressWarnings(forecast(ets(ts(x, frequency = day)), h = H)$mean))
      stlf_f <- fc(stlf(msts(x, seasonal.periods = per), h = H)$mean)
      tbats_f <- NULL
      if (last_of_part[i] && with_tbats(day)) tbats_f <- fc(forecast(tbats(msts(x, seasonal.periods = per), use.parallel = FALSE), h = H)$mean)
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
  meta <- c(list(generated_by = paste0("Rscript bench/data/make-", name, "-baselines.R (see its header)"), r = R.version.string,
    forecast = as.character(packageVersion("forecast"))), meta(d), list(series = out))
  writeLines(jsonlite::toJSON(meta, auto_unbox = TRUE, digits = NA, null = "null"), paste0("bench/data/", name, "-baselines.json"))
  cat(length(out), "series,", round(as.numeric(difftime(Sys.time(), started, units = "mins")), 1), "min\n")
}
