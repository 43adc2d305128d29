"""Record the HAR corpus in tests/har_corpus/ with real exporters, against a fake API on loopback.

    python scripts/make_har_corpus.py            # needs playwright and mitmproxy importable
    PW_CHROMIUM=/usr/bin/chromium (default)      # Debian's chromium: no browser download

Exporters: Chromium through Playwright (content modes embed, attach, omit, and the minimal mode) and
mitmproxy's HAR dump (``hardump``) with httpx as the client (a form post whose value looks encoded).
(Requests made through a context's APIRequest are not recorded in its HAR, so there is no such file.)
The API is a Tier B task with every switch off, so the page needs no secret; it also serves a page and
a PNG, so the files hold HTML and binary bodies.
Everything listens on 127.0.0.1 and nothing leaves the machine.
"""

from __future__ import annotations

import base64
import os
import shutil
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from har2client.api import Instance, create_app, listen_socket, model_from_document
from har2client.api._http import HTTPServer
from har2client.tierb import tierb_configs

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "har_corpus")
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAA"
                       "BJRU5ErkJggg==")
PAGE = """<!doctype html><title>Shelfspace</title><img src="/logo.png"><script>
async function run() {
  const list = await (await fetch('/products')).json();
  const first = (list.items || list)[0];
  await fetch('/products/' + first.id);
  await fetch('/products/prd_000000000000');
  const made = await (await fetch('/products', {method: 'POST', headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({sku: 'SKU-1', title: 'Lamp \\u00e9', price_cents: 1299, category: 'home',
                          in_stock: true})})).json();
  await fetch('/products/' + made.id, {method: 'PATCH', headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({price_cents: 999})});
  await fetch('/products/' + made.id, {method: 'DELETE'});
  document.title = 'done';
}
run();
</script>"""


def site(api):
    """The fake API, plus a page that drives it and a PNG."""
    def app(environ, start_response):
        path = environ["PATH_INFO"]
        if path == "/":
            start_response("200 OK", [("Content-Type", "text/html; charset=utf-8")])
            return [PAGE.encode()]
        if path == "/logo.png":
            start_response("200 OK", [("Content-Type", "image/png")])
            return [PNG]
        return api(environ, start_response)
    return app


def serve():
    model = model_from_document(tierb_configs(1)[31].document())  # products, every switch off
    server = HTTPServer(listen_socket("127.0.0.1"), site(create_app(model, Instance(model, 7))))
    return server, f"http://127.0.0.1:{server.port}"


def playwright_files(base):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=os.environ.get("PW_CHROMIUM", "/usr/bin/chromium"),
                                    args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        for name, options in (("playwright_embed", {"record_har_content": "embed"}),
                              ("playwright_attach", {"record_har_content": "attach"}),
                              ("playwright_omit", {"record_har_content": "omit"}),
                              ("playwright_minimal", {"record_har_mode": "minimal"})):
            folder = os.path.join(OUT, name) if name == "playwright_attach" else OUT
            os.makedirs(folder, exist_ok=True)
            context = browser.new_context(record_har_path=os.path.join(folder, f"{name}.har"), **options)
            page = context.new_page()
            page.goto(base + "/")
            page.wait_for_function("document.title === 'done'", timeout=10_000)
            context.close()
        browser.close()


def mitmproxy_file(base):
    port = _free_port()
    path = os.path.join(OUT, "mitmproxy.har")
    proc = subprocess.Popen([shutil.which("mitmdump") or "mitmdump", "--listen-host", "127.0.0.1", "--listen-port",
                             str(port), "--set", f"hardump={path}", "-q"])
    try:
        _wait_for(port)
        import httpx

        with httpx.Client(proxy=f"http://127.0.0.1:{port}", timeout=10) as c:
            first = c.get(base + "/products").json()
            c.get(base + "/products/" + first["items"][0]["id"] if isinstance(first, dict) else base + "/products")
            c.post(base + "/products", data={"sku": "p+ss%41", "title": "Lamp"})
            c.get(base + "/logo.png")
    finally:
        proc.terminate()  # mitmdump writes the HAR when it stops
        proc.wait(timeout=30)


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for(port, seconds=20.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"mitmdump did not listen on {port}")


def main() -> int:
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    server, base = serve()
    try:
        playwright_files(base)
        mitmproxy_file(base)
    finally:
        server.close()
    for root, _, files in os.walk(OUT):
        for f in sorted(files):
            print(os.path.relpath(os.path.join(root, f), OUT), os.path.getsize(os.path.join(root, f)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
