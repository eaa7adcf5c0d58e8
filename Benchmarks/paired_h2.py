"""curl and sluice binaries on 2,000 small files over one HTTP/2 connection, paired round by round (see
https-paired). Prints each client's median wall time, and each sluice's median ratio to curl's run of the same round
with a bootstrap 95 % interval of that median and the number of rounds it was faster; with several sluice binaries,
the same for each of them against the first."""
import argparse, os, random, statistics, subprocess, time


def main():
    a = argparse.ArgumentParser()
    a.add_argument("--rounds", type=int, required=True)
    a.add_argument("--base", required=True)
    a.add_argument("--www", required=True)
    a.add_argument("--ca", required=True)
    a.add_argument("--out-dir", required=True)
    a.add_argument("--sink", choices=["devnull", "pipe"], default="devnull",
                   help="where the timed runs' bodies go: /dev/null (as Benchmarks/https), or a pipe read by this script")
    a.add_argument("binaries", nargs="+")
    args = a.parse_args()
    names = sorted(os.listdir(os.path.join(args.www, "small")))[:2000]
    urls = os.path.join(args.out_dir, "paired-urls.txt")
    config = os.path.join(args.out_dir, "paired-curl.cfg")
    with open(urls, "w") as f:
        f.writelines(f"{args.base}/small/{n}\n" for n in names)
    with open(config, "w") as f:
        f.writelines(f'url = "{args.base}/small/{n}"\n' for n in names)
    clients = {"curl": ["curl", "-s", "-Z", "--parallel-max", "50", "--http2", "--cacert", args.ca, "-K", config]}
    for path in args.binaries:
        label = path if path not in clients else path + "'"
        clients[label] = [path, "get", "-j", "50", "--http2", "--cacert", args.ca, "-i", urls]
    expected = 16384 * len(names)
    for k in clients:  # results checked first, once: every body, whole
        done = subprocess.run(clients[k], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True)
        if len(done.stdout) != expected:
            raise SystemExit(f"{k}: {len(done.stdout)} bytes on stdout instead of {expected}")
    sink = subprocess.DEVNULL if args.sink == "devnull" else subprocess.PIPE
    times = {k: [] for k in clients}
    for _ in range(args.rounds):
        order = list(clients)
        random.shuffle(order)
        for k in order:
            start = time.perf_counter()
            done = subprocess.run(clients[k], stdout=sink, stderr=subprocess.DEVNULL, check=True)
            times[k].append(time.perf_counter() - start)
            if args.sink == "pipe" and len(done.stdout) != expected:
                raise SystemExit(f"{k}: {len(done.stdout)} bytes on stdout instead of {expected}")
    where = "/dev/null" if args.sink == "devnull" else "a pipe"
    print(f"{len(names)} files of 16 KiB over one HTTP/2 connection, bodies to {where}, {args.rounds} paired rounds"
          f" ({os.cpu_count()} cores)")
    for k in clients:
        line = f"{k:40s} median {statistics.median(times[k]) * 1000:6.1f} ms"
        if k != "curl":
            ratios = [s / c for s, c in zip(times[k], times["curl"])]
            medians = sorted(statistics.median(random.choices(ratios, k=len(ratios))) for _ in range(2000))
            line += (f"  x curl {statistics.median(ratios):.3f} (95 % interval {medians[50]:.3f}-{medians[1949]:.3f}),"
                     f" faster in {sum(r < 1 for r in ratios)} of {len(ratios)} rounds")
        print(line, flush=True)
    # Two or more sluice binaries (a before and an after): each against the first, round by round.
    first = next((k for k in clients if k != "curl"), None)
    for k in clients:
        if k in ("curl", first):
            continue
        ratios = [s / f for s, f in zip(times[k], times[first])]
        medians = sorted(statistics.median(random.choices(ratios, k=len(ratios))) for _ in range(2000))
        print(f"{k:40s} x {first} {statistics.median(ratios):.3f} (95 % interval {medians[50]:.3f}-{medians[1949]:.3f}),"
              f" faster in {sum(r < 1 for r in ratios)} of {len(ratios)} rounds", flush=True)


main()
