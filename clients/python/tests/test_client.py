"""The Python client against a real server (started by clients/python/python.test.ts, or by hand).

Environment: MANGO_URL, MANGO_EMAIL, MANGO_PASSWORD (a registered user), MANGO_API_KEY (their server
key) and MANGO_PHOTOS, a folder holding cv-keitt_day01_trt-wax_fruit5.png, cv-keitt_day04_trt-wax_fruit5.png
(each with two fruit, one bruised), IMG_0001.png (a name the pattern does not match) and meta.csv
(image,tray). Run: python -m unittest discover -s clients/python/tests -v
"""

import hashlib
import io
import os
import unittest
import zipfile

from mango_client import MangoClient, MangoError, fruit_rows, to_dataframe

PATTERN = "cv-{cultivar}_day{day}_trt-{treatment}_fruit{fruit_id}"
URL = os.environ.get("MANGO_URL")
PHOTOS = os.environ.get("MANGO_PHOTOS", "")
DAY1 = "cv-keitt_day01_trt-wax_fruit5.png"
DAY4 = "cv-keitt_day04_trt-wax_fruit5.png"
ODD = "IMG_0001.png"


def photo(name):
    return os.path.join(PHOTOS, name)


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


if __name__ == "__main__":
    unittest.main()
