#!/bin/bash
# Functions are called through the EXIT trap:
# shellcheck disable=SC2317
# The HTML pages of a REAL `petricore serve` in a REAL browser (headless
# Chromium), over a REAL Prometheus (Debian's prometheus 2.42) holding two
# finished jobs backfilled with `promtool tsdb create-blocks-from
# openmetrics` (lib/synthetic_jobs.py: job A of alice, job B of bob, a
# 1-hour window ending 3 hours ago).
#
# Checks: Chromium loads `/` and `/jobs/<A>`; --screenshot writes PNGs of the
# window's size (kept, see "screenshot:" lines); --dump-dom of the job page
# holds the job id, every finding's message and advice (taken from the job
# JSON) and at least 4 inline charts; the index holds the job form; the job
# page is sent with a Content-Security-Policy and neither page breaks it
# (Chromium's console log names no violation); a load
# recorded with --log-net-log requests nothing but 127.0.0.1 (data: and
# about: aside); the served HTML references no http(s) URL but its own
# server; /jobs/<unknown> is 404; with --auth header another user's job page
# is 403 and the owner's 200.
#
# Usage: browser_test.sh PETRICORE_BINARY
# Prints "ok - ..." / "not ok - ..." per check and "N passed, M failed";
# exits 0 when all passed, 1 otherwise, 77 with "SKIPPED: <why>" when
# chromium (or $CHROMIUM), prometheus, promtool, curl, jq or python3 are
# missing. KEEP=1 keeps the temp dir. Screenshots go to BROWSER_OUT, else
# $PETRICORE_ARTIFACTS/browser (meson: build/test/artifacts), else
# meson-logs/browser in the build directory. Everything started is stopped by PID in
# the EXIT trap; Chromium runs under lib/subreaper.py, which reaps its
# helpers.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/../../scripts/lib/prometheus.sh
source "$HERE/../../scripts/lib/prometheus.sh"
# shellcheck source=SCRIPTDIR/../../scripts/lib/serve.sh
source "$HERE/../../scripts/lib/serve.sh"

# shellcheck source=SCRIPTDIR/../../scripts/lib/harness.sh
source "$(dirname "$0")/../../scripts/lib/harness.sh"
petricore_binary "${1:-}"

# shellcheck source=SCRIPTDIR/../../scripts/lib/tap.sh
source "$HERE/../../scripts/lib/tap.sh"
CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
if [ -z "$CHROMIUM" ] || [ ! -x "$CHROMIUM" ]; then
  skip "chromium is not installed (or CHROMIUM=$CHROMIUM is not executable)"
fi
why=$(prom_unavailable promtool jq python3)
[ -z "$why" ] || skip "$why"
"$PETRICORE" serve --help >/dev/null 2>&1 || skip "$PETRICORE has no serve subcommand yet"

loopback_without_proxy

T=$(mktemp -d /tmp/petricore-browsertest.XXXXXX) || bail "create a temp dir"
BUILD_DIR=${MESON_BUILD_ROOT:-$(cd "$(dirname "$PETRICORE")/.." && pwd)}
if [ -n "${PETRICORE_ARTIFACTS:-}" ]; then
  OUT=${BROWSER_OUT:-$PETRICORE_ARTIFACTS/browser}
else
  OUT=${BROWSER_OUT:-$BUILD_DIR/meson-logs/browser}
fi
mkdir -p "$OUT" || bail "create $OUT"
SERVE_PID='' CHROME_PID='' CONTROL_PID=''

cleanup() {
  stop_pid "$CHROME_PID"
  stop_pid "$CONTROL_PID"
  stop_pid "$SERVE_PID"
  prom_stop
  [ "$failed" -gt 0 ] && tail_logs 15 "$T"/serve*.log "$T"/chromium-*.log
  remove_temp_dir "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# browser NAME ARGS... URL: one headless Chromium run (a fresh profile,
# bounded to 60 s) under the subreaper; stdout to $T/NAME.out, stderr to
# $T/chromium-NAME.log. Runs in the background and is waited for, so the
# EXIT trap can stop it by PID.
browser() {
  local name=$1 rc
  shift
  rm -rf "$T/profile-$name"
  timeout -k 5 60 python3 "$HERE/../../scripts/lib/subreaper.py" "$CHROMIUM" --headless --no-sandbox --disable-gpu \
    --disable-dev-shm-usage --no-first-run --no-default-browser-check --disable-background-networking \
    --disable-component-update --disable-sync --disable-quic --disable-extensions --hide-scrollbars \
    --disable-client-side-phishing-detection --disable-default-apps --disable-domain-reliability --no-pings \
    --host-resolver-rules="MAP * ~NOTFOUND, EXCLUDE 127.0.0.1" --enable-logging=stderr --v=0 \
    --user-data-dir="$T/profile-$name" "$@" </dev/null >"$T/$name.out" 2>"$T/chromium-$name.log" &
  CHROME_PID=$!
  wait "$CHROME_PID"
  rc=$?
  CHROME_PID=
  return "$rc"
}

# png_size FILE: "WIDTHxHEIGHT" from the PNG header, or "not a PNG".
png_size() {
  python3 - "$1" <<'EOF'
import struct, sys
try:
    head = open(sys.argv[1], "rb").read(24)
except OSError:
    head = b""
if head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR":
    print("%dx%d" % struct.unpack(">II", head[16:24]))
else:
    print("not a PNG")
EOF
}

# screenshot NAME WIDTH HEIGHT URL: a PNG of the page at that window size,
# kept in $OUT/NAME.png.
screenshot() {
  local name=$1 width=$2 height=$3 url=$4 got
  rm -f "$OUT/$name.png"
  browser "shot-$name" --window-size="$width,$height" --screenshot="$OUT/$name.png" "$url"
  got=$(png_size "$OUT/$name.png")
  check "screenshot of $url: a ${width}x${height} PNG (got $got)" test "$got" = "${width}x${height}"
  echo "screenshot: $OUT/$name.png"
}

# status [CURL ARGS...] URL: the HTTP status; the body goes to $T/body.
status() { curl -s -o "$T/body" -w '%{http_code}' --max-time 60 "$@"; }

# --- Prometheus with the two finished jobs
JOB_A=$(random_job_id)
JOB_B=$((JOB_A + 1))
UNKNOWN=$((JOB_A + 7))
END=$(prom_backfill_end)
START=$((END - 3600))
prom_backfill_synthetic "$T/data.om" "$T/tsdb" "$JOB_A" "$JOB_B" "$START" "$END" || bail "backfill $T/data.om with promtool"
prom_start "$T" "$T/tsdb" || bail "start prometheus"
ok "prometheus on $PROM_URL holds finished jobs $JOB_A (alice) and $JOB_B (bob)"

serve_start "$T/serve1.log" --prometheus "$PROM_URL" --accounting prometheus --auth none ||
  bail "start petricore serve"
B=$SERVE_URL
ok "serve answers /healthz on $B (pid $SERVE_PID)"

# --- what the server sends
code=$(status -D "$T/headers" "$B/jobs/$JOB_A")
cp "$T/body" "$T/job.html"
check "/jobs/$JOB_A: 200 (got $code)" test "$code" = 200
check "/jobs/$JOB_A is text/html" grep -qi '^content-type: text/html' "$T/headers"
code=$(status "$B/")
cp "$T/body" "$T/index.html"
check "/: 200 (got $code)" test "$code" = 200
for page in job index; do
  # Every absolute http(s) URL in the page must point at this server.
  external=$(grep -oiE 'https?://[^"'"'"'<> ]*' "$T/$page.html" | grep -v "^$B/" | sort -u | head -n 5)
  check "served $page page references no http(s) URL but $B (found: ${external:-none})" test -z "$external"
  check "served $page page has no <script" test -z "$(grep -i '<script' "$T/$page.html")"
done
code=$(status "$B/jobs/$UNKNOWN")
check "/jobs/$UNKNOWN (unknown job): 404 (got $code)" test "$code" = 404
code=$(status "$B/jobs/abc")
check "/jobs/abc (not a job id): 400 (got $code)" test "$code" = 400
code=$(status -D "$T/headers" "$B/jobs/?id=$JOB_A")
location=$(grep -i '^location:' "$T/headers" | tr -d '\r' | sed 's/^[^:]*: *//')
redirect=no
case "$code $location" in 3??\ */jobs/"$JOB_A") redirect=yes ;; esac
check "the index form's GET /jobs/?id=$JOB_A redirects to the job page (got $code, Location: ${location:-none})" \
  test "$redirect" = yes

# The job JSON says which findings the page must show.
code=$(status "$B/api/v1/jobs/$JOB_A/usage")
cp "$T/body" "$T/job.json"
findings=$(jq '.findings | length' "$T/job.json" 2>/dev/null)
check "job JSON of $JOB_A has findings (got $code, ${findings:-no} findings)" test "${findings:-0}" -ge 1

# --- Chromium: screenshots of the index and the job page (desktop and narrow)
screenshot index 1280 900 "$B/"
screenshot job 1280 3400 "$B/jobs/$JOB_A"
screenshot job-narrow 420 2600 "$B/jobs/$JOB_A"
size=$(stat -c %s "$OUT/job.png" 2>/dev/null || echo 0)
check "the job page screenshot is not blank ($size bytes)" test "$size" -gt 40000
if [ -n "${BROWSER_COPY:-}" ]; then
  mkdir -p "$BROWSER_COPY" && cp "$OUT"/*.png "$BROWSER_COPY"/ && echo "# copied the screenshots to $BROWSER_COPY"
fi

# --- Chromium: the DOM of the job page after loading
browser dom-job --dump-dom "$B/jobs/$JOB_A"
dom_check=$(python3 - "$T/dom-job.out" "$T/job.json" "$JOB_A" <<'EOF'
import html.parser, json, sys

dom = open(sys.argv[1], encoding="utf-8", errors="replace").read()
job = json.load(open(sys.argv[2]))
job_id = sys.argv[3]


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.text, self.charts, self.title = [], 0, ""
        self.in_title = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "svg" or (tag == "img" and (attrs.get("src") or "").startswith("data:image/")):
            self.charts += 1
        self.in_title = tag == "title"

    def handle_endtag(self, tag):
        self.in_title = False

    def handle_data(self, data):
        self.text.append(data)
        if self.in_title:
            self.title += data


page = Page()
page.feed(dom)
text = " ".join(" ".join(page.text).split())
problems = []
if f"Job {job_id}" not in text:
    problems.append(f"no 'Job {job_id}' in the text")
if job_id not in page.title:
    problems.append(f"title {page.title!r} lacks the job id")
for f in job["findings"]:
    for key in ("message", "advice"):
        wanted = " ".join(f[key].split())
        if wanted not in text:
            problems.append(f"{f['rule']} {key} missing: {wanted[:60]!r}")
if page.charts < 4:
    problems.append(f"only {page.charts} inline charts")
print("; ".join(problems) if problems else f"ok: job id, {len(job['findings'])} findings, {page.charts} charts")
EOF
)
check "DOM of /jobs/$JOB_A: the job id, every finding's message and advice, >= 4 inline charts ($dom_check)" \
  test "${dom_check:0:3}" = "ok:"

browser dom-index --dump-dom "$B/"
check "DOM of / holds the job form (GET to /jobs/ with field id)" \
  python3 -c '
import re, sys
dom = open(sys.argv[1]).read()
form = re.search(r"<form[^>]*>", dom)
sys.exit(not (form and re.search(r"method=\"get\"", form.group(0), re.I) and "/jobs/" in form.group(0)
              and re.search(r"<input[^>]*name=\"id\"", dom)))' "$T/dom-index.out"
check "DOM of / lists the job page route" grep -q '/jobs/' "$T/dom-index.out"

# --- the pages' Content-Security-Policy: sent, and nothing on them breaks it
# (Chromium logs each violation as a console message on stderr).
csp=$(curl -s -D - -o /dev/null --max-time 60 "$B/jobs/$JOB_A" | tr -d '\r' | grep -i '^content-security-policy:')
check "the job page is sent with a Content-Security-Policy (${csp:-none})" test -n "$csp"
for name in dom-job dom-index; do
  violations=$(grep -c 'Content Security Policy' "$T/chromium-$name.log")
  check "Chromium met no Content-Security-Policy violation loading $name ($violations)" test "$violations" = 0
done

# --- Chromium: no request leaves the host
# net_log_check NETLOG PAGE_URL: "ok: ..." when the log has the request for
# PAGE_URL, every request made for the page went to 127.0.0.1 (or data:,
# about:, blob:), and no socket sent a byte to another address; else what
# went wrong.
cat >"$T/net_log_check.py" <<'EOF'
import json, sys
from urllib.parse import urlsplit

raw = open(sys.argv[1], encoding="utf-8", errors="replace").read()
page = sys.argv[2]
try:
    log = json.loads(raw)
except ValueError:
    # A log cut short ends inside the events list.
    log = json.loads(raw.rstrip().rstrip(",") + "]}")
names = {v: k for k, v in log["constants"]["logEventTypes"].items()}
sources = {v: k for k, v in log["constants"]["logSourceType"].items()}
LOCAL = ("127.0.0.1",)


def local_address(address):
    # "127.0.0.1:8080", "[::1]:443"
    return address.rsplit(":", 1)[0].strip("[]") in LOCAL


page_urls, other_urls, connects, off_host = set(), set(), [], []
udp_peer, sent_on = {}, set()
for event in log.get("events", []):
    name, params = names.get(event.get("type")), event.get("params") or {}
    if name == "URL_REQUEST_START_JOB" and "url" in params:
        # Requests made for the page carry its site in their isolation key;
        # the browser's own (component updates, sign-in) carry null or theirs.
        key = params.get("network_isolation_key", "")
        initiator = params.get("initiator", "")
        for_page = key.split(" ")[0] == "http://127.0.0.1" or initiator.startswith("http://127.0.0.1")
        (page_urls if for_page else other_urls).add(params["url"])
    elif name in ("TCP_CONNECT_ATTEMPT", "SOCKET_CONNECT", "UDP_CONNECT", "TCP_CONNECT"):
        peer = params.get("remote_address") or params.get("address")
        if not peer:
            continue
        if "UDP" in sources.get(event["source"]["type"], ""):
            # connect() on a UDP socket sends nothing: Chromium does it to
            # learn its local address (the IPv6 reachability probe to
            # 2001:4860:4860::8888). It counts once a datagram goes out.
            udp_peer[event["source"]["id"]] = peer
        else:
            connects.append(peer)
    elif name in ("UDP_BYTES_SENT", "SOCKET_BYTES_SENT"):
        sent_on.add(event["source"]["id"])
connects += [peer for source, peer in udp_peer.items() if source in sent_on]
probes = [peer for source, peer in udp_peer.items() if source not in sent_on and not local_address(peer)]

for url in sorted(page_urls):
    parts = urlsplit(url)
    if parts.scheme not in ("data", "about", "blob") and parts.hostname not in LOCAL:
        off_host.append("page request " + url[:80])
for address in sorted(set(connects)):
    if not local_address(address):
        off_host.append("connection to " + address)
if not any(u.startswith(page) for u in page_urls):
    print(f"the log has no request for the page ({len(page_urls)} page requests)")
elif off_host:
    print("off-host: " + ", ".join(off_host[:5]))
else:
    print(f"ok: {len(page_urls)} page requests and {len(set(connects))} connection(s), all to 127.0.0.1; "
          f"{len(other_urls)} request(s) of the browser itself and {len(probes)} UDP address probe(s), "
          "none sent a byte off the host")
EOF
net_log_check() { python3 "$T/net_log_check.py" "$@" 2>&1 | tail -n 1; }

# The check itself is checked: a page on a loopback file server with one
# image from elsewhere (.invalid never resolves, so nothing leaves) fails it.
mkdir -p "$T/control"
printf '%s\n' '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>control</title></head>' \
  '<body><img src="http://external.invalid/x.png" alt="x"></body></html>' >"$T/control/index.html"
CONTROL_PORT=$(free_ports 1)
python3 -m http.server --bind 127.0.0.1 --directory "$T/control" "$CONTROL_PORT" >"$T/control.log" 2>&1 &
CONTROL_PID=$!
for _ in $(seq 1 50); do curl -sf -o /dev/null "http://127.0.0.1:$CONTROL_PORT/" && break; sleep 0.1; done
browser netlog-control --log-net-log="$T/netlog-control.json" --net-log-capture-mode=Default \
  --window-size=400,300 --screenshot="$T/control.png" "http://127.0.0.1:$CONTROL_PORT/"
stop_pid "$CONTROL_PID"
CONTROL_PID=
got=$(net_log_check "$T/netlog-control.json" "http://127.0.0.1:$CONTROL_PORT/")
check "net log check catches a page that loads an image from another host ($got)" \
  test "${got#off-host: page request http://external.invalid/}" != "$got"

browser netlog --log-net-log="$T/netlog.json" --net-log-capture-mode=Default --window-size=1280,900 \
  --screenshot="$T/netlog.png" "$B/jobs/$JOB_A"
net_check=$(net_log_check "$T/netlog.json" "$B/jobs/$JOB_A")
check "net log of loading /jobs/$JOB_A: nothing leaves the host ($net_check)" test "${net_check:0:3}" = "ok:"

# --- another user's job page with --auth header (a second server)
stop_pid "$SERVE_PID"
SERVE_PID=
if serve_start "$T/serve2.log" --prometheus "$PROM_URL" --accounting prometheus --auth header \
  --trusted-proxy 127.0.0.1 --admin carol; then
  code=$(status -H "X-Remote-User: bob" "$SERVE_URL/jobs/$JOB_A")
  check "auth header: bob's request for alice's job page is refused with 403 (got $code)" test "$code" = 403
  code=$(status -H "X-Remote-User: alice" "$SERVE_URL/jobs/$JOB_A")
  check "auth header: alice gets her job page (got $code)" test "$code" = 200
  code=$(status "$SERVE_URL/jobs/$JOB_A")
  check "auth header: an anonymous request for the job page is refused with 401 (got $code)" test "$code" = 401
else
  not_ok "start serve with --auth header"
fi

# Every Chromium ran with its own profile under $T; none may be left.
left=$(pgrep -f -- "--user-data-dir=$T/profile-" | tr '\n' ' ')
check "no Chromium process is left behind (${left:-none})" test -z "$left"

summary
[ "$failed" = 0 ]
