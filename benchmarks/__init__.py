"""The benchmarks: speed and scale measurements, run together by ``python -m benchmarks`` (``make
bench``) into one JSON file of figures, or one at a time as ``python -m benchmarks.NAME``."""
