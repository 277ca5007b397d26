#!/usr/bin/env python3
"""What a frame costs through an srun step: through srun's relay of the step's stdin/stdout, and through a TCP
connection the step opens back to this process with Nagle off (what kevo's Slurm workers do, worker/ConnectBack).

A step echoes: for each request (8-byte header: request bytes, answer bytes; then the request's body) it writes an
answer of the asked size. Round trips are timed for request/answer sizes around Slurm's 1 KB I/O message, the
sizes of kevo's frames (an Evaluate of 2-40 KB out, a Result of a few KB back) and 100 KB (a cubin).
Run inside an allocation, or with SLURM_JOBID unset where srun can make one (tools/slurm-local.sh's cluster):
  python3 bench/experiments/srun_relay.py OUT.json [ROUNDS]
"""
import datetime, json, os, platform, socket, struct, subprocess, sys, time

STEP = r'''
import os, socket, struct, sys
port = int(sys.argv[1]) if len(sys.argv) > 1 else 0
if port:
    s = socket.create_connection((os.environ.get("SLURM_LAUNCH_NODE_IPADDR", "localhost"), port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    rd = lambda n: s.recv(n)
    wr = s.sendall
else:
    rd = lambda n: os.read(0, n)
    wr = lambda b: os.write(1, b)
def exactly(n):
    b = b""
    while len(b) < n:
        c = rd(n - len(b))
        if not c:
            sys.exit(0)
        b += c
    return b
while True:
    down, up = struct.unpack(">II", exactly(8))
    exactly(down)
    wr(b"y" * up)
'''
SIZES = [(16, 16), (16, 1000), (16, 1100), (16, 4000), (16, 100_000), (1000, 16), (1100, 16), (4000, 16),
         (40_000, 16), (100_000, 16)]


def measure(send, recv, rounds):
    rows = []
    for down, up in SIZES:
        t = time.perf_counter()
        for _ in range(rounds):
            send(struct.pack(">II", down, up) + b"x" * down)
            got = 0
            while got < up:
                got += len(recv(1 << 20))
        rows.append({"toStepBytes": down, "backBytes": up, "roundTripMs": (time.perf_counter() - t) / rounds * 1e3})
    return rows


def main():
    out, rounds = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 20
    srun = ["srun", "--nodes=1", "--ntasks=1", "--unbuffered"]
    results = {}
    p = subprocess.Popen(srun + ["python3", "-c", STEP], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    results["srunStdio"] = measure(p.stdin.write, lambda n: os.read(p.stdout.fileno(), n), rounds)
    p.stdin.close(); p.wait()
    listener = socket.create_server(("", 0))
    p = subprocess.Popen(srun + ["python3", "-c", STEP, str(listener.getsockname()[1])])
    conn, _ = listener.accept()
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    results["connectBackNoDelay"] = measure(conn.sendall, conn.recv, rounds)
    conn.close(); p.wait()
    version = subprocess.run(["srun", "--version"], capture_output=True, text=True).stdout.strip()
    record = {"what": "round trip of one request and one answer through an srun step, by sizes",
              "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
              "command": "python3 bench/experiments/srun_relay.py " + " ".join(sys.argv[1:]),
              "commit": os.environ.get("KEVO_COMMIT"), "host": platform.node(), "slurm": version,
              "kernel": platform.release(), "rounds": rounds, **results}
    json.dump(record, open(out, "w"), indent=1)
    print(f"{'to step':>9} {'back':>8} {'srun stdio ms':>14} {'connect-back ms':>16}")
    for a, b in zip(results["srunStdio"], results["connectBackNoDelay"]):
        print(f"{a['toStepBytes']:>9} {a['backBytes']:>8} {a['roundTripMs']:>14.2f} {b['roundTripMs']:>16.2f}")


if __name__ == "__main__":
    main()
