"""The Mango Bruise Tracker HTTP API from Python, on the standard library alone.

Covers what a lab scripts: signing in (or a server API key), bruise scoring and feature analysis
(/api-py), batch jobs (/api-node/jobs), stored runs and their exports, with the experiment metadata
(``meta`` pattern, ``meta_csv``) of issue 27. Tables come back as lists of dicts, or as pandas
DataFrames when pandas is installed (``to_dataframe``).
"""

from __future__ import annotations

import csv
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
    ):
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"base_url must be an http(s) URL, got {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.access_token = access_token
        self.refresh_token = refresh_token
        self.timeout = timeout

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
        headers = {"Accept": "application/json, */*"}
        if content_type:
            headers["Content-Type"] = content_type
        token = self.api_key or self.access_token
        if auth and token:
            headers["Authorization"] = f"Bearer {token}"
        req = urlrequest.Request(self.base_url + path, data=body, method=method, headers=headers)
        try:
            with urlrequest.urlopen(req, timeout=self.timeout) as res:
                return res.status, res.read(), dict(res.headers)
        except urlerror.HTTPError as e:
            data = e.read()
            if e.code == 401 and auth and retry and not self.api_key and self.refresh_token:
                self.refresh()
                return self._request(method, path, body, content_type, auth, retry=False)
            raise MangoError(e.code, _reason(e.code, data), e.headers.get("Retry-After")) from None

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
        px_per_cm: Optional[float] = None,
        reference_mm: Optional[float] = None,
        grades: Optional[str] = None,
        meta: Optional[str] = None,
        meta_csv: Optional[PathLike] = None,
    ) -> List[Row]:
        """Bruise figures of each photo (at most MAX_FILES_PER_REQUEST, 50 by default; use a job for more).

        ``method``: ``auto`` (the model, else classical) or ``classical``. ``meta``: a name pattern such as
        ``cv-{cultivar}_day{day}``; ``meta_csv``: a CSV file with an ``image`` column. Each item has its
        ``meta`` and, when its name gave none, ``warnings``; ``fruit_rows(items)`` flattens the fruit.
        """
        path = {"auto": "DeepLearning", "classical": "Classical"}.get(method)
        if path is None:
            raise ValueError("method must be 'auto' or 'classical'")
        fields = []
        if px_per_cm is not None:
            fields.append(("px_per_cm", str(px_per_cm)))
        if reference_mm is not None:
            fields.append(("reference_mm", str(reference_mm)))
        if grades is not None:
            fields.append(("grades", grades))
        meta_fields, meta_files = _meta_fields(meta, meta_csv)
        return self._form(
            f"/api-py/python/bruise_detection/{path}", fields + meta_fields, _photo_parts(photos) + meta_files
        )

    def analyze(
        self,
        photos: Iterable[PathLike],
        features: Sequence[str],
        isolate: bool = False,
        meta: Optional[str] = None,
        meta_csv: Optional[PathLike] = None,
    ) -> List[Row]:
        """Feature values of each photo (/api-py/python/analyze): ``features`` ids such as ``["rgb", "area"]``."""
        fields = [("features", json.dumps(list(features)))]
        if isolate:
            fields.append(("isolate", "true"))
        meta_fields, meta_files = _meta_fields(meta, meta_csv)
        return self._form("/api-py/python/analyze", fields + meta_fields, _photo_parts(photos) + meta_files)

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
    ) -> Row:
        """Starts a batch job (POST /api-node/jobs): ``{"id": ..., "warnings": [...]}`` (warnings with metadata).

        ``options`` are the plugin's options by their wire names (``{"method": "classical", "px_per_cm": 42}``).
        """
        fields = [("operation", operation), ("options", json.dumps(options or {}))]
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

    def export(self, run_id: str, format: str = "csv", table: Optional[str] = None) -> bytes:
        """A run's export as bytes: ``csv`` (``table`` ``fruits`` / ``images`` / ``features``), ``json``, ``zip``, ``html``, ``provenance``."""
        query = {"format": format, **({"table": table} if table else {})}
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
