"""The UI's cost: CPU of one full-speed transfer with the terminal UI open against `sluice get` to /dev/null.
The UI runs on a pseudo-terminal of 120x40 that this script reads (as a terminal would) and answers `q` once
the task shows `finished`; both processes are children of this script, so wait4 gives their exact CPU time."""
import argparse, fcntl, os, pty, select, statistics, struct, subprocess, sys, termios, time

def run_get(sluice, url):
    p = subprocess.Popen([sluice, "get", url], stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    assert status == 0, "sluice get failed"
    return usage.ru_utime + usage.ru_stime

def run_ui(sluice, url, workdir):
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(workdir)
        os.environ["TERM"] = "xterm-256color"
        os.execv(sluice, [sluice, url])
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    seen = b""
    deadline = time.time() + 120
    quit_sent = False
    while time.time() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen = (seen + chunk)[-65536:]
        if not quit_sent and b"finished" in seen:
            os.write(fd, b"q")
            quit_sent = True
    _, status, usage = os.wait4(pid, 0)
    os.close(fd)
    assert quit_sent and status == 0, f"the UI did not show the task finished and quit ({quit_sent}, {status}): {seen[-600:]!r}"
    return usage.ru_utime + usage.ru_stime

def main():
    a = argparse.ArgumentParser()
    a.add_argument("--sluice", required=True)
    a.add_argument("--url", required=True)
    a.add_argument("--rounds", type=int, default=5)
    a.add_argument("--workdir", required=True)
    args = a.parse_args()
    run_get(args.sluice, args.url)  # warm-up
    get, ui = [], []
    for _ in range(args.rounds):
        get.append(run_get(args.sluice, args.url))
        ui.append(run_ui(args.sluice, args.url, args.workdir))
    g, u = statistics.median(get), statistics.median(ui)
    print(f"CPU seconds for one transfer, median of {args.rounds} interleaved rounds")
    print(f"{'sluice get > /dev/null':<26} {g:7.3f}")
    print(f"{'sluice URL (UI, 120x40)':<26} {u:7.3f}   {100 * (u / g - 1):+.1f}% against get")

main()
