"""torch's CPU kernels pinned to AVX2 (boilerbench/cpu_kernels.py): on which CPUs, what a user's
own setting does, and that an entry point pins them before torch picks its kernels."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from boilerbench import cpu_kernels
from boilerbench.cpu_kernels import PINS, cpu_flags, pin_cpu_kernels

PROJECT = Path(__file__).resolve().parents[1]
CPUINFO = "processor\t: 0\nvendor_id\t: AuthenticAMD\nflags\t\t: fpu sse2 {flags} lm\n\nprocessor\t: 1\nflags\t: fpu\n"


def cpuinfo(tmp_path: Path, flags: str) -> Path:
    path = tmp_path / "cpuinfo"
    path.write_text(CPUINFO.format(flags=flags), encoding="utf-8")
    return path


@pytest.fixture
def unpinned(monkeypatch):
    """An x86-64 machine whose environment sets none of the pins."""
    for name in PINS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(cpu_kernels.platform, "machine", lambda: "x86_64")


def test_the_flags_are_the_first_processors():
    assert cpu_flags(CPUINFO.format(flags="avx avx2 fma")) == {"fpu", "sse2", "avx", "avx2", "fma", "lm"}
    assert cpu_flags("processor : 0\n") == frozenset()


def test_a_cpu_with_avx2_and_fma_gets_every_pin(unpinned, tmp_path):
    assert pin_cpu_kernels(cpuinfo(tmp_path, "avx avx2 fma avx512f")) == {
        "ATEN_CPU_CAPABILITY": "avx2",
        "MKL_CBWR": "AVX2",
        "ONEDNN_MAX_CPU_ISA": "AVX2",
    }
    assert os.environ["ATEN_CPU_CAPABILITY"] == "avx2"


@pytest.mark.parametrize("flags", ["avx avx2", "avx fma", "avx512f"])
def test_a_cpu_without_avx2_or_fma_keeps_its_own_kernels(unpinned, tmp_path, flags):
    # torch runs AVX2 kernels on a CPU told it has them, and such a CPU would fault on them
    assert pin_cpu_kernels(cpuinfo(tmp_path, flags)) == {}
    assert "ATEN_CPU_CAPABILITY" not in os.environ


def test_another_architecture_or_no_cpuinfo_is_left_alone(unpinned, monkeypatch, tmp_path):
    assert pin_cpu_kernels(tmp_path / "missing") == {}
    monkeypatch.setattr(cpu_kernels.platform, "machine", lambda: "aarch64")
    assert pin_cpu_kernels(cpuinfo(tmp_path, "avx2 fma")) == {}


def test_a_setting_in_the_environment_wins(unpinned, monkeypatch, tmp_path):
    monkeypatch.setenv("ATEN_CPU_CAPABILITY", "default")
    pinned = pin_cpu_kernels(cpuinfo(tmp_path, "avx2 fma"))
    assert pinned["ATEN_CPU_CAPABILITY"] == "default"
    assert pinned["MKL_CBWR"] == "AVX2"


def this_cpu_is_pinned() -> bool:
    path = Path("/proc/cpuinfo")
    return cpu_kernels.NEEDED_FLAGS <= cpu_flags(path.read_text() if path.is_file() else "")


@pytest.mark.skipif(not this_cpu_is_pinned(), reason="the pin applies to x86-64 CPUs with AVX2 and FMA")
def test_the_command_pins_torch_before_it_picks_its_kernels():
    # a fresh process, as `python run.py` or `boilerbench` starts: the package of the commands
    # sets the pins on import, and torch, imported after, runs AVX2 kernels (on an AVX-512 machine
    # it would pick AVX512 had the pin come later)
    env = {k: v for k, v in os.environ.items() if k not in PINS}
    code = (
        "import os, boilerbench.commands, torch; "
        "print(os.environ.get('MKL_CBWR'), torch.backends.cpu.get_cpu_capability())"
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=PROJECT, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["AVX2", "AVX2"]
