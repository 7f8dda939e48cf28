"""The command line keeps numpy's BLAS to one thread (keltis_cam/__init__.py): a reader's small
matrix products are slower when handed to a thread per core."""
import os
import subprocess
import sys


def test_the_command_line_runs_numpy_on_one_thread_unless_the_user_says_otherwise():
    probe = ("import keltis_cam, os; "
             "print(os.environ['OPENBLAS_NUM_THREADS'], os.environ['OMP_NUM_THREADS'])")
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["1", "1"]
    env["OPENBLAS_NUM_THREADS"] = "4"
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["4", "1"]
