"""ctest's entry to the front end's pytest suite (tests/python/CMakeLists.txt):
    run_pytest.py cpu    every test on CPU tensors (the CUDA cases deselected)
    run_pytest.py cuda   the CUDA cases only; without GPU support or a GPU it prints why and exits 0 (ctest: skipped)
Further arguments go to pytest."""
import os
import sys

import pytest

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
which, extra = sys.argv[1], sys.argv[2:]
if which == "cuda":
    import conftest
    if conftest.CUDA_SKIP is not None:
        print(f"skipped: {conftest.CUDA_SKIP}")
        sys.exit(0)
sys.exit(pytest.main([here, "-m", "cuda" if which == "cuda" else "not cuda"] + extra))
