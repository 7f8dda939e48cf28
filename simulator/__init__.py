"""keltis-cam: simulator."""
