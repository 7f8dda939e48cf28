"""keltis-cam: vision."""
