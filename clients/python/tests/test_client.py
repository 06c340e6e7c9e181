"""The Python client against a real server (started by clients/python/python.test.ts, or by hand).

Environment: MANGO_URL, MANGO_EMAIL, MANGO_PASSWORD (a registered user), MANGO_API_KEY (their server
key) and MANGO_PHOTOS, a folder holding cv-keitt_day01_trt-wax_fruit5.png, cv-keitt_day04_trt-wax_fruit5.png
(each with two fruit, one bruised), IMG_0001.png (a name the pattern does not match) and meta.csv
(image,tray); MANGO_CARD_PHOTO (optional, set when ../shared was there): a dev photo with a ColorChecker
Classic drawn into it (36 px patch pitch) under a 3500 K light. The server's MAX_QUEUED_PHOTOS_PER_USER is 4 (python.test.ts) for the Retry-After test.
Run: python -m unittest discover -s clients/python/tests -v
"""

import email.utils
import hashlib
import io
import json
import os
import struct
import tempfile
import time
import unittest
import zipfile

from mango_client import MangoClient, MangoError, fruit_rows, retry_after_seconds, to_dataframe

PATTERN = "cv-{cultivar}_day{day}_trt-{treatment}_fruit{fruit_id}"
URL = os.environ.get("MANGO_URL")
PHOTOS = os.environ.get("MANGO_PHOTOS", "")
DAY1 = "cv-keitt_day01_trt-wax_fruit5.png"
DAY4 = "cv-keitt_day04_trt-wax_fruit5.png"
ODD = "IMG_0001.png"
CARD = os.environ.get("MANGO_CARD_PHOTO", "")


def photo(name):
    return os.path.join(PHOTOS, name)


def png_size(data):
    """(width, height) from a PNG's IHDR chunk."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    return struct.unpack(">II", data[16:24])


def rectangle(x0, y0, x1, y1):
    """A COCO polygon (flat x, y list) of a rectangle."""
    return [[x0, y0, x1, y0, x1, y1, x0, y1]]


try:
    import pandas  # noqa: F401

    HAVE_PANDAS = True
except ImportError:
    HAVE_PANDAS = False


@unittest.skipUnless(URL, "MANGO_URL is not set: no server to test against")
class ClientTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.key_client = MangoClient(URL, api_key=os.environ["MANGO_API_KEY"])
        cls.user = MangoClient.sign_in(URL, os.environ["MANGO_EMAIL"], os.environ["MANGO_PASSWORD"])

    def test_sign_in_bruise_with_a_name_pattern(self):
        items = self.user.bruise([photo(DAY1), photo(ODD)], method="classical", meta=PATTERN)
        self.assertEqual(len(items), 2)
        self.assertEqual(items[0]["meta"], {"cultivar": "keitt", "day": "01", "treatment": "wax", "fruit_id": "5"})
        self.assertEqual(items[0]["warnings"], [])
        self.assertEqual(items[1]["meta"], {"cultivar": None, "day": None, "treatment": None, "fruit_id": None})
        self.assertIn("does not match the metadata pattern", items[1]["warnings"][0])
        self.assertGreater(items[0]["bruise_percent"], 0)
        rows = fruit_rows(items)
        first = [r for r in rows if r["image"] == DAY1]
        self.assertEqual(len(first), len(items[0]["fruits"]))
        self.assertGreaterEqual(len(first), 2)
        self.assertEqual([r["fruit"] for r in first], list(range(1, len(first) + 1)))
        self.assertTrue(all(r["fruit_id"] == "5" and r["day"] == "01" for r in first))
        # the call was stored as the user's run, with the metadata on each item
        run = self.user.run(items[0]["run_id"])
        self.assertEqual([i["meta"]["day"] for i in run["items"]], ["01", None])
        self.assertEqual(run["meta"]["pattern"], PATTERN)

    def test_expired_access_token_is_refreshed(self):
        client = MangoClient.sign_in(URL, os.environ["MANGO_EMAIL"], os.environ["MANGO_PASSWORD"])
        old_refresh = client.refresh_token
        client.access_token = "not-a-token"
        self.assertIsInstance(client.runs(), list)
        self.assertNotEqual(client.refresh_token, old_refresh)

    def test_api_key_analyze_with_a_metadata_csv(self):
        items = self.key_client.analyze(
            [photo(DAY1), photo(ODD)], features=["rgb"], meta_csv=photo("meta.csv")
        )
        self.assertEqual(items[0]["meta"], {"tray": "T1"})
        self.assertEqual(items[1]["meta"], {"tray": None})
        self.assertIn("no row of the metadata CSV", items[1]["warnings"][0])
        self.assertIn("mean_R", items[0]["features"]["rgb"])

    def test_job_run_tables_dataframe_exports_and_delete(self):
        job = self.key_client.submit_job(
            [photo(DAY1), photo(DAY4), photo(ODD)],
            operation="bruise",
            options={"method": "classical"},
            meta=PATTERN,
            meta_csv=photo("meta.csv"),
        )
        self.assertEqual(len(job["warnings"]), 2)
        self.assertTrue(all(w.startswith(ODD) for w in job["warnings"]))
        seen = []
        end = self.key_client.wait_job(job["id"], poll_seconds=0.2, timeout=120, on_progress=seen.append)
        self.assertEqual(end["state"], "done")
        self.assertEqual(end["done"] + end["failed"], 3)
        self.assertGreaterEqual(len(seen), 1)
        run_id = end["run_id"]

        fruits = self.key_client.table(run_id, "fruits")
        self.assertEqual(list(fruits[0].keys())[:2], ["image", "fruit"])
        self.assertEqual(list(fruits[0].keys())[-5:], ["cultivar", "day", "treatment", "fruit_id", "tray"])
        by_image = {}
        for row in fruits:
            by_image.setdefault(row["image"], []).append(row)
        self.assertEqual({r["tray"] for r in by_image[DAY1]}, {"T1"})
        self.assertEqual({r["day"] for r in by_image[DAY4]}, {"04"})
        images = self.key_client.table(run_id, "images")
        self.assertEqual([r["fruit_id"] for r in images], ["5", "5", ""])

        file = self.key_client.results_file(run_id)
        with open(photo("meta.csv"), "rb") as f:
            sha = hashlib.sha256(f.read()).hexdigest()
        self.assertEqual(file["provenance"]["meta"]["csv_sha256"], sha)
        self.assertEqual(self.key_client.provenance(run_id)["meta"]["pattern"], PATTERN)
        self.assertEqual({p["filename"]: p["meta"]["tray"] for p in file["photos"]}[DAY4], "T2")

        archive = zipfile.ZipFile(io.BytesIO(self.key_client.export(run_id, "zip")))
        self.assertIn("fruits.csv", archive.namelist())
        self.assertIn(",fruit_id,tray", archive.read("fruits.csv").decode("utf-8").splitlines()[0])

        if HAVE_PANDAS:
            frame = self.key_client.dataframe(run_id, "fruits")
            self.assertEqual(len(frame), len(fruits))
            self.assertEqual(str(frame["bruise_percent"].dtype), "float64")
            means = frame.groupby("day")["bruise_percent"].mean()
            self.assertAlmostEqual(
                means.loc[1], sum(float(r["bruise_percent"]) for r in by_image[DAY1]) / len(by_image[DAY1])
            )
        else:
            with self.assertRaises(ImportError):
                to_dataframe(fruits)

        self.assertIn(run_id, [r["id"] for r in self.key_client.runs(operation="bruise")])
        self.key_client.delete_run(run_id)
        with self.assertRaises(MangoError) as gone:
            self.key_client.run(run_id)
        self.assertEqual(gone.exception.status, 404)

    def test_a_metadata_name_that_is_a_column_is_refused(self):
        with self.assertRaises(MangoError) as refused:
            self.key_client.bruise([photo(DAY1)], method="classical", meta="cv-{cultivar}_{bruise_percent}")
        self.assertEqual(refused.exception.status, 400)
        self.assertIn("`bruise_percent` is a column", refused.exception.message)
        with self.assertRaises(MangoError) as job:
            self.key_client.submit_job([photo(DAY1)], meta="{image}_x")
        self.assertEqual(job.exception.status, 400)

    def test_options_are_checked_against_the_servers_document(self):
        with self.assertRaises(ValueError) as unknown:
            self.key_client.bruise([photo(DAY1)], method="classical", px_per_inch=40)
        self.assertIn("unknown option 'px_per_inch'", str(unknown.exception))
        self.assertIn("colour_card", str(unknown.exception))
        self.assertIn("keep_going", str(unknown.exception))
        with self.assertRaises(ValueError) as choice:
            self.key_client.bruise([photo(DAY1)], method="classical", colour_card="sometimes")
        self.assertIn("'colour_card' must be one of auto, off", str(choice.exception))
        # a value the document lets through, refused by the plugin's own schema: the server's reason
        with self.assertRaises(MangoError) as bad:
            self.key_client.bruise([photo(DAY1)], method="classical", px_per_cm=-3)
        self.assertEqual(bad.exception.status, 400)
        self.assertIn("`px_per_cm` must be a number from", bad.exception.message)
        # options the client never named, by their wire names
        items = self.key_client.bruise(
            [photo(DAY1)],
            method="classical",
            px_per_cm=40,
            colour_card="off",
            card_kind="passport",
            strict_quality=False,
        )
        self.assertEqual(items[0]["px_per_cm"], 40)
        self.assertEqual(items[0]["scale_source"], "given")
        self.assertNotIn("colour_card", items[0])
        run = self.key_client.run(items[0]["run_id"])
        self.assertEqual(run["options"]["colourCard"], "off")
        # a job's options: a keyword joins the dict; a name the plugin does not know is the server's 400
        with self.assertRaises(MangoError) as job:
            self.key_client.submit_job([photo(DAY1)], options={"method": "classical"}, px_per_inch=40)
        self.assertEqual(job.exception.status, 400)
        self.assertIn("px_per_inch", job.exception.message)

    def test_keep_going_and_per_fruit(self):
        with tempfile.TemporaryDirectory() as tmp:
            broken = os.path.join(tmp, "broken.png")
            with open(broken, "wb") as f:
                f.write(b"not an image at all")
            with self.assertRaises(MangoError) as stopped:
                self.key_client.bruise([photo(DAY1), broken], method="classical")
            self.assertIn(stopped.exception.status, (415, 422))
            items = self.key_client.bruise([photo(DAY1), broken], method="classical", keep_going=True)
        self.assertEqual(len(items), 2)
        self.assertGreater(items[0]["bruise_percent"], 0)
        self.assertEqual(items[1]["filename"], "broken.png")
        self.assertIn("code", items[1])
        self.assertTrue(items[1]["error"])
        self.assertEqual(items[0]["run_id"], items[1]["run_id"])

        whole = self.key_client.analyze([photo(DAY1)], features=["area"])
        self.assertNotIn("fruits", whole[0])
        fruit = self.key_client.analyze([photo(DAY1)], features=["area"], per_fruit=True, px_per_cm=20)
        bruised = self.key_client.bruise([photo(DAY1)], method="auto", px_per_cm=20)
        self.assertEqual([f["fruit"] for f in fruit[0]["fruits"]], list(range(1, len(bruised[0]["fruits"]) + 1)))
        self.assertGreaterEqual(len(fruit[0]["fruits"]), 2)
        for f in fruit[0]["fruits"]:
            self.assertEqual(f["features"]["area"]["area"], f["pixels"])
            self.assertAlmostEqual(f["scaled"]["area_cm2"], f["pixels"] / 20**2, places=6)

    def test_full_resolution_export(self):
        items = self.user.bruise([photo(DAY1)], method="classical")
        run_id = items[0]["run_id"]
        full = zipfile.ZipFile(io.BytesIO(self.user.export(run_id, "zip", resolution="full")))
        stem = DAY1[: -len(".png")]
        names = sorted(n for n in full.namelist() if not n.endswith("/"))
        self.assertEqual(
            names,
            sorted(["fruits.csv", "images.csv", "provenance.json", f"overlays/{stem}.overlay.jpg",
                    f"masks/{stem}.fruit.png", f"masks/{stem}.bruise.png"]),
        )
        self.assertEqual(png_size(full.read(f"masks/{stem}.fruit.png")), (480, 240))
        self.assertEqual(png_size(full.read(f"masks/{stem}.bruise.png")), (480, 240))
        # a kind of run without a full-resolution export: the server's reason
        analysed = self.user.analyze([photo(DAY1)], features=["rgb"])
        with self.assertRaises(MangoError) as none:
            self.user.export(analysed[0]["run_id"], "zip", resolution="full")
        self.assertEqual(none.exception.status, 422)
        self.assertIn("no full-resolution export", none.exception.message)

    def test_annotations_import_and_export(self):
        items = self.key_client.bruise([photo(DAY1), photo(DAY4)], method="classical")
        run_id = items[0]["run_id"]
        self.assertEqual(self.key_client.annotations(run_id)["images"], [])
        coco = {
            "images": [
                {"id": 1, "file_name": DAY4, "width": 480, "height": 240},
                {"id": 2, "file_name": "not-in-the-run.png", "width": 480, "height": 240},
            ],
            "annotations": [
                {"id": 1, "image_id": 1, "category_id": 1, "segmentation": rectangle(40, 40, 200, 200), "iscrowd": 0},
                {"id": 2, "image_id": 1, "category_id": 2, "segmentation": rectangle(60, 60, 100, 100), "iscrowd": 0},
            ],
            "categories": [{"id": 1, "name": "fruit"}, {"id": 2, "name": "bruise"}],
        }
        imported = self.key_client.import_annotations(run_id, coco)
        self.assertEqual(imported["source"], "import:coco")
        self.assertEqual(imported["matched"], [{"filename": DAY4, "position": 1, "version": 1}])
        self.assertEqual([u["name"] for u in imported["unmatched"]], ["not-in-the-run.png"])
        # the same file from disk: a second version
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "coco.json")
            with open(path, "w") as f:
                json.dump(coco, f)
            again = self.key_client.import_annotations(run_id, path)
        self.assertEqual(again["matched"][0]["version"], 2)
        out = self.key_client.annotations(run_id)
        self.assertEqual([(i["file_name"], i["width"], i["height"]) for i in out["images"]], [(DAY4, 480, 240)])
        names = {c["id"]: c["name"] for c in out["categories"]}
        self.assertEqual(sorted(names[a["category_id"]] for a in out["annotations"]), ["bruise", "fruit"])
        # the fruit is the 160 x 160 square drawn, the bruise the 40 x 40 one (a polygon's edges inclusive)
        areas = {names[a["category_id"]]: a["area"] for a in out["annotations"]}
        self.assertAlmostEqual(areas["fruit"], 161 * 161, delta=2 * 161)
        self.assertAlmostEqual(areas["bruise"], 41 * 41, delta=2 * 41)
        with self.assertRaises(MangoError) as bad:
            self.key_client.import_annotations(run_id, {"a": 1})
        self.assertEqual(bad.exception.status, 400)

    def test_rescore_with_another_model_version(self):
        job = self.user.submit_job([photo(DAY1)], options={"method": "auto"})
        first = self.user.wait_job(job["id"], poll_seconds=0.2, timeout=120)
        self.assertEqual(first["state"], "done")
        models = self.user.models()
        model_id = next(iter(models["active"].values()))
        started = self.user.rescore(first["run_id"], model_id)
        end = self.user.wait_job(started["id"], poll_seconds=0.2, timeout=120)
        self.assertEqual(end["state"], "done")
        self.assertEqual(end["done"], 1)
        again = self.user.run(end["run_id"])
        self.assertEqual(again["rescored_from"], first["run_id"])
        self.assertEqual(again["model_id"], model_id)
        self.assertIn(end["run_id"], [r["id"] for r in self.user.run(first["run_id"])["rescores"]])
        self.assertAlmostEqual(
            again["items"][0]["result"]["bruise_percent"],
            self.user.run(first["run_id"])["items"][0]["result"]["bruise_percent"],
            delta=1e-9,
        )
        with self.assertRaises(MangoError) as unknown:
            self.user.rescore(first["run_id"], "no-such-model")
        self.assertEqual(unknown.exception.status, 400)

    def test_retry_after_on_a_full_queue(self):
        photos = [photo(DAY1), photo(DAY4), photo(ODD), photo(DAY1)]
        # four photos fill this user's queue (MAX_QUEUED_PHOTOS_PER_USER=4) while they wait
        first = self.user.submit_job(photos, options={"method": "auto"})
        once = MangoClient(URL, access_token=self.user.access_token, retries=0)
        with self.assertRaises(MangoError) as full:
            once.submit_job([photo(DAY1)], options={"method": "classical"})
        self.assertEqual(full.exception.status, 429)
        self.assertIn("Too many photos queued", full.exception.message)
        self.assertGreaterEqual(retry_after_seconds(full.exception.retry_after), 1)
        waits = []
        patient = MangoClient(
            URL, access_token=self.user.access_token, retries=30, on_retry=lambda e, w: waits.append((e.status, w))
        )
        second = patient.submit_job([photo(DAY1)], options={"method": "classical"})
        self.assertGreaterEqual(len(waits), 1)
        self.assertTrue(all(status == 429 and 1 <= w <= 60 for status, w in waits))
        for started in (first, second):
            self.assertEqual(self.user.wait_job(started["id"], poll_seconds=0.2, timeout=120)["state"], "done")
        # bounded: a wait longer than max_retry_wait is not waited for
        third = self.user.submit_job(photos, options={"method": "auto"})
        hasty = MangoClient(URL, access_token=self.user.access_token, retries=5, max_retry_wait=0.5)
        started = time.monotonic()
        with self.assertRaises(MangoError) as refused:
            hasty.submit_job([photo(DAY1)], options={"method": "classical"})
        self.assertEqual(refused.exception.status, 429)
        self.assertLess(time.monotonic() - started, 5)
        self.assertEqual(self.user.wait_job(third["id"], poll_seconds=0.2, timeout=120)["state"], "done")

    @unittest.skipUnless(CARD and os.path.exists(CARD), "MANGO_CARD_PHOTO is not set: ../shared is absent")
    def test_colour_card_options_and_a_job(self):
        classic = self.key_client.bruise([CARD], method="classical")[0]
        self.assertTrue(classic["colour_card"]["found"])
        self.assertGreaterEqual(classic["colour_card"]["patches"], 18)
        self.assertLess(classic["colour_card"]["delta_e_after"]["median"], 2)
        self.assertEqual(classic["scale_source"], "colour-card")
        passport = self.key_client.bruise([CARD], method="classical", card_kind="passport")[0]
        self.assertEqual(passport["scale_source"], "colour-card")
        # the same patches read as the half-size card: px/cm times the ratio of the pitches (45.65 / 15 mm)
        self.assertAlmostEqual(passport["px_per_cm"] / classic["px_per_cm"] / (45.65 / 15.0), 1, delta=2e-4)
        off = self.key_client.bruise([CARD], method="classical", colour_card="off")[0]
        self.assertNotIn("colour_card", off)
        self.assertEqual(off["scale_status"], "none")
        job = self.key_client.submit_job(
            [CARD], options={"method": "classical"}, colour_card="auto", card_kind="passport"
        )
        end = self.key_client.wait_job(job["id"], poll_seconds=0.2, timeout=120)
        self.assertEqual(end["state"], "done")
        run = self.key_client.run(end["run_id"])
        self.assertEqual(run["options"]["cardKind"], "passport")
        result = run["items"][0]["result"]
        self.assertTrue(result["colour_card"]["found"])
        self.assertEqual(result["px_per_cm"], passport["px_per_cm"])


class RetryAfterTest(unittest.TestCase):
    def test_seconds_and_http_dates(self):
        self.assertEqual(retry_after_seconds("7"), 7.0)
        self.assertIsNone(retry_after_seconds(None))
        self.assertIsNone(retry_after_seconds("soon"))
        now = time.time()
        date = email.utils.formatdate(now + 30, usegmt=True)
        self.assertAlmostEqual(retry_after_seconds(date, now=now), 30, delta=1)
        self.assertEqual(retry_after_seconds(email.utils.formatdate(now - 30, usegmt=True), now=now), 0.0)


if __name__ == "__main__":
    unittest.main()
