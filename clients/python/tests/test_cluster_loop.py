"""The cluster loop of docs/python.md, against a real Kiln: each candidate goes to a scheduler
through a callback (here a thread pool playing the cluster) and is told as soon as it finishes;
a job that dies is told as a failure."""

import random
import threading
import time
import unittest
from concurrent.futures import ThreadPoolExecutor

import kiln as kiln_module
from support import kiln, zdt1, zdt1_mdl


class ClusterLoop(unittest.TestCase):
    def test_cluster_loop(self):
        k = kiln()
        campaign = k.create_campaign(zdt1_mdl(budget=8), name="cluster loop", domain="benchmark")
        campaign.start()
        scheduler = ThreadPoolExecutor(max_workers=3)
        order = []
        lock = threading.Lock()
        rng = random.Random(1)
        doomed = []

        def simulate(candidate):
            time.sleep(rng.uniform(0.05, 0.3))
            with lock:
                order.append(candidate["id"])
            if candidate["id"] in doomed:
                raise RuntimeError("node lost")
            return zdt1(candidate["parameters"])

        def submit(candidate):
            # the first job of the second batch dies on its node
            if candidate["iteration"] == 2 and not doomed:
                doomed.append(candidate["id"])
            return scheduler.submit(simulate, candidate)

        seen = []
        campaign.run(submit, poll=0.2, timeout=180, progress=lambda detail: seen.append(detail["evaluations_completed"]))
        scheduler.shutdown()
        self.assertEqual(campaign.status, "completed")
        self.assertEqual(campaign.data["evaluations_completed"], 8)
        self.assertEqual(len(order), 8, "every candidate was submitted once")
        records = campaign.results(failed=True)
        failures = [r for r in records if "error" in r]
        self.assertEqual([(r["id"], r["error"]) for r in failures], [(doomed[0], "RuntimeError: node lost")])
        self.assertEqual(len(records), 8)
        self.assertTrue(seen, "progress was reported as results came in")

    def test_cluster_loop_raises_when_the_campaign_fails(self):
        k = kiln()
        mdl = zdt1_mdl(budget=8)
        mdl["optimizer"]["max_failed_iterations"] = 1
        campaign = k.create_campaign(mdl, name="cluster loop, every job fails", domain="benchmark")
        campaign.start()
        scheduler = ThreadPoolExecutor(max_workers=2)

        def broken(candidate):
            raise RuntimeError("sbatch: command not found")

        # it used to return, and the script went on to print [] and exit 0
        with self.assertRaises(kiln_module.CampaignFailed) as caught:
            campaign.run(lambda c: scheduler.submit(broken, c), poll=0.2, timeout=120)
        scheduler.shutdown()
        failure = caught.exception
        self.assertIsInstance(failure, kiln_module.KilnError)
        self.assertEqual(failure.campaign.status, "failed")
        self.assertRegex(str(failure), rf"campaign {campaign.id} failed: .+ \(4 evaluations failed; ")
        errors = {r["error"] for r in failure.campaign.results(failed=True)}
        self.assertEqual(errors, {"RuntimeError: sbatch: command not found"})

    def test_cluster_loop_keeps_jobs_in_flight(self):
        k = kiln()
        campaign = k.create_campaign(zdt1_mdl(budget=10), name="cluster loop, asynchronous", domain="benchmark")
        campaign.start()
        scheduler = ThreadPoolExecutor(max_workers=3)
        lock = threading.Lock()
        overlaps = []
        running = set()

        def simulate(candidate):
            with lock:
                # a candidate of a later iteration started while one of an earlier one still runs
                if any(iteration < candidate["iteration"] for iteration in running):
                    overlaps.append(candidate["id"])
                running.add(candidate["iteration"])
            time.sleep(0.4 if candidate["iteration"] % 2 else 0.1)
            with lock:
                running.discard(candidate["iteration"])
            return zdt1(candidate["parameters"])

        campaign.run(lambda c: scheduler.submit(simulate, c), poll=0.1, timeout=180, keep=3)
        scheduler.shutdown()
        self.assertEqual(campaign.status, "completed")
        self.assertEqual(campaign.data["evaluations_completed"], 10)
        records = campaign.results()
        self.assertEqual(len(records), 10)
        designs = {}
        for r in records:
            designs.setdefault((r["x1"], r["x2"]), []).append((r["f1"], r["f2"]))
        # one design may be measured twice: the noise check of a campaign that declares no noise;
        # pending candidates are never proposed again
        self.assertGreaterEqual(len(designs), 9, "no candidate repeats another, but for the noise check")
        for measurements in designs.values():
            self.assertEqual(len(set(measurements)), 1, "an exact simulator repeats its values")
        self.assertTrue(overlaps, "new candidates were asked for while others were still running")


if __name__ == "__main__":
    unittest.main()
