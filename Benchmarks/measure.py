"""Times clients side by side: interleaved rounds after a warm-up, median wall, CPU and peak RSS, ratio to curl.
Every client's result is checked first (size and sha256, or every file's size and a sample's sha256) so that a
fast wrong answer does not count. Prints the tables and writes them as Markdown to --report.

Peak RSS comes from /usr/bin/time (%M): a child forked from Python carries Python's pre-exec footprint in its
own ru_maxrss, while /usr/bin/time's child is forked from a small process. Wall and CPU come from wait4 on
the wrapper, which includes the waited-for command (/usr/bin/time itself adds well under a millisecond)."""
import argparse, hashlib, os, shutil, statistics, subprocess, sys, tempfile, time

def run(cmd, stdout_path="/dev/null", cwd=None):
    with tempfile.NamedTemporaryFile("r") as stats, open(stdout_path, "wb") as out:
        start = time.perf_counter()
        p = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", stats.name] + cmd, stdout=out,
                             stderr=subprocess.PIPE, cwd=cwd)
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.perf_counter() - start
        err = p.stderr.read().decode(errors="replace")
        if status != 0:
            sys.exit(f"{' '.join(cmd[:3])}... failed ({status}): {err[-2000:]}")
        rss_kib = int(stats.read().split()[-1])
    return wall, usage.ru_utime + usage.ru_stime, rss_kib / 1024

def sha(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()

class Scenario:
    """A named job and, per client, how to run it once; `prepare` empties outputs, `check` verifies them."""
    def __init__(self, title, clients, prepare, check, unit=None):
        self.title, self.clients, self.prepare, self.check, self.unit = title, clients, prepare, check, unit

def median_row(rows):
    return tuple(statistics.median(r[i] for r in rows) for i in range(3))

def measure(scenario, rounds):
    for name, (cmd, stdout_path) in scenario.clients.items():  # correctness first, once per client
        scenario.prepare(name)
        run(cmd, stdout_path)
        problem = scenario.check(name)
        if problem:
            sys.exit(f"{scenario.title}: {name}: {problem}")
    results = {name: [] for name in scenario.clients}
    for _ in range(rounds):
        for name, (cmd, stdout_path) in scenario.clients.items():
            scenario.prepare(name)
            os.sync()  # the previous run's dirty pages are written back now, not during this run
            results[name].append(run(cmd, "/dev/null"))  # the timed runs write their stdout to /dev/null
    return {name: median_row(rows) for name, rows in results.items()}

def table(scenario, medians, rounds):
    base = medians["curl"]
    head = f"{'client':<18} {'wall s':>8} {'x curl':>7} {'CPU s':>8} {'x curl':>7} {'peak RSS MiB':>13}"
    if scenario.unit:
        head += f" {scenario.unit[0]:>10}"
    lines = [f"{scenario.title}, median of {rounds} interleaved rounds (results checked)", head]
    md = [f"### {scenario.title}", "", f"Median of {rounds} interleaved rounds, results checked.", "",
          "| client | wall s | × curl | CPU s | × curl | peak RSS MiB |" + (f" {scenario.unit[0]} |" if scenario.unit else ""),
          "|---|---:|---:|---:|---:|---:|" + ("---:|" if scenario.unit else "")]
    for name, (wall, cpu, rss) in medians.items():
        extra = f" {scenario.unit[1] / wall:10.0f}" if scenario.unit else ""
        lines.append(f"{name:<18} {wall:8.3f} {wall / base[0]:7.2f} {cpu:8.3f} {cpu / base[1]:7.2f} {rss:13.1f}{extra}")
        md.append(f"| {name} | {wall:.3f} | {wall / base[0]:.2f} | {cpu:.3f} | {cpu / base[1]:.2f} | {rss:.1f} |"
                  + (f" {scenario.unit[1] / wall:.0f} |" if scenario.unit else ""))
    return "\n".join(lines), "\n".join(md)

def main():
    a = argparse.ArgumentParser()
    a.add_argument("--rounds", type=int, default=5)
    a.add_argument("--base", required=True, help="http://127.0.0.1:PORT")
    a.add_argument("--www", required=True, help="the directory nginx serves")
    a.add_argument("--sluice", required=True)
    a.add_argument("--peer", required=True, help="the URLSession peer program")
    a.add_argument("--out-dir", required=True, help="where the to-a-file runs write (the disk being measured)")
    a.add_argument("--small", type=int, default=2000)
    a.add_argument("--many-dir", required=True, help="where the small files are written (tmpfs: this measures the transfers, not the file system)")
    a.add_argument("--report", required=True)
    a.add_argument("--only", help="run only the scenarios whose title contains this text")
    args = a.parse_args()
    big = os.path.join(args.www, "big.bin")
    big_url = f"{args.base}/big.bin"
    expected = sha(big)
    size_mib = os.path.getsize(big) / 1048576
    out = args.out_dir
    target = os.path.join(out, "out.bin")
    stdout_copy = os.path.join(out, "stdout.bin")

    def clean_file(_):
        for p in (target, stdout_copy):
            if os.path.exists(p):
                os.remove(p)

    def check_file(path):
        def check(_):
            if not os.path.exists(path):
                return f"{path} missing"
            return None if sha(path) == expected else "output differs from the served file"
        return check

    # Correctness of the stdout clients is checked with their output kept in stdout_copy.
    to_null = Scenario(f"{size_mib:.0f} MiB over loopback to /dev/null", {
        "curl": (["curl", "-s", big_url], stdout_copy),
        "sluice get": ([args.sluice, "get", big_url], stdout_copy),
        "wget": (["wget", "-q", "-O", "-", big_url], stdout_copy),
        "URLSession peer": ([args.peer, "get", big_url], stdout_copy),
    }, clean_file, check_file(stdout_copy))
    to_file = Scenario(f"{size_mib:.0f} MiB over loopback to a file on the work disk", {
        "curl": (["curl", "-s", "-o", target, big_url], "/dev/null"),
        "sluice get -o": ([args.sluice, "get", "-o", target, big_url], "/dev/null"),
        "wget": (["wget", "-q", "-O", target, big_url], "/dev/null"),
        "aria2c": (["aria2c", "-q", "-x1", "-s1", "--file-allocation=none", "--allow-overwrite=true",
                    "--auto-file-renaming=false", "-d", out, "-o", "out.bin", big_url], "/dev/null"),
        "URLSession peer": ([args.peer, "file", big_url, target], "/dev/null"),
    }, clean_file, check_file(target))

    small_dir = os.path.join(args.www, "small")
    names = sorted(os.listdir(small_dir))[: args.small]
    url_list = os.path.join(out, "urls.txt")
    with open(url_list, "w") as f:
        f.writelines(f"{args.base}/small/{n}\n" for n in names)
    curl_config = os.path.join(out, "curl.cfg")
    many_out = args.many_dir
    with open(curl_config, "w") as f:
        for n in names:
            f.write(f'url = "{args.base}/small/{n}"\noutput = "{many_out}/{n}"\n')
    sample = names[:: max(1, len(names) // 8)]
    sample_sha = {n: sha(os.path.join(small_dir, n)) for n in sample}

    def clean_many(_):
        shutil.rmtree(many_out, ignore_errors=True)
        os.makedirs(many_out)

    def check_many(_):
        got = set(os.listdir(many_out))
        if got != set(names):
            return f"{len(got)} files instead of {len(names)}"
        if any(os.path.getsize(os.path.join(many_out, n)) != 16384 for n in names):
            return "a file has the wrong size"
        if any(sha(os.path.join(many_out, n)) != h for n, h in sample_sha.items()):
            return "a sampled file differs"
        return None

    many = Scenario(f"{len(names)} files of 16 KiB at concurrency 50, each to its own file on tmpfs", {
        "curl": (["curl", "-s", "-Z", "--parallel-max", "50", "-K", curl_config], "/dev/null"),
        "sluice get": ([args.sluice, "get", "-j", "50", "-i", url_list, "--output-dir", many_out], "/dev/null"),
        "aria2c": (["aria2c", "-q", "-j", "50", "--file-allocation=none", "--allow-overwrite=true",
                    "--auto-file-renaming=false", "-i", url_list, "-d", many_out], "/dev/null"),
        "URLSession peer": ([args.peer, "many", "50", url_list, many_out], "/dev/null"),
    }, clean_many, check_many, unit=("req/s", len(names)))

    url_only = os.path.join(out, "curl-stdout.cfg")
    with open(url_only, "w") as f:
        f.writelines(f'url = "{args.base}/small/{n}"\n' for n in names)
    ordered = hashlib.sha256()
    for n in names:
        with open(os.path.join(small_dir, n), "rb") as f:
            ordered.update(f.read())
    ordered_sha = ordered.hexdigest()

    def check_stream(name):
        size = os.path.getsize(stdout_copy)
        if size != 16384 * len(names):
            return f"{size} bytes on stdout instead of {16384 * len(names)}"
        if name == "sluice get" and sha(stdout_copy) != ordered_sha:
            return "the bodies are not the files in the order given"
        return None

    many_null = Scenario(f"{len(names)} files of 16 KiB at concurrency 50, bodies to stdout (/dev/null)", {
        "curl": (["curl", "-s", "-Z", "--parallel-max", "50", "-K", url_only], stdout_copy),
        "sluice get": ([args.sluice, "get", "-j", "50", "-i", url_list], stdout_copy),
        "URLSession peer": ([args.peer, "many", "50", url_list, "-"], stdout_copy),
    }, clean_file, check_stream, unit=("req/s", len(names)))

    markdown = []
    for scenario in (to_null, to_file, many_null, many):
        if args.only and args.only not in scenario.title:
            continue
        medians = measure(scenario, args.rounds)
        text, md = table(scenario, medians, args.rounds)
        print("\n" + text, flush=True)
        markdown.append(md)
    clean_file(None)
    shutil.rmtree(many_out, ignore_errors=True)
    with open(args.report, "w") as f:
        f.write("\n\n".join(markdown) + "\n")

if __name__ == "__main__":  # Benchmarks/measure_https.py imports the helpers above
    main()
