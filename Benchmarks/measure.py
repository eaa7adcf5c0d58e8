"""Times clients side by side: interleaved rounds after a warm-up, median wall, CPU and peak RSS, ratio to curl.
Every client's output is checked once (size and sha256) so that a fast wrong answer does not count.

Peak RSS comes from /usr/bin/time (%M): a child forked from Python carries Python's pre-exec footprint in its
own ru_maxrss, while /usr/bin/time's child is forked from a small process. Wall and CPU come from wait4 on
the wrapper, which includes the waited-for command (/usr/bin/time itself adds well under a millisecond)."""
import argparse, hashlib, os, statistics, subprocess, sys, tempfile, time

def run(cmd, stdout_path, out_file=None):
    if out_file and os.path.exists(out_file):
        os.remove(out_file)
    with tempfile.NamedTemporaryFile("r") as stats, open(stdout_path, "wb") as out:
        start = time.perf_counter()
        p = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", stats.name] + cmd, stdout=out, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.perf_counter() - start
        err = p.stderr.read().decode(errors="replace")
        if status != 0:
            sys.exit(f"{cmd[0]} failed ({status}): {err}")
        rss_kib = int(stats.read().split()[-1])
    return wall, usage.ru_utime + usage.ru_stime, rss_kib / 1024

def sha(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()

def table(title, results, rounds):
    base = [statistics.median(x[i] for x in results["curl"]) for i in range(3)]
    print(f"\n{title}, median of {rounds} interleaved rounds (output sha256-checked)")
    print(f"{'client':<14} {'wall s':>8} {'x curl':>7} {'CPU s':>8} {'x curl':>7} {'peak RSS MiB':>13}")
    for name, rows in results.items():
        wall, cpu, rss = (statistics.median(r[i] for r in rows) for i in range(3))
        print(f"{name:<14} {wall:8.3f} {wall / base[0]:7.2f} {cpu:8.3f} {cpu / base[1]:7.2f} {rss:13.1f}")

def main():
    a = argparse.ArgumentParser()
    a.add_argument("--rounds", type=int, default=5)
    a.add_argument("--url", required=True)
    a.add_argument("--file", required=True)
    a.add_argument("--sluice", required=True)
    a.add_argument("--out-dir", required=True, help="where the to-a-file runs write (the disk being measured)")
    args = a.parse_args()
    expected = sha(args.file)
    size = os.path.getsize(args.file) / 1048576
    target = os.path.join(args.out_dir, "out.bin")
    # Each entry: name -> (command, file it writes or None for stdout).
    to_null = {
        "curl": (["curl", "-s", args.url], None),
        "sluice get": ([args.sluice, "get", args.url], None),
    }
    to_file = {
        "curl": (["curl", "-s", "-o", target, args.url], target),
        "sluice get -o": ([args.sluice, "get", "-o", target, args.url], target),
    }
    # Correctness first, once per client: the whole body, byte-identical.
    stdout_copy = os.path.join(args.out_dir, "stdout.bin")
    for name, (cmd, out_file) in list(to_null.items()) + list(to_file.items()):
        run(cmd, stdout_copy, out_file)
        if sha(out_file or stdout_copy) != expected:
            sys.exit(f"{name}: output differs from the served file")
    os.remove(stdout_copy)
    for title, clients in ((f"{size:.0f} MiB over loopback to /dev/null", to_null),
                           (f"{size:.0f} MiB over loopback to a file in {args.out_dir}", to_file)):
        results = {name: [] for name in clients}
        for _ in range(args.rounds):
            for name, (cmd, out_file) in clients.items():
                results[name].append(run(cmd, "/dev/null", out_file))
        table(title, results, args.rounds)
    if os.path.exists(target):
        os.remove(target)

main()
