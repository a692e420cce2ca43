"""Runs the libvif Python tests for CTest (python/CMakeLists.txt adds it as python.pytest).

Exit codes: pytest's, except 77 (CTest's SKIP_RETURN_CODE for this test) when numpy or pytest
is missing, and 1 instead of pytest's 5 when no test was collected (that is a broken set-up,
never a pass)."""

import sys

try:
    import numpy  # noqa: F401
    import pytest
except ImportError as e:
    print(f"libvif Python tests skipped: {e} (install python3-numpy and python3-pytest)")
    sys.exit(77)

rc = pytest.main(sys.argv[1:])
if rc == pytest.ExitCode.NO_TESTS_COLLECTED:
    print("libvif Python tests: pytest collected no test")
    sys.exit(1)
sys.exit(int(rc))
