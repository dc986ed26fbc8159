#!/usr/bin/env python3
"""CPU time per input byte of the xctrace import, this build against another, run alternately.

  scripts/bench-xctrace-cpu.py --baseline OLD/tracesvc-bench [--binary NEW/tracesvc-bench]
                               [--file EXPORT.xml] [--runs 5]

Each round runs `tracesvc-bench xctrace --file EXPORT --peer-mb 0` with the old binary, then
the new one, so both see the same load minute by minute. The import's process CPU time (both
threads) is what the bench prints as "import CPU time"; this prints each run, the medians in
CPU-ms per MB, their ratio, and the load average before and after. Without --file it writes
the 512 MB export of ../shared/bench/gen_xctrace.py --updates 400000 first (kept in /tmp).
"""
import argparse, os, re, statistics, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def export_file(path):
    if path:
        return path
    folder = "/tmp/tracesvc-bench-xctrace-cpu"
    target = os.path.join(folder, "all.xml")
    if not os.path.exists(target):
        generator = os.path.join(ROOT, "..", "shared", "bench", "gen_xctrace.py")
        subprocess.run([sys.executable, generator, folder, "--updates", "400000"], check=True)
        for table in ("swiftui-updates.xml", "swiftui-causes.xml"):
            os.remove(os.path.join(folder, table))
    return target


def run(binary, path):
    out = subprocess.run([binary, "xctrace", "--file", path, "--peer-mb", "0"], check=True,
                         capture_output=True, text=True).stdout
    size = float(re.search(r"export: .*, ([0-9.]+) MB", out).group(1))
    cpu = float(re.search(r"import CPU time:\s+([0-9.]+) s", out).group(1))
    wall = float(re.search(r"import:\s+([0-9.]+) s", out).group(1))
    return size, cpu, wall


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", required=True, help="tracesvc-bench built from the commit before the change")
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "tracesvc-bench"))
    parser.add_argument("--file", help="export to import (default: the 512 MB gen_xctrace.py export)")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    path = export_file(args.file)
    load_before = os.getloadavg()
    old, new = [], []
    for round in range(args.runs):
        for label, binary, results in (("old", args.baseline, old), ("new", args.binary, new)):
            size, cpu, wall = run(binary, path)
            results.append(1000 * cpu / size)
            print(f"round {round + 1} {label}: CPU {cpu:.2f} s = {1000 * cpu / size:.2f} CPU-ms/MB, wall {wall:.2f} s", flush=True)
    load_after = os.getloadavg()
    old_median, new_median = statistics.median(old), statistics.median(new)
    print(f"\n{os.path.basename(path)}, {args.runs} alternating runs each, median CPU time per MB of input:")
    print(f"  old {old_median:.2f} CPU-ms/MB, new {new_median:.2f} CPU-ms/MB: new/old = {new_median / old_median:.3f}")
    print(f"  load average {load_before[0]:.1f} before, {load_after[0]:.1f} after")


if __name__ == "__main__":
    main()
