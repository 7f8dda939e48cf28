"""keltis-cam: webui."""
