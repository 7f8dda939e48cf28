"""Camera floor: frame sources (picamera2, OpenCV, replay), session folders, recording, `doctor`."""
