"""The join QR code on the live page, in a real browser: the image loads and decodes to the page's address."""
from __future__ import annotations


from browser_support import PHONE, sync_api
from webui.qr import lan_ip
from webui_fakes import start_game

playwright_api = sync_api()


def test_the_join_qr_loads_and_decodes_to_the_page_address(browser, live_server, tracker):
    import cv2
    import numpy as np

    start_game(tracker)
    ctx = browser.new_context(viewport=PHONE, locale="en-GB")
    try:
        page = ctx.new_page()
        page.goto(live_server.url + "/")
        page.locator("details.invite summary").click()
        img = page.locator("img.qr-img")
        img.scroll_into_view_if_needed()
        page.wait_for_function("() => { const i = document.querySelector('img.qr-img'); return i.complete; }",
                               timeout=10_000)
        natural = img.evaluate("i => [i.naturalWidth, i.naturalHeight]")
        assert natural[0] > 0 and natural[1] > 0, f"the QR image did not load: natural size {natural}"
        png = img.screenshot()
    finally:
        ctx.close()
    pixels = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    # a white margin helps the detector find the finder patterns
    pixels = cv2.copyMakeBorder(pixels, 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=(255, 255, 255))
    text, points, _ = cv2.QRCodeDetector().detectAndDecode(pixels)
    expected = f"http://{lan_ip() or '127.0.0.1'}:{live_server.port}/"
    assert text == expected, f"decoded {text!r} (found: {points is not None})"


def test_the_qr_svg_is_a_standalone_svg_document(client):
    import xml.etree.ElementTree as ET

    resp = client.get("/qr.svg")
    assert resp.status_code == 200 and resp.mimetype == "image/svg+xml"
    root = ET.fromstring(resp.get_data())
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert root.get("width") and root.get("height")
