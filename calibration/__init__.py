"""keltis-cam: calibration."""
