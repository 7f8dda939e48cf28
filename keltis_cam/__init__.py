"""keltis-cam: the command line that joins all parts."""
import os

# Every reader works on one frame at a time on one core (a Pi keeps its other cores for the camera,
# the server and the phones); numpy's BLAS would otherwise start a thread per core for the small
# matrix products of the pawn and tile networks and spend more time handing work over than working
# (measured: the pawn network 37 ms wall / 19 ms CPU with the threads, 9 / 5 ms without). Set before
# numpy is first imported; a value the user set wins.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
