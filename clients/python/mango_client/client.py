"""The Mango Bruise Tracker HTTP API from Python, on the standard library alone.

Covers what a lab scripts: signing in (or a server API key), bruise scoring and feature analysis
(/api-py), batch jobs (/api-node/jobs), stored runs and their exports, with the experiment metadata
(``meta`` pattern, ``meta_csv``) of issue 27. Tables come back as lists of dicts, or as pandas
DataFrames when pandas is installed (``to_dataframe``).
"""

from __future__ import annotations

import csv
import email.utils
import io
import json
import mimetypes
import os
import time
import uuid
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union
from urllib import error as urlerror
from urllib import parse as urlparse
from urllib import request as urlrequest

PathLike = Union[str, "os.PathLike[str]"]
Row = Dict[str, Any]

TERMINAL_JOB_STATES = ("done", "failed", "cancelled")
# the multipart fields that carry files (photos, a metadata CSV), not options
FILE_FIELDS = ("images", "image", "file", "zip", "meta", "meta_csv")


class MangoError(Exception):
    """An answer that is not a success: its HTTP status and the server's reason."""

    def __init__(self, status: int, message: str, retry_after: Optional[str] = None):
        super().__init__(f"{status}: {message}")
        self.status = status
        self.message = message
        self.retry_after = retry_after


def _reason(status: int, body: bytes) -> str:
    try:
        data = json.loads(body.decode("utf-8"))
        if isinstance(data, dict):
            for key in ("detail", "error"):
                if isinstance(data.get(key), str):
                    return data[key]
    except (ValueError, UnicodeDecodeError):
        pass
    return body[:200].decode("utf-8", "replace") or f"HTTP {status}"


def _multipart(
    fields: Sequence[Tuple[str, str]], files: Sequence[Tuple[str, str, bytes]]
) -> Tuple[bytes, str]:
    """A multipart/form-data body: text fields, then (field, file name, bytes) parts."""
    boundary = f"mango-{uuid.uuid4().hex}"
    out = io.BytesIO()
    for name, value in fields:
        out.write(f"--{boundary}\r\n".encode())
        out.write(f'Content-Disposition: form-data; name="{name}"\r\n\r\n'.encode())
        out.write(value.encode("utf-8"))
        out.write(b"\r\n")
    for name, filename, data in files:
        safe = filename.replace('"', "_").replace("\r", "_").replace("\n", "_")
        mime = mimetypes.guess_type(filename)[0] or "application/octet-stream"
        out.write(f"--{boundary}\r\n".encode())
        out.write(f'Content-Disposition: form-data; name="{name}"; filename="{safe}"\r\n'.encode("utf-8"))
        out.write(f"Content-Type: {mime}\r\n\r\n".encode())
        out.write(data)
        out.write(b"\r\n")
    out.write(f"--{boundary}--\r\n".encode())
    return out.getvalue(), f"multipart/form-data; boundary={boundary}"


def _photo_parts(paths: Iterable[PathLike], field: str = "images") -> List[Tuple[str, str, bytes]]:
    parts = []
    for p in paths:
        path = os.fspath(p)
        with open(path, "rb") as f:
            parts.append((field, os.path.basename(path), f.read()))
    if not parts:
        raise ValueError("no photos given")
    return parts


def _meta_fields(meta: Optional[str], meta_csv: Optional[PathLike]) -> Tuple[list, list]:
    """`meta` as a text field; `meta_csv` (a file path) as a file part, so its bytes (and sha256) are kept as they are."""
    fields: list = []
    files: list = []
    if meta is not None:
        fields.append(("meta", meta))
    if meta_csv is not None:
        with open(os.fspath(meta_csv), "rb") as f:
            files.append(("meta_csv", os.path.basename(os.fspath(meta_csv)), f.read()))
    return fields, files


def _wire_value(name: str, value: Any) -> str:
    """A form field's text: booleans as true/false, lists and dicts as JSON, numbers and text as they are."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list, tuple)):
        return json.dumps(value)
    if isinstance(value, (int, float, str)):
        return str(value)
    kind = type(value).__name__
    raise TypeError(f"option {name!r}: {kind} is not a form value (use a number, text, bool, list or dict)")


def retry_after_seconds(value: Optional[str], now: Optional[float] = None) -> Optional[float]:
    """A Retry-After header as seconds from now: delay-seconds, or an HTTP date; None when absent or unreadable."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    if text.isdigit():
        return float(text)
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def read_csv(text: str) -> List[Row]:
    """A CSV text with a header row as one dict per row (every value a string; empty cells are '')."""
    return [dict(r) for r in csv.DictReader(io.StringIO(text))]


def to_dataframe(rows: Sequence[Row]):
    """The rows as a pandas DataFrame (numbers parsed); ImportError with the reason when pandas is absent."""
    try:
        import pandas as pd  # noqa: PLC0415 (optional dependency)
    except ImportError as e:  # pragma: no cover - depends on the machine
        raise ImportError("to_dataframe needs pandas: pip install pandas (or apt-get install python3-pandas)") from e
    frame = pd.DataFrame(list(rows))
    for column in frame.columns:
        if frame[column].dtype == object:
            converted = pd.to_numeric(frame[column].replace("", None), errors="coerce")
            # a column becomes numeric only when every non-empty value is a number
            non_empty = frame[column].replace("", None).notna()
            if converted[non_empty].notna().all() and non_empty.any():
                frame[column] = converted
    return frame


def fruit_rows(items: Sequence[Row]) -> List[Row]:
    """One dict per fruit of /api-py bruise items: the photo's name, the fruit's figures, then its metadata."""
    rows = []
    for item in items:
        for index, fruit in enumerate(item.get("fruits", []), start=1):
            bbox = fruit.get("bbox", {})
            row = {
                "image": item.get("filename"),
                "fruit": index,
                "bbox_x": bbox.get("x"),
                "bbox_y": bbox.get("y"),
                "bbox_w": bbox.get("width"),
                "bbox_h": bbox.get("height"),
                **{k: v for k, v in fruit.items() if k != "bbox"},
            }
            row.update(item.get("meta") or {})
            rows.append(row)
    return rows


class MangoClient:
    """A session with a Mango Bruise Tracker server.

    ``MangoClient(url, api_key="mbt_...")`` uses a server API key (created at /apikeys);
    ``MangoClient.sign_in(url, email, password)`` signs in and refreshes its access token when it expires.
    """

    def __init__(
        self,
        base_url: str,
        api_key: Optional[str] = None,
        access_token: Optional[str] = None,
        refresh_token: Optional[str] = None,
        timeout: float = 600.0,
        retries: int = 3,
        max_retry_wait: float = 120.0,
        on_retry: Optional[Callable[["MangoError", float], None]] = None,
    ):
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"base_url must be an http(s) URL, got {base_url!r}")
        if retries < 0:
            raise ValueError(f"retries must be 0 or more, got {retries}")
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.access_token = access_token
        self.refresh_token = refresh_token
        self.timeout = timeout
        # 429 and 503 with Retry-After: wait as the server says and send again, at most `retries`
        # times and never longer than `max_retry_wait` seconds at once (else MangoError at once)
        self.retries = retries
        self.max_retry_wait = max_retry_wait
        self.on_retry = on_retry
        self._openapi: Optional[Row] = None

    # ---- transport ------------------------------------------------------------------------------

    def _request(
        self,
        method: str,
        path: str,
        body: Optional[bytes] = None,
        content_type: Optional[str] = None,
        auth: bool = True,
        retry: bool = True,
    ) -> Tuple[int, bytes, Dict[str, str]]:
        waited = 0
        while True:
            try:
                return self._send(method, path, body, content_type, auth)
            except urlerror.HTTPError as e:
                data = e.read()
                if e.code == 401 and auth and retry and not self.api_key and self.refresh_token:
                    self.refresh()
                    retry = False
                    continue
                refused = MangoError(e.code, _reason(e.code, data), e.headers.get("Retry-After"))
                wait = retry_after_seconds(refused.retry_after) if e.code in (429, 503) else None
                if wait is None or waited >= self.retries or wait > self.max_retry_wait:
                    raise refused from None
                waited += 1
                if self.on_retry:
                    self.on_retry(refused, wait)
                time.sleep(wait)

    def _send(
        self,
        method: str,
        path: str,
        body: Optional[bytes],
        content_type: Optional[str],
        auth: bool,
    ) -> Tuple[int, bytes, Dict[str, str]]:
        headers = {"Accept": "application/json, */*"}
        if content_type:
            headers["Content-Type"] = content_type
        token = self.api_key or self.access_token
        if auth and token:
            headers["Authorization"] = f"Bearer {token}"
        req = urlrequest.Request(self.base_url + path, data=body, method=method, headers=headers)
        with urlrequest.urlopen(req, timeout=self.timeout) as res:
            return res.status, res.read(), dict(res.headers)

    def openapi(self) -> Row:
        """The server's OpenAPI document (GET /api/openapi.json), read once: the routes and their fields."""
        if self._openapi is None:
            self._openapi = self._json("GET", "/api/openapi.json", auth=False)
        return self._openapi

    def form_fields(self, path: str) -> Dict[str, Row]:
        """The text fields a multipart route of the server takes, by wire name, with their JSON Schema."""
        operation = self.openapi().get("paths", {}).get(path, {}).get("post")
        if operation is None:
            raise MangoError(404, f"the server does not describe POST {path}")
        content = operation.get("requestBody", {}).get("content", {}).get("multipart/form-data", {})
        properties = content.get("schema", {}).get("properties", {})
        return {k: v for k, v in properties.items() if k not in FILE_FIELDS}

    def _option_fields(self, path: str, options: Dict[str, Any]) -> List[Tuple[str, str]]:
        """`options` as form fields, each checked against the route's fields in the server's document."""
        known = self.form_fields(path)
        fields = []
        for name, value in options.items():
            if value is None:
                continue
            schema = known.get(name)
            if schema is None:
                raise ValueError(
                    f"unknown option {name!r} for POST {path}; the server takes: {', '.join(sorted(known))}"
                )
            text = _wire_value(name, value)
            choices = schema.get("enum")
            if choices is not None and text not in choices:
                raise ValueError(f"option {name!r} must be one of {', '.join(map(str, choices))}, got {text!r}")
            fields.append((name, text))
        return fields

    def _json(self, method: str, path: str, payload: Any = None, auth: bool = True) -> Any:
        body = None if payload is None else json.dumps(payload).encode("utf-8")
        _, data, _ = self._request(method, path, body, "application/json" if body else None, auth)
        return json.loads(data.decode("utf-8")) if data else None

    def _form(self, path: str, fields: Sequence[Tuple[str, str]], files: Sequence[Tuple[str, str, bytes]]) -> Any:
        body, content_type = _multipart(fields, files)
        _, data, _ = self._request("POST", path, body, content_type)
        return json.loads(data.decode("utf-8"))

    # ---- accounts ---------------------------------------------------------------------------------

    @classmethod
    def sign_in(cls, base_url: str, email: str, password: str, timeout: float = 600.0) -> "MangoClient":
        """Signs in with an e-mail (or user name) and password: POST /api-node/login."""
        client = cls(base_url, timeout=timeout)
        pair = client._json("POST", "/api-node/login", {"email": email, "password": password}, auth=False)
        client.access_token = pair["accessToken"]
        client.refresh_token = pair["refreshToken"]
        return client

    def refresh(self) -> None:
        """Exchanges the refresh token for a new pair (done by itself when the access token has expired)."""
        if not self.refresh_token:
            raise MangoError(401, "no refresh token: sign in again")
        pair = self._json("POST", "/api-node/refresh", {"refreshToken": self.refresh_token}, auth=False)
        self.access_token = pair["accessToken"]
        self.refresh_token = pair["refreshToken"]

    def create_api_key(self, name: str, rate_limit_per_minute: int = 60) -> str:
        """A new server API key of the signed-in user (shown once): for scripts that run unattended."""
        created = self._json(
            "POST",
            "/api-node/api-keys",
            {"name": name, "kind": "server", "allowedOrigins": [], "rateLimitPerMinute": rate_limit_per_minute},
        )
        return created["key"]

    # ---- /api-py ----------------------------------------------------------------------------------

    def bruise(
        self,
        photos: Iterable[PathLike],
        method: str = "auto",
        *,
        meta: Optional[str] = None,
        meta_csv: Optional[PathLike] = None,
        **options: Any,
    ) -> List[Row]:
        """Bruise figures of each photo (at most MAX_FILES_PER_REQUEST, 50 by default; use a job for more).

        ``method``: ``auto`` (the model, else classical) or ``classical``. ``meta``: a name pattern such as
        ``cv-{cultivar}_day{day}``; ``meta_csv``: a CSV file with an ``image`` column. Each item has its
        ``meta`` and, when its name gave none, ``warnings``; ``fruit_rows(items)`` flattens the fruit.
        ``options``: any field of the route by its wire name, checked against the server's OpenAPI
        document (``px_per_cm=42``, ``reference_mm=25``, ``grades="codex-mango"``, ``keep_going=True``,
        ``colour_card="off"``, ``card_kind="passport"``, ``strict_quality=True``, ``require_scale=True``);
        with ``keep_going=True`` a photo that cannot be scored is an item ``{filename, error, code}``.
        Everything after ``method`` is a keyword (``bruise(paths, "classical", 42)`` is a TypeError).
        """
        route = {"auto": "DeepLearning", "classical": "Classical"}.get(method)
        if route is None:
            raise ValueError("method must be 'auto' or 'classical'")
        path = f"/api-py/python/bruise_detection/{route}"
        meta_fields, meta_files = _meta_fields(meta, meta_csv)
        fields = self._option_fields(path, options)
        return self._form(path, fields + meta_fields, _photo_parts(photos) + meta_files)

    def analyze(
        self,
        photos: Iterable[PathLike],
        features: Sequence[str],
        *,
        meta: Optional[str] = None,
        meta_csv: Optional[PathLike] = None,
        **options: Any,
    ) -> List[Row]:
        """Feature values of each photo (/api-py/python/analyze): ``features`` ids such as ``["rgb", "area"]``.

        ``options``: any other field of the route by its wire name (``isolate=True``, ``per_fruit=True``,
        ``px_per_cm=20``); with ``per_fruit`` each item has ``fruits``, one entry per fruit. Options and
        ``meta`` are keywords only.
        """
        path = "/api-py/python/analyze"
        fields = self._option_fields(path, {"features": list(features), **options})
        meta_fields, meta_files = _meta_fields(meta, meta_csv)
        return self._form(path, fields + meta_fields, _photo_parts(photos) + meta_files)

    # ---- batch jobs -------------------------------------------------------------------------------

    def submit_job(
        self,
        photos: Optional[Iterable[PathLike]] = None,
        operation: str = "bruise",
        options: Optional[Dict[str, Any]] = None,
        zip_file: Optional[PathLike] = None,
        meta: Optional[str] = None,
        meta_csv: Optional[PathLike] = None,
        keep_overlays: bool = False,
        **more_options: Any,
    ) -> Row:
        """Starts a batch job (POST /api-node/jobs): ``{"id": ..., "warnings": [...]}`` (warnings with metadata).

        The plugin's options by their wire names, as a dict (``options={"method": "classical"}``) or as
        keywords (``px_per_cm=42, colour_card="off"``), or both; the server refuses a name the plugin
        does not know (MangoError 400 with the reason).
        """
        merged = {**(options or {}), **more_options}
        fields = [("operation", operation), ("options", json.dumps(merged))]
        if keep_overlays:
            fields.append(("keep_overlays", "true"))
        meta_fields, meta_files = _meta_fields(meta, meta_csv)
        if zip_file is not None:
            files = _photo_parts([zip_file], field="zip")
        else:
            files = _photo_parts(photos or [])
        return self._form("/api-node/jobs", fields + meta_fields, files + meta_files)

    def job(self, job_id: str) -> Row:
        """A job's progress: ``{id, state, total, done, failed, run_id}``."""
        return self._json("GET", f"/api-node/jobs/{urlparse.quote(job_id)}")

    def wait_job(
        self,
        job_id: str,
        poll_seconds: float = 1.0,
        timeout: Optional[float] = None,
        on_progress: Optional[Callable[[Row], None]] = None,
    ) -> Row:
        """Polls the job until it is done, failed or cancelled; answers its last progress."""
        started = time.monotonic()
        while True:
            progress = self.job(job_id)
            if on_progress:
                on_progress(progress)
            if progress["state"] in TERMINAL_JOB_STATES:
                return progress
            if timeout is not None and time.monotonic() - started > timeout:
                raise TimeoutError(f"job {job_id} still {progress['state']} after {timeout} s")
            time.sleep(poll_seconds)

    def cancel_job(self, job_id: str) -> Row:
        return self._json("DELETE", f"/api-node/jobs/{urlparse.quote(job_id)}")

    # ---- stored runs ------------------------------------------------------------------------------

    def runs(self, operation: Optional[str] = None, q: Optional[str] = None, page_size: int = 50) -> List[Row]:
        """Every stored run of the caller, newest first (all pages), optionally of one operation or file name."""
        out: List[Row] = []
        cursor = None
        while True:
            query = {"limit": str(page_size)}
            if operation:
                query["operation"] = operation
            if q:
                query["q"] = q
            if cursor:
                query["cursor"] = cursor
            page = self._json("GET", "/api-node/runs?" + urlparse.urlencode(query))
            out.extend(page["runs"])
            cursor = page.get("next_cursor")
            if not cursor:
                return out

    def run(self, run_id: str) -> Row:
        """A stored run with its items (each with its ``result`` and, with metadata, its ``meta``)."""
        return self._json("GET", f"/api-node/runs/{urlparse.quote(run_id)}")

    def export(
        self, run_id: str, format: str = "csv", table: Optional[str] = None, resolution: Optional[str] = None
    ) -> bytes:
        """A run's export as bytes: ``csv`` (``table`` ``fruits`` / ``images`` / ``features``), ``json``, ``zip``, ``html``, ``provenance``.

        ``resolution="full"`` (with ``zip``): overlays and masks at each photo's own size, the kept photos
        scored again (``thumbnail``, the default: the 256 px overlays kept with the run).
        """
        query = {"format": format}
        if table:
            query["table"] = table
        if resolution:
            query["resolution"] = resolution
        _, data, _ = self._request("GET", f"/api-node/runs/{urlparse.quote(run_id)}/export?" + urlparse.urlencode(query))
        return data

    def table(self, run_id: str, table: Optional[str] = None) -> List[Row]:
        """One of a run's tables as dicts (the metadata are columns of it): the first table by default."""
        return read_csv(self.export(run_id, "csv", table).decode("utf-8"))

    def dataframe(self, run_id: str, table: Optional[str] = None):
        """One of a run's tables as a pandas DataFrame (needs pandas)."""
        return to_dataframe(self.table(run_id, table))

    def results_file(self, run_id: str) -> Row:
        """The run's results file (schema mango-bruise-tracker/results/1: provenance, photos with their meta)."""
        return json.loads(self.export(run_id, "json").decode("utf-8"))

    def provenance(self, run_id: str) -> Row:
        return json.loads(self.export(run_id, "provenance").decode("utf-8"))

    def delete_run(self, run_id: str) -> None:
        self._request("DELETE", f"/api-node/runs/{urlparse.quote(run_id)}")

    # ---- truth, models and re-scoring ----------------------------------------------------------------

    def annotations(self, run_id: str) -> Row:
        """The corrected photos of a run (the latest truth of each) as a COCO file (GET /api-node/runs/{id}/annotations)."""
        _, data, _ = self._request("GET", f"/api-node/runs/{urlparse.quote(run_id)}/annotations?format=coco")
        return json.loads(data.decode("utf-8"))

    def import_annotations(self, run_id: str, annotations: Union[Row, PathLike, bytes]) -> Row:
        """Imports corrected masks onto a run's photos (POST /api-node/runs/{id}/annotations), matched by file name.

        ``annotations``: a COCO or Label Studio file as a dict, a path to one (``.json``) or to a CVAT
        "Segmentation mask 1.1" zip, or a zip's bytes. Answers ``{source, matched, unmatched}``.
        """
        if isinstance(annotations, dict):
            body, content_type = json.dumps(annotations).encode("utf-8"), "application/json"
        else:
            if isinstance(annotations, (bytes, bytearray)):
                body = bytes(annotations)
            else:
                with open(os.fspath(annotations), "rb") as f:
                    body = f.read()
            content_type = "application/zip" if body[:4] == b"PK\x03\x04" else "application/json"
        _, data, _ = self._request("POST", f"/api-node/runs/{urlparse.quote(run_id)}/annotations", body, content_type)
        return json.loads(data.decode("utf-8"))

    def models(self) -> Row:
        """The model versions and the one in force per task (GET /api-node/models; a signed-in user)."""
        return self._json("GET", "/api-node/models")

    def rescore(self, run_id: str, model_id: str) -> Row:
        """Re-scores a stored run with another model version (POST /api-node/runs/{id}/rescore): ``{"id": job}``.

        The job (``wait_job``) writes a new run whose ``rescored_from`` is ``run_id``.
        """
        return self._json("POST", f"/api-node/runs/{urlparse.quote(run_id)}/rescore", {"model_id": model_id})
