# A shelf-life trial from R with httr2: score a folder of photos named like
# cv-keitt_day03_trt-hotwater_fruit12.jpg as one batch job with their metadata, wait for it, read the
# stored run's per-fruit table (the metadata are columns of it) and summarise bruise % per treatment
# and day, and per physical fruit (fruit_id) over the days.
#
#   MANGO_URL=http://localhost:8080 MANGO_API_KEY=mbt_... Rscript examples/r-client/shelf_life.R PHOTOS_DIR [meta.csv]
#
# Needs R >= 4.1 and httr2 (install.packages("httr2")); see README.md beside this file.

library(httr2)

args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 1) stop("usage: Rscript shelf_life.R PHOTOS_DIR [meta.csv]")
photos_dir <- args[[1]]
meta_csv <- if (length(args) >= 2) args[[2]] else NA
base_url <- sub("/$", "", Sys.getenv("MANGO_URL", "http://localhost:8080"))
api_key <- Sys.getenv("MANGO_API_KEY")
if (api_key == "") stop("set MANGO_API_KEY (a server API key, created at /apikeys)")
pattern <- "cv-{cultivar}_day{day}_trt-{treatment}_fruit{fruit_id}"

# Every call: the key, and the server's reason ({error} or {detail}) when it refuses.
mango <- function(path) {
  request(base_url) |>
    req_url_path_append(path) |>
    req_auth_bearer_token(api_key) |>
    req_error(body = function(resp) {
      body <- tryCatch(resp_body_json(resp), error = function(e) list())
      c(body$error, body$detail)
    })
}

photos <- list.files(photos_dir, pattern = "\\.(jpe?g|png|webp|tiff?)$", full.names = TRUE, ignore.case = TRUE)
if (length(photos) == 0) stop("no photos in ", photos_dir)

# The job: one multipart `images` part per photo, the options as JSON, the name pattern, the CSV as a file.
parts <- list(operation = "bruise", options = '{"method":"classical"}', meta = pattern)
if (!is.na(meta_csv)) parts$meta_csv <- curl::form_file(meta_csv)
images <- lapply(photos, function(p) curl::form_file(p))
names(images) <- rep("images", length(images))
job <- mango("api-node/jobs") |>
  req_body_multipart(!!!c(parts, images)) |>
  req_perform() |>
  resp_body_json()
for (w in unlist(job$warnings)) message("warning: ", w)

repeat {
  progress <- mango(paste0("api-node/jobs/", job$id)) |> req_perform() |> resp_body_json()
  if (progress$state %in% c("done", "failed", "cancelled")) break
  Sys.sleep(1)
}
if (progress$state != "done") stop("job ", job$id, " ended ", progress$state)

# The per-fruit table as a data frame: image, fruit, ..., then cultivar, day, treatment, fruit_id (and the CSV's columns).
csv <- mango(paste0("api-node/runs/", progress$run_id, "/export")) |>
  req_url_query(format = "csv", table = "fruits") |>
  req_perform() |>
  resp_body_string()
fruits <- read.csv(text = csv, stringsAsFactors = FALSE)
cat(sprintf("run %s: %d photo(s) scored, %d failed, %d fruit\n", progress$run_id, progress$done, progress$failed, nrow(fruits)))

named <- fruits[!is.na(fruits$day), ]
by_group <- aggregate(bruise_percent ~ treatment + day, data = named, FUN = function(x) c(n = length(x), mean = mean(x)))
print(by_group)
series <- aggregate(bruise_percent ~ fruit_id + day, data = named, FUN = mean)
print(series[order(series$fruit_id, series$day), ])
