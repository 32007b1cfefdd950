"""Redirects, against tiny HTTP servers of the test's own and a real Kiln: the key is never sent to
another host, and a redirected POST is an error, never a GET reported as success. Kiln itself never
redirects its API; these play a proxy in front of it, and the other host a redirect points to."""

import json
import threading
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import kiln as kiln_module
from kiln import Kiln
from support import kiln, zdt1_mdl

KEY = "svc_live_not_for_other_hosts"
CAMPAIGN = {"id": "cmp_redirected", "name": "x", "status": "created"}


class Server:
    """An HTTP server on 127.0.0.1 that records every request (method, path, Authorization, body)
    and answers with ``respond(server, method, path)``: (status, headers, JSON payload or None)."""

    def __init__(self, respond):
        self.requests = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def answer(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                server.requests.append({"method": self.command, "path": self.path,
                                        "authorization": self.headers.get("Authorization"), "body": body})
                status, headers, payload = respond(server, self.command, self.path)
                data = json.dumps(payload).encode() if payload is not None else b""
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PUT = do_DELETE = answer

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_port
        self.url = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def redirecting(code, to):
    """A proxy answering every request not under /moved with `code` to `to(server, path)`; /moved answers 200."""
    def respond(server, method, path):
        if path.startswith("/moved"):
            return 200, {}, {"data": CAMPAIGN}
        return code, {"Location": to(server, path)}, None
    return respond


class Redirects(unittest.TestCase):
    def setUp(self):
        self.other = Server(lambda server, method, path: (200, {}, {"data": CAMPAIGN}))
        self.servers = [self.other]

    def tearDown(self):
        for server in self.servers:
            server.close()

    def proxy(self, code, to):
        server = Server(redirecting(code, to))
        self.servers.append(server)
        return server

    def test_the_key_never_goes_to_another_host(self):
        for code in (301, 302, 303, 307, 308):
            for name, to in (("another port", lambda s, p: self.other.url + p),
                             ("another host name", lambda s, p: f"http://localhost:{s.port}/moved{p}")):
                with self.subTest(code=code, to=name):
                    proxy = self.proxy(code, to)
                    client = Kiln(proxy.url, KEY)
                    for path, call in (("/v1/campaigns/cmp_x", lambda: client.campaign("cmp_x")),
                                       ("/v1/campaigns", lambda: client.create_campaign(zdt1_mdl(), name="x", domain="benchmark"))):
                        with self.assertRaises(kiln_module.RedirectRefused) as caught:
                            call()
                        self.assertIn("another host", str(caught.exception))
                        self.assertNotIn(KEY, str(caught.exception))
                        self.assertEqual(caught.exception.location, to(proxy, path))
                    self.assertEqual(self.other.requests, [], "nothing reached the other port")
                    self.assertEqual([r["path"] for r in proxy.requests], ["/v1/campaigns/cmp_x", "/v1/campaigns"],
                                     "nor the other host name: only the two requests to the proxy itself")

    def test_a_redirected_post_is_an_error_never_a_get(self):
        for code in (301, 302, 303):
            with self.subTest(code=code):
                proxy = self.proxy(code, lambda s, p: f"{s.url}/moved{p}")
                client = Kiln(proxy.url, KEY)
                # urllib alone turns this into GET /moved/v1/campaigns, whose 200 looked like a created campaign
                with self.assertRaises(kiln_module.RedirectRefused) as caught:
                    client.create_campaign(zdt1_mdl(), name="x", domain="benchmark")
                self.assertIn(f"POST {proxy.url}/v1/campaigns was redirected ({code})", str(caught.exception))
                self.assertIn("as a GET without its body", str(caught.exception))
                self.assertEqual([r["method"] for r in proxy.requests], ["POST"], "no GET followed")

    def test_redirects_that_keep_the_request_whole_on_the_same_host_are_followed(self):
        proxy = self.proxy(301, lambda s, p: f"{s.url}/moved{p}")
        self.assertEqual(Kiln(proxy.url, KEY).campaign("cmp_x").id, "cmp_redirected")
        self.assertEqual([(r["method"], r["path"], r["authorization"]) for r in proxy.requests],
                         [("GET", "/v1/campaigns/cmp_x", f"Bearer {KEY}"), ("GET", "/moved/v1/campaigns/cmp_x", f"Bearer {KEY}")])
        for code in (307, 308):
            with self.subTest(code=code):
                proxy = self.proxy(code, lambda s, p: f"{s.url}/moved{p}")
                Kiln(proxy.url, KEY).create_campaign(zdt1_mdl(), name="kept whole", domain="benchmark")
                first, moved = proxy.requests
                self.assertEqual((moved["method"], moved["path"], moved["authorization"]), ("POST", "/moved/v1/campaigns", f"Bearer {KEY}"))
                self.assertEqual(moved["body"], first["body"])
                self.assertEqual(json.loads(moved["body"])["name"], "kept whole")

    def test_a_proxy_redirecting_to_a_real_kiln_elsewhere_posts_nothing_there(self):
        real = kiln()
        for code in (302, 307):
            with self.subTest(code=code):
                proxy = self.proxy(code, lambda s, p: real.http.base[: -len("/v1")] + p)
                name = f"through a {code} redirect"
                with self.assertRaises(kiln_module.RedirectRefused):
                    Kiln(proxy.url, real.http.key).create_campaign(zdt1_mdl(), name=name, domain="benchmark")
                self.assertNotIn(name, [c.data["name"] for c in real.campaigns()])


class Pandas(unittest.TestCase):
    def test_frames_without_pandas_name_both_installs(self):
        import sys
        campaign = kiln().create_campaign(zdt1_mdl(), name="no pandas", domain="benchmark")
        saved = sys.modules.get("pandas")
        sys.modules["pandas"] = None  # import pandas raises ImportError, whether or not it is installed
        try:
            with self.assertRaises(ImportError) as caught:
                campaign.results(frame=True)
        finally:
            if saved is None:
                del sys.modules["pandas"]
            else:
                sys.modules["pandas"] = saved
        self.assertIn("pip install pandas", str(caught.exception))
        self.assertIn("apt install python3-pandas", str(caught.exception))
        self.assertEqual(campaign.results(), [], "the records need nothing")


if __name__ == "__main__":
    unittest.main()
