#!/usr/bin/python3
"""The clients (and the misbehaving Prometheus) of abuse_test.sh.

  abuse_client.py flood URL --user U --probe PATH... [--slowloris N]
                  [--header-floods N] [--seconds S]
      N slow-loris connections (a header byte every second, never done) and
      N clients sending oversized and overcounted headers again and again,
      while one client GETs each probe path in turn as user U; prints one
      JSON object: the probes' count, failures and latencies (ms), and what
      the attackers got.
  abuse_client.py connections HOST PORT --count N [--hold S]
      N connections at once, each sending one GET /healthz; prints JSON:
      how many got 200, 503 (refused), or nothing; holds them S seconds,
      then closes them all.
  abuse_client.py malformed HOST PORT --user U --job ID --other-job ID
      Request smuggling, pipelining, path tricks and identity-header tricks,
      one raw request each; prints "ok|not ok<TAB>what" lines.
  abuse_client.py upstream PORT MODE
      A Prometheus that misbehaves on every request: MODE slow (answers
      after 30 s), never (reads the request, never answers) or huge (a 100 MB
      answer). Runs until killed.
"""
import argparse
import asyncio
import json
import re
import resource
import socket
import sys
import threading
import time


def raise_fd_limit():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def parse_url(url):
    rest = url.split("://", 1)[1]
    host, port = rest.split("/", 1)[0].split(":")
    return host, int(port)


async def read_response(reader):
    """Status and body of one HTTP/1.1 response with a Content-Length."""
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    length = 0
    for line in lines[1:]:
        if line.lower().startswith("content-length:"):
            length = int(line.split(":", 1)[1])
    body = await reader.readexactly(length) if length else b""
    return status, body


def percentile(values, p):
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


async def slowloris(host, port, stop, stats):
    try:
        reader, writer = await asyncio.open_connection(host, port)
    except OSError:
        stats["slowloris_refused"] += 1
        return
    stats["slowloris_open"] += 1
    try:
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        i = 0
        while not stop.is_set():
            writer.write(b"X-Slow-%d: a\r\n" % i)
            await writer.drain()
            i += 1
            try:
                # The server closing the connection ends the attack early.
                data = await asyncio.wait_for(reader.read(1024), 1.0)
                if not data:
                    stats["slowloris_closed_by_server"] += 1
                    return
            except asyncio.TimeoutError:
                pass
    except (OSError, ConnectionError):
        stats["slowloris_closed_by_server"] += 1
    finally:
        writer.close()


async def header_flood(host, port, stop, stats):
    big = b"X-Big: " + b"a" * 20000 + b"\r\n"
    many = b"".join(b"X-H%d: v\r\n" % i for i in range(200))
    while not stop.is_set():
        for payload in (big, many):
            try:
                reader, writer = await asyncio.open_connection(host, port)
                writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n" + payload + b"\r\n")
                await writer.drain()
                status, _ = await asyncio.wait_for(read_response(reader), 5)
                stats["flood_%d" % status] = stats.get("flood_%d" % status, 0) + 1
                writer.close()
            except (OSError, ConnectionError, asyncio.IncompleteReadError, asyncio.TimeoutError, ValueError):
                stats["flood_errors"] += 1


async def probe(host, port, paths, user, stop, latencies, failures):
    i = 0
    while not stop.is_set():
        path = paths[i % len(paths)]
        i += 1
        started = time.monotonic()
        try:
            reader, writer = await asyncio.open_connection(host, port)
            writer.write(("GET %s HTTP/1.1\r\nHost: x\r\nX-Remote-User: %s\r\nConnection: close\r\n\r\n"
                          % (path, user)).encode())
            await writer.drain()
            status, _ = await asyncio.wait_for(read_response(reader), 5)
            writer.close()
            if status != 200:
                failures.append("%s: %d" % (path, status))
            else:
                latencies.append((time.monotonic() - started) * 1000)
        except (OSError, ConnectionError, asyncio.IncompleteReadError, asyncio.TimeoutError, ValueError) as e:
            failures.append("%s: %r" % (path, e))
        await asyncio.sleep(0.02)


async def flood(args):
    host, port = parse_url(args.url)
    stop = asyncio.Event()
    stats = {"slowloris_open": 0, "slowloris_refused": 0, "slowloris_closed_by_server": 0, "flood_errors": 0}
    latencies, failures = [], []
    tasks = [asyncio.create_task(slowloris(host, port, stop, stats)) for _ in range(args.slowloris)]
    tasks += [asyncio.create_task(header_flood(host, port, stop, stats)) for _ in range(args.header_floods)]
    await asyncio.sleep(1)  # the attack is under way before the first probe
    tasks.append(asyncio.create_task(probe(host, port, args.probe, args.user, stop, latencies, failures)))
    await asyncio.sleep(args.seconds)
    stop.set()
    await asyncio.wait(tasks, timeout=10)
    stats.update(probes=len(latencies) + len(failures), probe_failures=failures[:5], failed=len(failures),
                 p50_ms=percentile(latencies, 50), p99_ms=percentile(latencies, 99),
                 max_ms=max(latencies) if latencies else None)
    print(json.dumps(stats))


async def connections(args):
    results = {"200": 0, "503": 0, "none": 0}
    writers = []

    async def one():
        try:
            reader, writer = await asyncio.open_connection(args.host, args.port)
        except OSError:
            results["none"] += 1
            return
        writers.append(writer)
        try:
            writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            await writer.drain()
            status, _ = await asyncio.wait_for(read_response(reader), 20)
            key = str(status)
            results[key] = results.get(key, 0) + 1
        except (OSError, ConnectionError, asyncio.IncompleteReadError, asyncio.TimeoutError, ValueError):
            results["none"] += 1

    await asyncio.gather(*(one() for _ in range(args.count)))
    print(json.dumps(results), flush=True)
    await asyncio.sleep(args.hold)
    for writer in writers:
        writer.close()
    await asyncio.sleep(0.5)


def raw(host, port, data, source="127.0.0.1", timeout=5):
    """Everything the server sends back to `data` until it closes or goes quiet."""
    s = socket.socket()
    s.bind((source, 0))
    s.settimeout(timeout)
    s.connect((host, port))
    s.sendall(data)
    out = b""
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            out += chunk
    except socket.timeout:
        pass
    s.close()
    return out.decode("latin-1")


def statuses(text):
    """The status of each response in `text` (a body may end where the next
    status line starts, without a line break)."""
    return [int(code) for code in re.findall(r"HTTP/1\.[01] (\d{3}) ", text)]


def malformed(args):
    h, p, user, job, other = args.host, args.port, args.user, args.job, args.other_job
    # What an answer about the other job (bob's, which only the admin carol
    # may read) would contain.
    leaked = '"username": "bob"'

    def check(what, ok):
        print("%s\t%s" % ("ok" if ok else "not ok", what))

    # Pipelined: three requests in one write, three answers in order.
    text = raw(h, p, b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n" * 2
               + b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    check("three pipelined requests get three answers in order (%s)" % statuses(text), statuses(text) == [200] * 3)
    # Smuggling: two different Content-Lengths.
    hidden = ("GET /api/v1/jobs/%s/usage HTTP/1.1\r\nHost: x\r\nX-Remote-User: carol\r\n\r\n" % other).encode()
    text = raw(h, p, b"GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nContent-Length: %d\r\n\r\n"
               % len(hidden) + hidden, source="127.0.0.2")
    check("duplicate Content-Length: 400 and nothing more (%s)" % statuses(text),
          statuses(text) == [400] and leaked not in text)
    # Smuggling: chunked body on a GET hiding a second request as admin.
    body = b"%x\r\n" % len(hidden) + hidden + b"\r\n0\r\n\r\n"
    text = raw(h, p, b"GET /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + body,
               source="127.0.0.2")
    check("Transfer-Encoding on GET: the hidden request is never answered (%s)" % statuses(text),
          len(statuses(text)) <= 1 and leaked not in text)
    # Content-Length and Transfer-Encoding together.
    text = raw(h, p, b"GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n"
               b"0\r\n\r\n")
    check("Content-Length with Transfer-Encoding: at most one answer (%s)" % statuses(text), len(statuses(text)) <= 1)
    # Path tricks: never a file, never another route.
    for path in ["/jobs/../../../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/api/v1/jobs/..%2f..%2fetc%2fpasswd/usage",
                 "/api/v1/jobs/%s%%2Fusage" % job, "/api/v1/jobs/%s/../../efficiency" % job, "//etc/passwd",
                 "/api/v1/jobs/%s%%00/usage" % job]:
        text = raw(h, p, ("GET %s HTTP/1.1\r\nHost: x\r\nX-Remote-User: %s\r\nConnection: close\r\n\r\n"
                          % (path, user)).encode())
        st = statuses(text)
        check("%s: %s, no file, no other route" % (path, st),
              len(st) == 1 and st[0] in (400, 404) and "root:" not in text and leaked not in text)
    # Oversized and non-UTF-8 ids.
    for what, jid in [("a 10,000-digit id", "9" * 10000), ("a non-UTF-8 id", "%ff%fe%fd"),
                      ("an id with a newline", "1%0d%0aX-Injected:%20yes")]:
        text = raw(h, p, ("GET /api/v1/jobs/%s/usage HTTP/1.1\r\nHost: x\r\nX-Remote-User: %s\r\nConnection: close"
                          "\r\n\r\n" % (jid, user)).encode())
        st = statuses(text)
        check("%s: %s with a JSON error" % (what, st),
              len(st) == 1 and st[0] in (400, 404, 414, 431) and "X-Injected" not in text.split("\r\n\r\n")[0])
    # Identity headers: from an address that is not a trusted proxy, twice,
    # or twice with other case.
    text = raw(h, p, hidden.replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n"), source="127.0.0.2")
    check("X-Remote-User: carol from 127.0.0.2 (untrusted): 401 (%s)" % statuses(text),
          statuses(text) == [401] and leaked not in text)
    for what, headers in [("twice", b"X-Remote-User: %s\r\nX-Remote-User: carol\r\n" % user.encode()),
                          ("twice, case varied", b"X-Remote-User: %s\r\nx-remote-user: carol\r\n" % user.encode()),
                          ("with a comma list", b"X-Remote-User: %s, carol\r\n" % user.encode())]:
        text = raw(h, p, ("GET /api/v1/jobs/%s/usage HTTP/1.1\r\nHost: x\r\n" % other).encode() + headers
                   + b"Connection: close\r\n\r\n")
        st = statuses(text)
        check("the identity header %s: refused, never read as carol (%s)" % (what, st),
              len(st) == 1 and st[0] in (400, 401, 403) and leaked not in text)


def upstream(args):
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", args.port))
    listener.listen(64)
    sample = b'[1800000000,"1"],'
    chunk = sample * ((1 << 20) // len(sample)) + b" " * ((1 << 20) % len(sample))

    def serve(conn):
        try:
            conn.settimeout(60)
            data = b""
            while b"\r\n\r\n" not in data:
                more = conn.recv(65536)
                if not more:
                    return
                data += more
            if args.mode == "never":
                time.sleep(3600)
            elif args.mode == "slow":
                time.sleep(30)
                body = b'{"status":"success","data":{"resultType":"matrix","result":[]}}'
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
                             % len(body) + body)
            else:  # huge: 100 MB of samples that never close into valid JSON
                size = 100 << 20
                head = b'{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":['
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
                             % (len(head) + size) + head)
                for _ in range(size // len(chunk)):
                    conn.sendall(chunk)
        except OSError:
            pass
        finally:
            conn.close()

    while True:
        conn, _ = listener.accept()
        threading.Thread(target=serve, args=(conn,), daemon=True).start()


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    f = sub.add_parser("flood")
    f.add_argument("url")
    f.add_argument("--user", required=True)
    f.add_argument("--probe", nargs="+", required=True)
    f.add_argument("--slowloris", type=int, default=500)
    f.add_argument("--header-floods", type=int, default=20)
    f.add_argument("--seconds", type=float, default=10)
    c = sub.add_parser("connections")
    c.add_argument("host")
    c.add_argument("port", type=int)
    c.add_argument("--count", type=int, default=5000)
    c.add_argument("--hold", type=float, default=2)
    m = sub.add_parser("malformed")
    m.add_argument("host")
    m.add_argument("port", type=int)
    m.add_argument("--user", required=True)
    m.add_argument("--job", required=True)
    m.add_argument("--other-job", required=True)
    u = sub.add_parser("upstream")
    u.add_argument("port", type=int)
    u.add_argument("mode", choices=["slow", "never", "huge"])
    args = parser.parse_args()
    raise_fd_limit()
    if args.command == "flood":
        asyncio.run(flood(args))
    elif args.command == "connections":
        asyncio.run(connections(args))
    elif args.command == "malformed":
        malformed(args)
    else:
        upstream(args)


if __name__ == "__main__":
    sys.exit(main())
