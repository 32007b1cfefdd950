"""The lab loop of docs/python.md, against a real Kiln: ask a batch, measure it, tell it, correct
a typo, until the budget is spent; then results, the model report, export and import."""

import csv
import json
import math
import os
import tempfile
import unittest
import urllib.request

import kiln as kiln_module
from support import kiln, zdt1, zdt1_mdl


class LabLoop(unittest.TestCase):
    def test_lab_loop(self):
        k = kiln()
        campaign = k.create_campaign(zdt1_mdl(budget=8), name="lab loop", domain="benchmark")
        self.assertEqual(campaign.status, "created")
        job = campaign.start()
        self.assertEqual(job["status"], "queued")

        told = {}
        typo_id = None
        while True:
            batch = campaign.ask(timeout=90)
            if not batch:
                break
            results = []
            for candidate in batch:
                measured = zdt1(candidate["parameters"])
                told[candidate["id"]] = measured
                if typo_id is None:
                    # a value typed wrong, corrected below
                    typo_id = candidate["id"]
                    measured = {"f1": measured["f1"] * 10, "f2": measured["f2"]}
                results.append({"id": candidate["id"], "objectives": measured})
            answer = campaign.tell(results)
            self.assertEqual(answer["accepted"], len(batch))
            if typo_id in {c["id"] for c in batch}:
                fixed = campaign.correct(typo_id, told[typo_id], comment="decimal point")
                self.assertTrue(fixed["changed"])
                # telling the same again is harmless; a different value is refused (correct it instead)
                self.assertEqual(campaign.tell(typo_id, told[typo_id])["duplicates"], 1)
                with self.assertRaises(kiln_module.InvalidState) as refused:
                    campaign.tell(typo_id, {"f1": 0.5, "f2": 0.5})
                self.assertIn("PUT", refused.exception.message)

        campaign.wait(timeout=60, progress=True)
        self.assertEqual(campaign.status, "completed")
        self.assertEqual(campaign.data["evaluations_completed"], 8)

        records = campaign.results()
        self.assertEqual(len(records), 8)
        for record in records:
            self.assertAlmostEqual(record["f1"], told[record["id"]]["f1"], places=12)
            self.assertAlmostEqual(record["f2"], told[record["id"]]["f2"], places=12)
        front = campaign.results(pareto_only=True)
        self.assertTrue(0 < len(front) <= 8)
        self.assertTrue(all(r["is_pareto"] for r in front))
        history = campaign.corrections()
        self.assertEqual([(h["evaluation_id"], h["comment"]) for h in history], [(typo_id, "decimal point")])
        self.assertAlmostEqual(history[0]["previous"]["objectives"]["f1"], told[typo_id]["f1"] * 10)

        try:
            import pandas  # noqa: F401
            has_pandas = True
        except ImportError:
            has_pandas = False
        if has_pandas:
            frame = campaign.results(frame=True)
            self.assertEqual(len(frame), 8)
            self.assertIn("f1", frame.columns)
        else:
            with self.assertRaises(ImportError):
                campaign.results(frame=True)

        report = campaign.model_report()
        self.assertEqual([o["name"] for o in report["outputs"]], ["f1", "f2"])
        self.assertEqual(report["evaluations"], 8)

        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "lab.json")
            document = campaign.export(path)
            self.assertEqual(document["kiln_export_version"], 1)
            copy = k.import_campaign(path, name="lab copy")
        self.assertNotEqual(copy.id, campaign.id)
        self.assertEqual(copy.status, "completed")
        self.assertEqual(len(copy.results()), 8)

    def test_partial_failed_and_abandoned_results(self):
        k = kiln()
        campaign = k.create_campaign(zdt1_mdl(budget=6), name="partial lab", domain="benchmark")
        campaign.start()
        # count: at most that many (a server without ?count=N lists its batch, cut here)
        self.assertEqual(len(campaign.ask(count=2, timeout=90)), 2)
        batch = campaign.ask(timeout=90)
        self.assertEqual(len(batch), 4)
        a, b, c, d = batch
        campaign.tell(a, {"f1": zdt1(a["parameters"])["f1"], "f2": math.nan})  # f2 not measured
        campaign.tell(b["id"], error="sample cracked")
        campaign.tell(c["id"], abandoned=True, reason="furnace down")
        # the last one through the downloaded worklist, filled in and posted back as a file
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "worklist.csv")
            text = campaign.worklist(path)
            self.assertTrue(text.startswith("id,iteration,x1,x2,f1,f2,status,reason,note\r\n"))
            with open(path, newline="", encoding="utf-8-sig") as handle:
                rows = list(csv.DictReader(handle))
            self.assertEqual([r["id"] for r in rows], [x["id"] for x in batch])
            for row in rows:
                if row["id"] == d["id"]:
                    row.update({k: repr(v) for k, v in zdt1(d["parameters"]).items()})
            with open(path, "w", newline="", encoding="utf-8-sig") as handle:
                writer = csv.DictWriter(handle, fieldnames=list(rows[0].keys()))
                writer.writeheader()
                writer.writerows(rows)
            answer = campaign.tell_csv(path)
            self.assertEqual((answer["accepted"], answer["duplicates"], answer["partial"]), (1, 3, []))
        nxt = campaign.ask(timeout=90)
        self.assertTrue(all(x["iteration"] == 2 for x in nxt))
        records = {r["id"]: r for r in campaign.results()}
        self.assertEqual(set(records), {a["id"], d["id"]})
        self.assertNotIn("f2", records[a["id"]])
        self.assertEqual((records[a["id"]]["status"], records[d["id"]]["status"]), ("partial", "measured"))
        failed = {r["id"]: r for r in campaign.results(failed=True) if "error" in r}
        # abandoned is its own state, never counted as failed; its reason is as given
        self.assertEqual((failed[b["id"]]["status"], failed[b["id"]]["error"]), ("failed", "sample cracked"))
        self.assertEqual((failed[c["id"]]["status"], failed[c["id"]]["error"]), ("abandoned", "furnace down"))
        self.assertEqual(sorted(r["status"] for r in campaign.results(failed=True)), ["abandoned", "failed", "measured", "partial"])
        # the client's words for a result's state are the API's own (its OpenAPI document's enum)
        with urllib.request.urlopen(os.environ["KILN_URL"].rstrip("/") + "/v1/openapi.json") as answer:
            document = json.load(answer)
        enums = []

        def walk(node):
            if isinstance(node, dict):
                if "partial" in node.get("enum", []):
                    enums.append(tuple(node["enum"]))
                for value in node.values():
                    walk(value)
            elif isinstance(node, list):
                for value in node:
                    walk(value)

        walk(document)
        self.assertIn(tuple(kiln_module.STATUSES), enums)
        campaign.stop()

    def test_campaign_sources_and_typed_errors(self):
        k = kiln()
        # a YAML file is sent as it is: Kiln reads YAML, so PyYAML is not needed here
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "material.yaml")
            with open(path, "w", encoding="utf-8") as handle:
                handle.write("name: from yaml\ndomain: benchmark\nparameters:\n  - {name: x1, type: continuous, bounds: [0, 1]}\n"
                             "  - {name: x2, type: continuous, bounds: [0, 1]}\nobjectives:\n"
                             "  - {name: f1, direction: minimize}\n  - {name: f2, direction: minimize}\n"
                             "optimizer: {budget: 10}\n")
            from_yaml = k.create_campaign(path)
            self.assertEqual(from_yaml.data["name"], "from yaml")
            self.assertEqual(from_yaml.data["parameters_count"], 2)

            # a dataset uploaded for a warm start, checked against the MDL at upload
            rows = [(0.1 * i, 0.05 * i) for i in range(1, 7)]
            csv_path = os.path.join(folder, "earlier.csv")
            with open(csv_path, "w", encoding="utf-8") as handle:
                handle.write("x1,x2,f1,f2\n")
                for x1, x2 in rows:
                    v = zdt1({"x1": x1, "x2": x2})
                    handle.write(f"{x1},{x2},{v['f1']},{v['f2']}\n")
            dataset = k.upload_dataset(csv_path, name="earlier runs", mdl=zdt1_mdl())
            self.assertEqual(dataset["rows"], 6)
            warm = k.create_campaign(zdt1_mdl(), name="warm", domain="benchmark", dataset_id=dataset["id"])
            warm_rows = warm.results()
            self.assertEqual(len(warm_rows), 6, "the dataset's rows are the campaign's evaluations of iteration 0")
            self.assertTrue(all(r["iteration"] == 0 for r in warm_rows))

        templates = k.templates()
        self.assertTrue(templates)
        slug = templates[0]["slug"]
        from_template = k.create_campaign(template=slug, name="from template", overrides={"optimizer": {"budget": 12}})
        self.assertEqual(from_template.data["budget"], 12)

        with self.assertRaises(kiln_module.ValidationFailed) as invalid:
            k.create_campaign({"parameters": [], "objectives": [], "optimizer": {"budget": 0}}, name="bad", domain="benchmark")
        self.assertTrue(invalid.exception.errors)
        self.assertEqual(invalid.exception.status, 422)
        with self.assertRaises(kiln_module.NotFound):
            k.campaign("camp_nope")
        with self.assertRaises(kiln_module.InvalidState):
            from_yaml.stop()
        with self.assertRaises(kiln_module.ValidationFailed) as unknown:
            from_yaml.tell("eval_nope", {"f1": 1, "f2": 2})
        self.assertEqual(unknown.exception.errors[0]["path"], "evaluations[0].id")
        with self.assertRaises(kiln_module.Unauthenticated):
            kiln_module.Kiln(os.environ["KILN_URL"], "svc_live_wrong").campaigns()
        with self.assertRaises(kiln_module.ConnectionFailed):
            kiln_module.Kiln("http://127.0.0.1:9", "x", timeout=5).campaigns()
        self.assertIsInstance(invalid.exception, kiln_module.KilnError)


if __name__ == "__main__":
    unittest.main()
