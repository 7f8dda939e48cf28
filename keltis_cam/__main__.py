import sys

from keltis_cam.cli import main

sys.exit(main())
