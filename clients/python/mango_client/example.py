"""A shelf-life trial from Python: score a folder of photos named like
``cv-keitt_day03_trt-hotwater_fruit12.jpg`` as one batch job with their metadata, then read the
stored run's per-fruit table and follow each fruit (``fruit_id``) over the days.

    MANGO_URL=http://localhost:8080 MANGO_API_KEY=mbt_... python -m mango_client.example PHOTOS_DIR
    # or MANGO_EMAIL / MANGO_PASSWORD instead of MANGO_API_KEY

Prints one line per fruit id and day with its mean bruise %, and the mean per treatment and day.
"""

from __future__ import annotations

import os
import sys
from collections import defaultdict
from typing import Dict, List, Optional, Tuple

from .client import MangoClient, to_dataframe

PATTERN = "cv-{cultivar}_day{day}_trt-{treatment}_fruit{fruit_id}"
PHOTO_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp", ".tif", ".tiff")


def connect() -> MangoClient:
    url = os.environ.get("MANGO_URL", "http://localhost:8080")
    if os.environ.get("MANGO_API_KEY"):
        return MangoClient(url, api_key=os.environ["MANGO_API_KEY"])
    if os.environ.get("MANGO_EMAIL") and os.environ.get("MANGO_PASSWORD"):
        return MangoClient.sign_in(url, os.environ["MANGO_EMAIL"], os.environ["MANGO_PASSWORD"])
    raise SystemExit("set MANGO_API_KEY, or MANGO_EMAIL and MANGO_PASSWORD")


def main(argv: Optional[List[str]] = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m mango_client.example PHOTOS_DIR", file=sys.stderr)
        return 2
    folder = args[0]
    photos = sorted(
        os.path.join(folder, n) for n in os.listdir(folder) if n.lower().endswith(PHOTO_SUFFIXES)
    )
    if not photos:
        print(f"no photos in {folder}", file=sys.stderr)
        return 2
    client = connect()
    job = client.submit_job(photos, operation="bruise", options={"method": "classical"}, meta=PATTERN)
    for warning in job.get("warnings", []):
        print(f"warning: {warning}", file=sys.stderr)
    end = client.wait_job(job["id"], poll_seconds=0.5)
    if end["state"] != "done":
        print(f"job {job['id']} ended {end['state']}", file=sys.stderr)
        return 1
    fruits = client.table(end["run_id"], "fruits")
    print(f"run {end['run_id']}: {end['done']} photo(s) scored, {end['failed']} failed, {len(fruits)} fruit")

    # each physical fruit over the days (fruit_id is the metadata; `fruit` is the fruit's number in its photo)
    series: Dict[Tuple[str, str], List[float]] = defaultdict(list)
    for row in fruits:
        if row["fruit_id"]:
            series[(row["fruit_id"], row["day"])].append(float(row["bruise_percent"]))
    for (fruit_id, day), values in sorted(series.items(), key=lambda kv: (kv[0][0], int(kv[0][1]))):
        print(f"fruit_id {fruit_id} day {day}: mean bruise {sum(values) / len(values):.2f} % over {len(values)} fruit")

    try:
        frame = to_dataframe(fruits)
    except ImportError:
        print("(pandas is not installed: the grouped table is skipped)")
        return 0
    grouped = frame.groupby(["treatment", "day"])["bruise_percent"].agg(["count", "mean"])
    print(grouped.to_string())
    return 0


if __name__ == "__main__":
    sys.exit(main())
