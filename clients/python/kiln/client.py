"""Kiln(url, key): campaigns, ask/tell, results, model reports, datasets, export and import."""

import json
import os
import sys
import time
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Union

from .errors import CampaignFailed, InvalidState, KilnError, ValidationFailed
from .http import Transport, chunks, encode_multipart, file_part

PathLike = Union[str, os.PathLike]
ENDED = ("completed", "converged", "failed", "stopped")
#: A result's state, the same words as the API's ``status`` (results, corrections): measured,
#: partial (some values not measured), failed (no value), abandoned (never measured; no failure).
STATUSES = ("measured", "partial", "failed", "abandoned")


class Kiln:
    """A Kiln service: ``Kiln("http://localhost:8080", "svc_live_...")``.

    The key defaults to the ``KILN_API_KEY`` environment variable.
    """

    def __init__(self, url: str = "http://localhost:8080", key: Optional[str] = None, timeout: float = 60.0):
        self.http = Transport(url, key if key is not None else os.environ.get("KILN_API_KEY"), timeout)

    # campaigns

    def create_campaign(self, mdl: Union[Mapping[str, Any], PathLike, None] = None, *, name: Optional[str] = None,
                        domain: Optional[str] = None, template: Optional[str] = None,
                        overrides: Optional[Mapping[str, Any]] = None, dataset_id: Optional[str] = None) -> "Campaign":
        """A new campaign from an MDL dict, an MDL file (YAML or JSON: sent as is, Kiln reads
        both, so PyYAML is not needed), or a template (its id or slug, with ``overrides``)."""
        if template is not None:
            if mdl is not None:
                raise ValueError("give either mdl or template, not both")
            body = {"template_id": template, "name": name or template, "overrides": overrides, "dataset_id": dataset_id}
            return Campaign(self, self.http.request("POST", "/campaigns", json_body=_without_none(body)))
        if isinstance(mdl, Mapping):
            body = {"mdl": dict(mdl), "name": name or mdl.get("name") or "campaign",
                    "domain": domain or mdl.get("domain") or "other", "dataset_id": dataset_id}
            return Campaign(self, self.http.request("POST", "/campaigns", json_body=_without_none(body)))
        if mdl is None:
            raise ValueError("give an MDL (a dict or a file path) or a template")
        fields = _without_none({"name": name, "domain": domain, "dataset_id": dataset_id})
        body_bytes, ctype = encode_multipart(fields, {"mdl_file": file_part(mdl)})
        return Campaign(self, self.http.request("POST", "/campaigns", body=body_bytes, content_type=ctype))

    def campaign(self, campaign_id: str) -> "Campaign":
        return Campaign(self, self.http.request("GET", f"/campaigns/{campaign_id}"))

    def campaigns(self, **filters: Any) -> List["Campaign"]:
        """Every campaign (all pages), filtered by ``status`` or ``domain``."""
        return [Campaign(self, c) for c in self.http.all_pages("/campaigns", filters)]

    def templates(self, domain: Optional[str] = None, search: Optional[str] = None) -> List[Dict[str, Any]]:
        return self.http.request("GET", "/templates", query={"domain": domain, "search": search, "per_page": 100})

    def import_campaign(self, document: Union[Mapping[str, Any], PathLike], *, name: Optional[str] = None,
                        domain: Optional[str] = None) -> "Campaign":
        """A new campaign from an export document (a dict, or the path of a saved export)."""
        if not isinstance(document, Mapping):
            with open(document, "r", encoding="utf-8") as handle:
                document = json.load(handle)
        body = dict(document)
        if name is not None:
            body["name"] = name
        if domain is not None:
            body["domain"] = domain
        return Campaign(self, self.http.request("POST", "/campaigns/import", json_body=body))

    # datasets

    def upload_dataset(self, path: PathLike, *, name: Optional[str] = None, description: str = "",
                       mdl: Union[Mapping[str, Any], str, None] = None, template_id: Optional[str] = None) -> Dict[str, Any]:
        """Uploads a CSV, JSON or Parquet file of evaluations (for warm starts); ``mdl`` (a dict or
        YAML/JSON text) or ``template_id`` checks it at upload. Returns the dataset record."""
        fields = {"name": name or os.path.basename(os.fspath(path)), "description": description}
        if mdl is not None:
            fields["mdl"] = mdl if isinstance(mdl, str) else json.dumps(mdl)
        if template_id is not None:
            fields["template_id"] = template_id
        body, ctype = encode_multipart(fields, {"file": file_part(path)})
        return self.http.request("POST", "/datasets", body=body, content_type=ctype)

    def job(self, job_id: str) -> Dict[str, Any]:
        return self.http.request("GET", f"/jobs/{job_id}")

    def job_logs(self, job_id: str, tail: int = 100) -> List[Dict[str, Any]]:
        return self.http.request("GET", f"/jobs/{job_id}/logs", query={"tail": tail})


class Campaign:
    """One campaign; ``data`` is its latest detail from the server (``refresh()`` reloads it)."""

    def __init__(self, kiln: Kiln, data: Dict[str, Any]):
        self.kiln = kiln
        self.data = data
        self.id: str = data["id"]

    def __repr__(self) -> str:
        return f"<Campaign {self.id} {self.data.get('name')!r} {self.status}>"

    @property
    def status(self) -> str:
        return self.data.get("status", "unknown")

    @property
    def _http(self) -> Transport:
        return self.kiln.http

    def refresh(self) -> "Campaign":
        self.data = self._http.request("GET", f"/campaigns/{self.id}")
        return self

    def start(self, timeout_hours: Optional[float] = None) -> Dict[str, Any]:
        """Starts (or resumes) the campaign; returns the queued job."""
        body = {"timeout_hours": timeout_hours} if timeout_hours is not None else None
        answer = self._http.request("POST", f"/campaigns/{self.id}/start", json_body=body)
        self.data = answer["campaign"]
        return answer["job"]

    def stop(self) -> Dict[str, Any]:
        answer = self._http.request("POST", f"/campaigns/{self.id}/stop")
        self.data = answer["campaign"]
        return answer["job"]

    def delete(self) -> None:
        self._http.request("DELETE", f"/campaigns/{self.id}")

    def wait(self, timeout: Optional[float] = None, poll: float = 2.0,
             progress: Union[bool, Callable[[Dict[str, Any]], None]] = False) -> "Campaign":
        """Waits until the campaign ends (completed, converged, failed or stopped). ``progress``:
        True prints a line when the figures change, or a function called with the detail."""
        deadline = None if timeout is None else time.monotonic() + timeout
        last = None
        while True:
            self.refresh()
            line = (self.status, self.data.get("evaluations_completed"), self.data.get("hypervolume"))
            if progress and line != last:
                if callable(progress):
                    progress(self.data)
                else:
                    print(f"{self.id}: {self.status}, {line[1]}/{self.data.get('budget')} evaluations, "
                          f"hypervolume {line[2]}", file=sys.stderr)
            last = line
            if self.status in ENDED:
                return self
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError(f"campaign {self.id} is still {self.status} after {timeout} s")
            time.sleep(poll)

    # ask / tell

    def ask(self, count: Optional[int] = None, wait: bool = True, timeout: Optional[float] = None,
            poll: float = 1.0) -> List[Dict[str, Any]]:
        """Candidates waiting for results (``{id, iteration, parameters}``). With ``wait`` (the
        default) it waits until there are some, and returns [] once the campaign has ended.
        ``count`` asks for that many (``?count=N``): when fewer wait for results the server
        proposes the difference beside the pending ones (an asynchronous batch, as far as the
        budget allows), and with ``wait`` this waits until they are proposed."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            body = self._http.request_with_meta("GET", f"/campaigns/{self.id}/candidates", {"count": count})
            found = body.get("data") or []
            if count is not None:
                found = found[:count]
            # candidates asked for that the server is still proposing (meta.requested)
            coming = count is not None and len(found) < count and (body.get("meta") or {}).get("requested", 0) > 0
            if (found and not coming) or not wait:
                return found
            if self.refresh().status in ENDED:
                return []
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError(f"no candidates from campaign {self.id} after {timeout} s (status {self.status})")
            time.sleep(poll)

    def tell(self, candidate: Union[str, Mapping[str, Any], Sequence[Mapping[str, Any]]],
             objectives: Optional[Mapping[str, Any]] = None, *, outcomes: Optional[Mapping[str, Any]] = None,
             error: Optional[str] = None, abandoned: bool = False, reason: Optional[str] = None) -> Dict[str, Any]:
        """Tells results. One: ``tell(candidate_or_id, {"f1": 0.3, "f2": 1.2})`` (None or NaN
        where a value was not measured), ``tell(id, error="sample cracked")`` (failed), or
        ``tell(id, abandoned=True, reason=...)`` (never measured). Many: a list of entries
        ``{"id", "objectives", "outcomes"?}`` or ``{"id", "error"}`` or ``{"id", "status", "reason"}``.
        Returns ``{accepted, duplicates, awaiting, partial}`` (summed over the posts of a long list);
        ``partial`` lists each result stored without some values, ``{id, missing}``."""
        if isinstance(candidate, (str, Mapping)):
            entries = [_entry(candidate, objectives, outcomes, error, abandoned, reason)]
        else:
            if objectives is not None or error is not None or abandoned:
                raise ValueError("tell(list) takes the results inside its entries")
            entries = [dict(e) for e in candidate]
        total: Dict[str, Any] = {"accepted": 0, "duplicates": 0, "awaiting": 0, "partial": []}
        for batch in chunks(entries, 10_000):
            answer = self._http.request("POST", f"/campaigns/{self.id}/evaluations", json_body={"evaluations": batch})
            total["accepted"] += answer["accepted"]
            total["duplicates"] += answer["duplicates"]
            total["awaiting"] = answer["awaiting"]
            total["partial"] += answer.get("partial", [])
        return total

    def worklist(self, path: Optional[PathLike] = None) -> str:
        """The pending batch as a CSV worklist (id, iteration, parameters, empty objective columns,
        status, reason, note; headed with units, as the dashboard heads them); saved to ``path`` if
        given. Fill it in and post it with ``tell_csv``."""
        text = self._http.request("GET", f"/campaigns/{self.id}/worklist", raw=True).decode("utf-8-sig")
        if path is not None:
            with open(path, "w", encoding="utf-8-sig", newline="") as handle:
                handle.write(text)
        return text

    def tell_csv(self, path_or_text: Union[PathLike, str]) -> Dict[str, Any]:
        """Posts a filled worklist CSV (a path, or the CSV text): id, every objective (and outcome)
        column, optional status and reason; unfilled rows are left for later. A column that is not
        the campaign's refuses the whole file (``ValidationFailed`` naming it). The answer is as
        ``tell``'s."""
        text = path_or_text
        if isinstance(path_or_text, os.PathLike) or (isinstance(path_or_text, str) and "\n" not in path_or_text
                                                     and os.path.exists(path_or_text)):
            with open(path_or_text, "r", encoding="utf-8") as handle:
                text = handle.read()
        return self._http.request("POST", f"/campaigns/{self.id}/evaluations", body=str(text).encode("utf-8"),
                                  content_type="text/csv")

    def correct(self, evaluation_id: str, objectives: Optional[Mapping[str, Any]] = None, *,
                outcomes: Optional[Mapping[str, Any]] = None, error: Optional[str] = None, abandoned: bool = False,
                reason: Optional[str] = None, comment: Optional[str] = None) -> Dict[str, Any]:
        """Corrects a told result; the old values stay in ``corrections()`` with who and when."""
        body = _entry(evaluation_id, objectives, outcomes, error, abandoned, reason)
        del body["id"]
        if comment is not None:
            body["comment"] = comment
        return self._http.request("PUT", f"/campaigns/{self.id}/evaluations/{evaluation_id}", json_body=body)

    def corrections(self, evaluation_id: Optional[str] = None) -> List[Dict[str, Any]]:
        """Every correction (all pages), oldest first; of one evaluation when it is named."""
        return self._http.all_pages(f"/campaigns/{self.id}/corrections", {"evaluation_id": evaluation_id})

    def run(self, submit: Callable[[Dict[str, Any]], Any], *, poll: float = 1.0, timeout: Optional[float] = None,
            progress: Union[bool, Callable[[Dict[str, Any]], None]] = False, keep: Optional[int] = None) -> "Campaign":
        """The cluster loop: every candidate goes to ``submit(candidate)``, which returns a
        ``concurrent.futures.Future`` (a scheduler job); each result is told as soon as its future
        finishes: a mapping of objectives (or ``{"objectives", "outcomes"}``), and an exception
        tells the candidate as failed with its message. With ``keep``, that many candidates are
        kept in flight: as jobs finish, new candidates are asked for beside the running ones
        (``ask(count=keep)``, asynchronous batches) instead of waiting for the whole batch.
        Returns when the campaign has ended; raises ``CampaignFailed`` when it ended ``failed``
        (every job failing for ``max_failed_iterations`` batches, say), with the reason."""
        from concurrent.futures import FIRST_COMPLETED, wait as wait_futures
        deadline = None if timeout is None else time.monotonic() + timeout
        in_flight: Dict[Any, Dict[str, Any]] = {}
        submitted = set()
        while True:
            for candidate in self.ask(count=keep, wait=False):
                if candidate["id"] not in submitted:
                    submitted.add(candidate["id"])
                    in_flight[submit(candidate)] = candidate
            if not in_flight:
                if self.refresh().status in ENDED:
                    if self.status == "failed":
                        raise CampaignFailed(self._failure(), self)
                    return self
                if deadline is not None and time.monotonic() > deadline:
                    raise TimeoutError(f"campaign {self.id} is still {self.status} after {timeout} s")
                time.sleep(poll)
                continue
            done, _ = wait_futures(list(in_flight), timeout=poll, return_when=FIRST_COMPLETED)
            for future in done:
                candidate = in_flight.pop(future)
                failure = future.exception()
                if failure is not None:
                    self.tell(candidate, error=f"{type(failure).__name__}: {failure}" [:2000])
                    continue
                value = future.result()
                if isinstance(value, Mapping) and "objectives" in value:
                    self.tell(candidate, value["objectives"], outcomes=value.get("outcomes"))
                else:
                    self.tell(candidate, value)
            if progress and done:
                self.refresh()
                if callable(progress):
                    progress(self.data)
                else:
                    print(f"{self.id}: {self.data.get('evaluations_completed')}/{self.data.get('budget')} evaluations, "
                          f"{len(in_flight)} running", file=sys.stderr)

    def _failure(self) -> str:
        """Why the campaign failed, in a sentence: its job's error and how many evaluations failed."""
        job_id = self.data.get("latest_job_id")
        error = (self.kiln.job(job_id).get("error") if job_id else None) or "no reason recorded"
        try:
            failed = len(self._http.request("GET", f"/campaigns/{self.id}/results").get("failed_evaluations", []))
        except KilnError:  # a key that may not read the results still learns why
            return f"campaign {self.id} failed: {error}"
        return (f"campaign {self.id} failed: {error} ({failed} evaluation{'' if failed == 1 else 's'} failed; "
                f"campaign.results(failed=True) lists them with their errors)")

    # results

    def results(self, pareto_only: bool = False, frame: bool = False, failed: bool = False):
        """The evaluations as records ``{id, iteration, status, is_pareto, feasible, <parameters>,
        <objectives>, <outcomes>}`` (the Pareto front only with ``pareto_only``; with ``failed``, the
        candidates without a value too, with their ``error``), or a pandas DataFrame with
        ``frame=True``. ``status`` is the API's word for a result's state (``STATUSES``): measured,
        partial (some values not measured: those keys are absent), failed, or abandoned (never
        measured, which is no failure)."""
        data = self._http.request("GET", f"/campaigns/{self.id}/results", query={"pareto_only": pareto_only})
        rows = data["pareto_front"] if pareto_only else data["evaluations"]
        records = [_flat(r) for r in rows]
        if failed and not pareto_only:
            records += [{"id": f["id"], "iteration": f["iteration"], "status": f.get("status", "failed"), "is_pareto": False,
                         "feasible": False, **f["parameters"], "error": f["error"]} for f in data.get("failed_evaluations", [])]
        if not frame:
            return records
        try:
            import pandas
        except ImportError:
            raise ImportError("results(frame=True) needs pandas: pip install pandas, or with Debian's or Ubuntu's "
                              "Python (where pip refuses to install) apt install python3-pandas; without it, use the "
                              "records that results() returns") from None
        return pandas.DataFrame.from_records(records)

    def summary(self) -> Dict[str, Any]:
        """The full results payload: pareto_front, evaluations, hypervolume, convergence_history..."""
        return self._http.request("GET", f"/campaigns/{self.id}/results")

    def model_report(self) -> Dict[str, Any]:
        return self._http.request("GET", f"/campaigns/{self.id}/model")

    def export(self, path: Optional[PathLike] = None) -> Dict[str, Any]:
        """The export document (everything needed to continue elsewhere); saved to ``path`` if given."""
        document = self._http.request("GET", f"/campaigns/{self.id}/export")
        if path is not None:
            with open(path, "w", encoding="utf-8") as handle:
                json.dump(document, handle)
        return document

    def logs(self, tail: int = 100) -> List[Dict[str, Any]]:
        job_id = self.refresh().data.get("latest_job_id")
        return self.kiln.job_logs(job_id, tail) if job_id else []


def _entry(candidate: Union[str, Mapping[str, Any]], objectives, outcomes, error, abandoned, reason) -> Dict[str, Any]:
    candidate_id = candidate if isinstance(candidate, str) else candidate["id"]
    entry: Dict[str, Any] = {"id": candidate_id}
    if abandoned:
        if objectives is not None:
            raise ValueError("an abandoned candidate has no values")
        entry["status"] = "abandoned"
        if reason or error:
            entry["reason"] = reason or error
        return entry
    if error is not None and objectives is None:
        entry["status"] = "failed"
        entry["reason"] = error
        return entry
    if objectives is None:
        raise ValueError("tell needs objectives, error=... or abandoned=True")
    entry["objectives"] = {k: _number(v) for k, v in objectives.items()}
    if outcomes is not None:
        entry["outcomes"] = {k: _number(v) for k, v in outcomes.items()}
    return entry


def _number(value: Any) -> Any:
    """A measured value as JSON takes it: None stays None (not measured), numpy scalars become floats."""
    if value is None:
        return None
    return float(value)


def _flat(row: Mapping[str, Any]) -> Dict[str, Any]:
    out = {"id": row["id"], "iteration": row["iteration"], "status": row.get("status", "measured"),
           "is_pareto": row.get("is_pareto", False), "feasible": row.get("feasible", True)}
    out.update(row.get("parameters", {}))
    out.update(row.get("objectives", {}))
    out.update(row.get("outcomes", {}) or {})
    return out


def _without_none(values: Mapping[str, Any]) -> Dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}


__all__ = ["Kiln", "Campaign", "ENDED", "STATUSES", "InvalidState", "ValidationFailed"]
