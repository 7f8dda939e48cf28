"""The subcommands of `keltis-cam`, one module per group; each has `register(subparsers)`.

Modules import heavy libraries (OpenCV, Flask) only inside their handlers, so `keltis-cam score`
starts fast.
"""
