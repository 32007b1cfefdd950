"""The HTTP layer: urllib requests with a bearer key, the error envelope mapped to typed errors,
and a small multipart/form-data encoder (the standard library has none)."""

import json
import math
import os
import urllib.error
import urllib.parse
import urllib.request
import uuid
from typing import Any, Dict, Iterable, List, Optional, Tuple, Union

from .errors import ConnectionFailed, RedirectRefused, error_from_response

# a file part: (filename, content, content type)
FilePart = Tuple[str, bytes, str]


def encode_multipart(fields: Dict[str, str], files: Dict[str, FilePart]) -> Tuple[bytes, str]:
    """A multipart/form-data body and its Content-Type (with the boundary)."""
    boundary = "kiln-" + uuid.uuid4().hex
    lines = []
    for name, value in fields.items():
        lines.append(f"--{boundary}\r\nContent-Disposition: form-data; name=\"{_quote(name)}\"\r\n\r\n".encode())
        lines.append(str(value).encode("utf-8") + b"\r\n")
    for name, (filename, content, ctype) in files.items():
        lines.append(
            f"--{boundary}\r\nContent-Disposition: form-data; name=\"{_quote(name)}\"; filename=\"{_quote(filename)}\"\r\n"
            f"Content-Type: {ctype}\r\n\r\n".encode())
        lines.append(content + b"\r\n")
    lines.append(f"--{boundary}--\r\n".encode())
    return b"".join(lines), f"multipart/form-data; boundary={boundary}"


def _quote(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\r", " ").replace("\n", " ")


def file_part(path: Union[str, os.PathLike], ctype: Optional[str] = None) -> FilePart:
    """A file from disk as a multipart part; the type from its extension unless given."""
    name = os.path.basename(os.fspath(path))
    with open(path, "rb") as handle:
        content = handle.read()
    if ctype is None:
        ext = os.path.splitext(name)[1].lower()
        ctype = {".csv": "text/csv", ".json": "application/json", ".parquet": "application/parquet",
                 ".yaml": "application/yaml", ".yml": "application/yaml"}.get(ext, "application/octet-stream")
    return name, content, ctype


def _origin(url: str) -> Tuple[str, str, Optional[int]]:
    parts = urllib.parse.urlsplit(url)
    default = {"http": 80, "https": 443}.get(parts.scheme)
    return parts.scheme, (parts.hostname or "").lower(), parts.port or default


class _RedirectPolicy(urllib.request.HTTPRedirectHandler):
    """What the client does with a redirect. Kiln never redirects its API, so one comes from
    something in front of it (a proxy, http to https), and the client follows only what keeps the
    request whole and the key at home: a GET or HEAD to the same origin (scheme, host and port),
    and a 307 or 308, which keep the method and body, to the same origin. Anything else raises
    RedirectRefused: urllib alone would send the key to any host it is sent to, and turn a POST
    answered 301, 302 or 303 into a GET that posts nothing and reports success."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        method = req.get_method()
        where = f"{method} {req.full_url} was redirected ({code}) to {newurl}"
        if _origin(newurl) != _origin(req.full_url):
            raise RedirectRefused(
                f"{where}, another host: the client does not follow it, so your key is not sent there. If Kiln "
                f"now lives at that address, create the client with that URL.", newurl, code)
        if method in ("GET", "HEAD"):
            return super().redirect_request(req, fp, code, msg, headers, newurl)
        if code in (307, 308):
            return urllib.request.Request(newurl, data=req.data, method=method, headers=dict(req.header_items()),
                                          origin_req_host=req.origin_req_host, unverifiable=True)
        raise RedirectRefused(
            f"{where}: following it would repeat the request as a GET without its body, so it is not followed and "
            f"the request may not have been carried out. Point the client at the address Kiln answers on itself "
            f"(a proxy in front of it redirects).", newurl, code)


_opener = urllib.request.build_opener(_RedirectPolicy)


class Transport:
    """Requests to one Kiln: ``{url}/v1/...`` with ``Authorization: Bearer {key}``."""

    def __init__(self, url: str, key: Optional[str], timeout: float = 60.0):
        self.base = url.rstrip("/")
        if not self.base.endswith("/v1"):
            self.base += "/v1"
        self.key = key
        self.timeout = timeout

    def request(self, method: str, path: str, *, query: Optional[Dict[str, Any]] = None, json_body: Any = None,
                body: Optional[bytes] = None, content_type: Optional[str] = None, raw: bool = False) -> Any:
        """The response's ``data`` (or the whole JSON body of a bare document, or bytes when ``raw``)."""
        url = self.base + path
        if query:
            pairs = {k: _query_value(v) for k, v in query.items() if v is not None}
            if pairs:
                url += "?" + urllib.parse.urlencode(pairs)
        headers = {"Accept": "application/json"}
        if self.key:
            headers["Authorization"] = f"Bearer {self.key}"
        if json_body is not None:
            # measured values may be NaN or Infinity: Kiln's results routes read Python's bare tokens
            body = json.dumps(json_body, allow_nan=True).encode("utf-8")
            content_type = "application/json"
        if content_type:
            headers["Content-Type"] = content_type
        req = urllib.request.Request(url, data=body, method=method, headers=headers)
        try:
            with _opener.open(req, timeout=self.timeout) as response:
                payload = response.read()
                if raw:
                    return payload
                if not payload:
                    return None
                decoded = json.loads(payload.decode("utf-8"))
                return decoded["data"] if isinstance(decoded, dict) and "data" in decoded and len(decoded) <= 2 else decoded
        except urllib.error.HTTPError as error:
            text = error.read()
            try:
                parsed = json.loads(text.decode("utf-8"))
            except ValueError:
                parsed = None
            raise error_from_response(error.code, parsed, error.headers.get("X-Request-Id")) from None
        except urllib.error.URLError as error:
            raise ConnectionFailed(f"Kiln at {self.base} could not be reached: {error.reason}") from None
        except (TimeoutError, ConnectionError) as error:
            raise ConnectionFailed(f"Kiln at {self.base} could not be reached: {error}") from None

    def request_with_meta(self, method: str, path: str, query: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        """A list response with its ``meta`` (pages)."""
        url_query = {k: _query_value(v) for k, v in (query or {}).items() if v is not None}
        payload = self.request(method, path, query=url_query, raw=True)
        return json.loads(payload.decode("utf-8"))

    def all_pages(self, path: str, query: Optional[Dict[str, Any]] = None) -> List[Any]:
        """Every item of a paged list, read 100 at a time."""
        items: List[Any] = []
        page = 1
        while True:
            body = self.request_with_meta("GET", path, {**(query or {}), "page": page, "per_page": 100})
            items.extend(body["data"])
            if page >= body["meta"]["total_pages"]:
                return items
            page += 1


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def finite_or_none(value: Any) -> Any:
    """NaN and infinities as None (not measured), for records and frames alike."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def chunks(items: Iterable[Any], size: int):
    batch = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch
