# Writes bench/data/taylor.json: forecast::taylor, half-hourly electricity
# demand in England and Wales from Monday 5 June 2000 to Sunday 27 August 2000
# (4,032 points, seasonal periods 48 and 336), as a plain array.
#
#   Rscript bench/data/make-taylor.R   (Debian: r-cran-forecast r-cran-jsonlite)
suppressPackageStartupMessages({ library(forecast) })
y <- as.numeric(forecast::taylor)
meta <- list(generated_by = "Rscript bench/data/make-taylor.R", r = R.version.string,
  forecast = as.character(packageVersion("forecast")), source = "forecast::taylor",
  freq = "30min", start = "2000-06-05 00:00 (Monday)", seasonal_periods = attr(forecast::taylor, "msts"), y = y)
writeLines(jsonlite::toJSON(meta, auto_unbox = TRUE, digits = NA), "bench/data/taylor.json")
cat(length(y), "points\n")
