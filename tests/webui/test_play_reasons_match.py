"""The page leaves normal play (a hand over the table, motion, the table settling) out of "pictures
that could not be read": its list must be the pipeline's."""
import json
import re
from pathlib import Path

from tracking.pipeline import PLAY_REASONS


def test_the_page_and_the_pipeline_name_the_same_play_reasons():
    js = (Path(__file__).resolve().parents[2] / "webui" / "static" / "live.js").read_text()
    listed = re.search(r"var PLAY_REASONS = (\[[^\]]*\]);", js)
    assert listed, "live.js has no PLAY_REASONS list"
    assert set(json.loads(listed.group(1))) == set(PLAY_REASONS)
