"""Wall time, CPU time and peak memory of a command and every process it starts.

    python -m studies.peak_rss [--interval S] [--log FILE] -- make reports

``/usr/bin/time`` reports the largest single process; a run with parallel jobs and worker
processes needs the sum over the process tree at the same moment, which this samples with psutil
every ``interval`` seconds (a peak shorter than that can be missed). CPU time is user + system of
every descendant, the figure that does not depend on what else the machine was doing; on an idle
machine the wall time is about the CPU time divided by the busy cores.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import time

import psutil


def tree_rss(root: psutil.Process) -> tuple[int, int]:
    """(sum, largest) resident set size in bytes over ``root`` and its descendants now."""
    sizes = []
    for process in [root, *root.children(recursive=True)]:
        try:
            sizes.append(process.memory_info().rss)
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return sum(sizes), max(sizes, default=0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--interval", type=float, default=2.0, help="seconds between samples")
    parser.add_argument("--log", help="append one line per sample (time, total MB) to this file")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command, after --")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command given (put it after --)")
    start = time.perf_counter()
    child = subprocess.Popen(command)
    root = psutil.Process(child.pid)
    peak_total, peak_single, peak_at = 0, 0, 0.0
    log = open(args.log, "a") if args.log else None  # noqa: SIM115 (kept open for the whole run)
    try:
        while child.poll() is None:
            total, single = tree_rss(root)
            if total > peak_total:
                peak_total, peak_at = total, time.perf_counter() - start
            peak_single = max(peak_single, single)
            if log:
                log.write(f"{time.perf_counter() - start:.0f} {total / 2**20:.0f}\n")
                log.flush()
            time.sleep(args.interval)
    finally:
        if log:
            log.close()
    wall = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(
        f"exit status {child.returncode}\n"
        f"wall time      {wall / 60:8.1f} min\n"
        f"CPU time       {(usage.ru_utime + usage.ru_stime) / 60:8.1f} min (user + system, all processes)\n"
        f"peak RSS, sum  {peak_total / 2**30:8.2f} GB over the process tree (at {peak_at / 60:.1f} min)\n"
        f"peak RSS, one  {peak_single / 2**30:8.2f} GB, the largest single process",
        file=sys.stderr,
    )
    return child.returncode


if __name__ == "__main__":
    sys.exit(main())
