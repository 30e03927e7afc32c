"""The vector instructions of torch's CPU kernels pinned to AVX2, so that a model fitted on one
x86-64 machine gives the same numbers on another.

torch (its own ATen kernels), Intel MKL (its BLAS) and oneDNN (its convolutions) each pick at run
time the widest vector instructions the CPU has. Kernels of another width add in another order, so
a torch-trained extractor's fit takes another path. Web2Text fitted on CleanEval (seed 0, one
thread, the same code and packages, the same AVX2 machine) scored token F1 0.913677 with ATen's
AVX2 kernels, 0.913634 with its plain ones (``ATEN_CPU_CAPABILITY=avx2`` against ``default``) and
0.913712 with oneDNN held to SSE4.1 (``ONEDNN_MAX_CPU_ISA=SSE41``; MKL's ``MKL_CBWR=COMPATIBLE``
left it at 0.913677). The results store's Web2Text rows, fitted on 2026-11-27 on another machine,
do not reproduce on an AVX2 one (WCXB 0.8130 stored, 0.8297 refitted). A machine with AVX-512
would pick kernels of its own; pinned to AVX2, which most x86-64 CPUs made since 2015 have, it
takes the path an AVX2 machine takes. On an AVX2 machine the pin changes nothing (the same fit
scored 0.913677 with and without it), so the store's rows made on one stay valid.

:func:`pin_cpu_kernels` sets the three libraries' variables where the CPU has AVX2 and FMA (torch
would run AVX2 kernels on a CPU without them if told to) and the user has not set them: a choice
in the environment wins. The libraries read them when they first compute, so the entry points
(``python run.py``, ``boilerbench``; tests/conftest.py) call it before any torch work; a
launcher's worker processes inherit it. Only torch's libraries are pinned: NumPy's own run-time
dispatch (its AVX-512 loops) is left as it is, unmeasured here, for want of an AVX-512 machine.
"""

from __future__ import annotations

import os
import platform
from pathlib import Path

#: Each library's variable and its AVX2 value.
PINS = {"ATEN_CPU_CAPABILITY": "avx2", "MKL_CBWR": "AVX2", "ONEDNN_MAX_CPU_ISA": "AVX2"}
#: The CPU flags (``/proc/cpuinfo``) that torch's AVX2 kernels need.
NEEDED_FLAGS = frozenset({"avx2", "fma"})


def cpu_flags(cpuinfo: str) -> frozenset[str]:
    """The flags of the first processor in the text of ``/proc/cpuinfo`` (none if it lists none)."""
    for line in cpuinfo.splitlines():
        name, _, value = line.partition(":")
        if name.strip() == "flags":
            return frozenset(value.split())
    return frozenset()


def pin_cpu_kernels(cpuinfo: Path = Path("/proc/cpuinfo")) -> dict[str, str]:
    """Set each of :data:`PINS` that the environment does not set, on an x86-64 CPU whose flags
    (read from ``cpuinfo``) include AVX2 and FMA; return the variables that are now in force."""
    if platform.machine().lower() in ("x86_64", "amd64") and cpuinfo.is_file():
        if NEEDED_FLAGS <= cpu_flags(cpuinfo.read_text(encoding="utf-8", errors="replace")):
            for name, value in PINS.items():
                os.environ.setdefault(name, value)
    return {name: os.environ[name] for name in PINS if name in os.environ}
