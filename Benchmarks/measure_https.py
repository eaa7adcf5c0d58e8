"""HTTPS against curl: a large file over TLS from a loopback nginx, and 2,000 small files over one HTTP/2 connection.
The same rules as measure.py (whose helpers it uses): results checked first, interleaved rounds, medians. Before
timing, each client's connection use is checked too: the small files must travel over one connection."""
import argparse, json, os, re, subprocess, sys
from measure import Scenario, measure, sha, table


def main():
    a = argparse.ArgumentParser()
    a.add_argument("--rounds", type=int, default=5)
    a.add_argument("--base", required=True, help="https://127.0.0.1:PORT")
    a.add_argument("--www", required=True)
    a.add_argument("--ca", required=True)
    a.add_argument("--sluice", required=True)
    a.add_argument("--out-dir", required=True)
    a.add_argument("--small", type=int, default=2000)
    a.add_argument("--jobs", type=int, default=50)
    a.add_argument("--report", required=True)
    a.add_argument("--only", help="run only the scenarios whose title contains this text")
    args = a.parse_args()
    big = os.path.join(args.www, "big.bin")
    expected = sha(big)
    size_mib = os.path.getsize(big) / 1048576
    stdout_copy = os.path.join(args.out_dir, "https-stdout.bin")

    def clean(_):
        if os.path.exists(stdout_copy):
            os.remove(stdout_copy)

    def check_big(_):
        return None if sha(stdout_copy) == expected else "output differs from the served file"

    scenarios = []
    for version, curl_flag, sluice_flag in (("HTTP/2", [], []), ("HTTP/1.1", ["--http1.1"], ["--http1.1"])):
        scenarios.append(Scenario(f"{size_mib:.0f} MiB over TLS ({version}) from loopback nginx to /dev/null", {
            "curl": (["curl", "-s", "--cacert", args.ca] + curl_flag + [f"{args.base}/big.bin"], stdout_copy),
            "sluice get": ([args.sluice, "get", "--cacert", args.ca] + sluice_flag + [f"{args.base}/big.bin"], stdout_copy),
        }, clean, check_big))

    names = sorted(os.listdir(os.path.join(args.www, "small")))[: args.small]
    url_list = os.path.join(args.out_dir, "https-urls.txt")
    with open(url_list, "w") as f:
        f.writelines(f"{args.base}/small/{n}\n" for n in names)
    curl_config = os.path.join(args.out_dir, "https-curl.cfg")
    with open(curl_config, "w") as f:
        f.writelines(f'url = "{args.base}/small/{n}"\n' for n in names)
    ordered = sha_of_files([os.path.join(args.www, "small", n) for n in names])

    def check_many(name):
        size = os.path.getsize(stdout_copy)
        if size != 16384 * len(names):
            return f"{size} bytes on stdout instead of {16384 * len(names)}"
        if name == "sluice get" and sha(stdout_copy) != ordered:
            return "the bodies are not the files in the order given"
        return None

    curl_many = ["curl", "-s", "-Z", "--parallel-max", str(args.jobs), "--http2", "--cacert", args.ca, "-K", curl_config]
    sluice_many = [args.sluice, "get", "-j", str(args.jobs), "--http2", "--cacert", args.ca, "-i", url_list]
    one_connection(curl_many, sluice_many)
    scenarios.append(Scenario(
        f"{len(names)} files of 16 KiB over one HTTP/2 connection (TLS), {args.jobs} at once, bodies to stdout (/dev/null)", {
            "curl": (curl_many, stdout_copy),
            "sluice get": (sluice_many, stdout_copy),
        }, clean, check_many, unit=("req/s", len(names))))

    markdown = []
    for scenario in scenarios:
        if args.only and args.only not in scenario.title:
            continue
        medians = measure(scenario, args.rounds)
        text, md = table(scenario, medians, args.rounds)
        print("\n" + text, flush=True)
        markdown.append(md)
    clean(None)
    with open(args.report, "w") as f:
        f.write("\n\n".join(markdown) + "\n")


def sha_of_files(paths):
    import hashlib
    h = hashlib.sha256()
    for p in paths:
        with open(p, "rb") as f:
            h.update(f.read())
    return h.hexdigest()


def one_connection(curl_many, sluice_many):
    """Both clients must fetch every small file over one connection, or the comparison is not the one named."""
    # curl 7.88 draws its parallel progress meter on stderr even with -s, on the lines -w writes to: hence a marker.
    err = subprocess.run(curl_many + ["-w", "%{stderr}@@%{num_connects} %{http_version}\\n"], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True, check=True).stderr
    rows = re.findall(r"@@(\d+) (\S+)", err)
    curl_connects = sum(int(r[0]) for r in rows)
    if curl_connects != 1 or any(r[1] != "2" for r in rows):
        sys.exit(f"curl opened {curl_connects} connections (versions {sorted(set(r[1] for r in rows))})")
    trace = subprocess.run(sluice_many + ["--trace"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                           check=True).stderr.splitlines()
    transactions = [t for line in trace for t in json.loads(line).get("transactions", [])]
    fresh = sum(1 for t in transactions if not t["reusedConnection"])
    if fresh != 1 or any(t["protocol"] != "h2" for t in transactions):
        sys.exit(f"sluice opened {fresh} connections ({sorted(set(t['protocol'] for t in transactions))})")
    print(f"one connection each: curl {len(rows)} transfers, sluice {len(transactions)} transactions, all h2", flush=True)


if __name__ == "__main__":
    main()
