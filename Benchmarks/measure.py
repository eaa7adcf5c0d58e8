"""Times clients side by side: interleaved rounds after a warm-up, median wall, CPU and peak RSS, ratio to curl.
Every run's output is checked (size and sha256) so that a fast wrong answer does not count."""
import argparse, hashlib, os, statistics, subprocess, sys, time

def run(cmd, out_path):
    with open(out_path, "wb") as out:
        start = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.perf_counter() - start
    err = p.stderr.read().decode(errors="replace")
    if status != 0:
        sys.exit(f"{cmd[0]} failed ({status}): {err}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024

def sha(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()

def main():
    a = argparse.ArgumentParser()
    a.add_argument("--rounds", type=int, default=5)
    a.add_argument("--url", required=True)
    a.add_argument("--file", required=True)
    a.add_argument("--sluice", required=True)
    args = a.parse_args()
    expected = sha(args.file)
    out = os.path.join(os.path.dirname(args.file), "..", "out.bin")
    clients = {
        "curl": ["curl", "-s", args.url],
        "sluice get": [args.sluice, "get", args.url],
    }
    # Correctness first, once per client: the whole body, byte-identical.
    for name, cmd in clients.items():
        run(cmd, out)
        if sha(out) != expected:
            sys.exit(f"{name}: output differs from the served file")
    os.remove(out)
    results = {name: [] for name in clients}
    for _ in range(args.rounds):
        for name, cmd in clients.items():
            results[name].append(run(cmd, "/dev/null"))
    base = [statistics.median(x[i] for x in results["curl"]) for i in range(3)]
    size = os.path.getsize(args.file) / 1048576
    print(f"{size:.0f} MiB over loopback to /dev/null, median of {args.rounds} interleaved rounds (output sha256-checked)")
    print(f"{'client':<12} {'wall s':>8} {'x curl':>7} {'CPU s':>8} {'x curl':>7} {'peak RSS MiB':>13}")
    for name, rows in results.items():
        wall, cpu, rss = (statistics.median(r[i] for r in rows) for i in range(3))
        print(f"{name:<12} {wall:8.3f} {wall / base[0]:7.2f} {cpu:8.3f} {cpu / base[1]:7.2f} {rss:13.1f}")

main()
