#!/bin/bash
# Functions are called through the EXIT trap; `ok` always succeeds, so
# `test && ok ... || not_ok ...` is an if-then-else here:
# shellcheck disable=SC2317,SC2015
# The drawn faces of a job from a REAL `petricore serve` and `report --pdf`
# over a REAL Prometheus (Debian's prometheus 2.42) holding a FINISHED
# 4-node job (lib/synthetic_jobs.py job A, backfilled with promtool; its
# values are documented in prometheus_analysis_test.sh):
#
#   * /plot/<id>/<metric>: a PNG of the requested size that is not blank
#     (lib/png_info.py decodes it), SVG with ?format=svg that parses as XML,
#     bad sizes/formats/metrics -> 400, a metric the job lacks -> 404;
#   * /pie/<id>/ (user vs system) and ?of=cores;
#   * /pdf/<id> and `report <id> --pdf FILE`: pdfinfo's page count, pdftotext
#     holds the job id, every finding's message, the axis titles and the
#     "page N of M" footers, pdffonts shows every font embedded;
#   * /jobs/<id> (HTML), /jobs/?id=<id> -> 303, / links to the job.
#
# The PNGs, the PDF and its pages as PNG are kept in $PETRICORE_ARTIFACTS
# (meson sets it to build/test/artifacts) for people to look at.
#
# Usage: charts_test.sh PETRICORE_BINARY
# Prints "ok - ..." / "not ok - ..." per check and "N passed, M failed";
# exits 0 when all passed, 1 otherwise, 77 with "SKIPPED: <why>" when
# prometheus, promtool, curl, jq, python3 or poppler-utils are missing.
# KEEP=1 keeps the temp dir.
set -u
# shellcheck source=SCRIPTDIR/../../scripts/lib/prometheus.sh
source "$(dirname "$0")/../../scripts/lib/prometheus.sh"
# shellcheck source=SCRIPTDIR/../../scripts/lib/serve.sh
source "$(dirname "$0")/../../scripts/lib/serve.sh"

# shellcheck source=SCRIPTDIR/../../scripts/lib/harness.sh
source "$(dirname "$0")/../../scripts/lib/harness.sh"
petricore_binary "${1:-}"
LIB=$(cd "$(dirname "$0")/../../scripts/lib" && pwd)

# shellcheck source=SCRIPTDIR/../../scripts/lib/tap.sh
source "$LIB/tap.sh"
why=$(prom_unavailable promtool jq python3 pdfinfo pdftotext pdffonts pdftoppm)
[ -z "$why" ] || skip "$why"

loopback_without_proxy
# Clock times on the charts' time axis are in this zone.
export TZ=UTC

T=$(mktemp -d /tmp/petricore-charttest.XXXXXX) || bail "create a temp dir"
ART=${PETRICORE_ARTIFACTS:-$T/artifacts}
mkdir -p "$ART" || bail "create $ART"
SERVE_PID=''
cleanup() {
  stop_pid "$SERVE_PID"
  prom_stop
  [ "$failed" -gt 0 ] && tail_logs 15 "$T/serve.log"
  remove_temp_dir "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

JOB=$(random_job_id)
END=$(prom_backfill_end)
START=$((END - 3600))
prom_backfill_synthetic "$T/data.om" "$T/tsdb" "$JOB" "$((JOB + 1))" "$START" "$END" || bail "backfill the synthetic jobs"
prom_start "$T" "$T/tsdb" || bail "start prometheus"

serve_start "$T/serve.log" --prometheus "$PROM_URL" --accounting prometheus || bail "serve answers"
URL=$SERVE_URL
ok "serve ready on $URL over prometheus $PROM_URL"

# get PATH OUT: the body in OUT; prints "STATUS CONTENT-TYPE".
get() {
  curl -s --max-time 30 -o "$2" -w '%{http_code} %{content_type}' "$URL$1"
}
# png_is NAME FILE WIDTH HEIGHT: the PNG has that size and is not blank.
png_is() {
  local info w h colours nonwhite
  info=$(python3 "$LIB/png_info.py" "$2" 2>&1)
  read -r w h colours nonwhite <<<"$info"
  if [ "$w" = "$3" ] && [ "$h" = "$4" ] && [ "${colours:-0}" -ge 4 ] &&
    awk -v f="${nonwhite:-0}" 'BEGIN { exit !(f > 0.01 && f < 0.95) }'; then
    ok "$1: ${w}x${h} PNG, $colours colours, $nonwhite of the pixels not white"
  else
    not_ok "$1: expected a ${3}x${4} PNG that is not blank, got: $info"
  fi
}
# status_is NAME PATH STATUS: the answer's status (and a JSON error for 4xx).
status_is() {
  local got
  got=$(get "$2" "$T/status.out")
  if [ "${got%% *}" = "$3" ] && { [ "$3" -lt 400 ] || jq -e '.error | length > 0' "$T/status.out" >/dev/null 2>&1; }; then
    ok "$1: $3"
  else
    not_ok "$1: got '$got' ($(head -c 200 "$T/status.out")), expected $3"
  fi
}

# --- line charts
got=$(get "/plot/$JOB/jobs_cpu_percent" "$ART/plot-cpu.png")
[ "$got" = "200 image/png" ] && ok "/plot cpu_percent: 200 image/png" || not_ok "/plot cpu_percent: got '$got'"
png_is "/plot cpu_percent" "$ART/plot-cpu.png" 900 450
got=$(get "/plot/$JOB/jobs_rss?width=1200&height=600" "$ART/plot-rss.png")
[ "$got" = "200 image/png" ] && ok "/plot rss 1200x600: 200" || not_ok "/plot rss 1200x600: got '$got'"
png_is "/plot rss sized" "$ART/plot-rss.png" 1200 600
get "/plot/$JOB/jobs_thread_count" "$ART/plot-threads.png" >/dev/null
png_is "/plot thread_count (one line per process name and node)" "$ART/plot-threads.png" 900 450
get "/plot/$JOB/jobs_cpu_time_core" "$ART/plot-cores.png" >/dev/null
png_is "/plot cpu_time_core (16 lines)" "$ART/plot-cores.png" 900 450

got=$(get "/plot/$JOB/jobs_write_mb?format=svg" "$ART/plot-write.svg")
[ "$got" = "200 image/svg+xml" ] && ok "/plot ?format=svg: 200 image/svg+xml" || not_ok "/plot ?format=svg: got '$got'"
if python3 -c 'import sys, xml.etree.ElementTree as E
root = E.parse(sys.argv[1]).getroot()
sys.exit(0 if root.tag.endswith("svg") else 1)' "$ART/plot-write.svg" 2>"$T/svg.err"; then
  ok "the SVG parses as XML with an <svg> root"
else
  not_ok "the SVG parses as XML: $(head -c 200 "$T/svg.err")"
fi

status_is "/plot with width=5" "/plot/$JOB/jobs_rss?width=5" 400
status_is "/plot with format=gif" "/plot/$JOB/jobs_rss?format=gif" 400
status_is "/plot of a metric that is not a jobs_* chart" "/plot/$JOB/node_load1" 400
status_is "/plot of GPU utilisation of a job without GPUs" "/plot/$JOB/gpu_utilization" 404
# Job B holds GPUs 0 and 1 of gpu1, idle: one line per GPU.
got=$(get "/plot/$((JOB + 1))/gpu_utilization" "$ART/plot-gpu.png")
[ "$got" = "200 image/png" ] && ok "/plot gpu_utilization of the GPU job: 200 image/png" ||
  not_ok "/plot gpu_utilization of the GPU job: got '$got'"
png_is "/plot gpu_utilization" "$ART/plot-gpu.png" 900 450
status_is "/plot of an unknown job" "/plot/999999999/jobs_rss" 404
status_is "/plot of an invalid job id" "/plot/12x/jobs_rss" 400

# --- pies
got=$(get "/pie/$JOB/" "$ART/pie-mode.png")
[ "$got" = "200 image/png" ] && ok "/pie: 200 image/png" || not_ok "/pie: got '$got'"
png_is "/pie user vs system" "$ART/pie-mode.png" 900 450
get "/pie/$JOB/?of=cores&width=600&height=600" "$ART/pie-cores.png" >/dev/null
png_is "/pie ?of=cores" "$ART/pie-cores.png" 600 600
status_is "/pie ?of=disks" "/pie/$JOB/?of=disks" 400

# --- the PDF, served and from report --pdf
curl -s --max-time 30 "$URL/api/v1/jobs/$JOB/usage" >"$T/usage.json"
jq -r '.findings[].message' "$T/usage.json" >"$T/findings.txt"
[ -s "$T/findings.txt" ] && ok "the job has $(wc -l <"$T/findings.txt") findings to look for" ||
  not_ok "the job has findings (usage: $(head -c 200 "$T/usage.json"))"

# pdf_checks NAME FILE: pages, text and fonts.
pdf_checks() {
  local name=$1 file=$2 pages text missing='' message
  pages=$(pdfinfo "$file" 2>/dev/null | awk '/^Pages:/ { print $2 }')
  if [ "${pages:-0}" -ge 3 ]; then ok "$name: pdfinfo reads it, $pages pages"; else not_ok "$name: pdfinfo pages '$pages'"; fi
  grep -q '^Page size:.*(A4)' <(pdfinfo "$file" 2>/dev/null) && ok "$name: A4" || not_ok "$name: A4 ($(pdfinfo "$file" | grep 'Page size'))"
  # Lines wrapped in the PDF are joined: words are compared, not lines.
  text=$(pdftotext -enc UTF-8 "$file" - 2>/dev/null | tr -s ' \n\t' '   ')
  [[ $text == *"$JOB"* ]] && ok "$name: pdftotext holds the job id" || not_ok "$name: pdftotext holds the job id"
  while IFS= read -r message; do
    message=$(tr -s ' \n\t' '   ' <<<"$message")
    [[ $text == *"$message"* ]] || missing+="[$message] "
  done <"$T/findings.txt"
  [ -z "$missing" ] && ok "$name: every finding's message is in the text" || not_ok "$name: findings missing from the text: $missing"
  [[ $text == *"Time (UTC)"* ]] && ok "$name: the time axis title" || not_ok "$name: the time axis title 'Time (UTC)'"
  [[ $text == *"page 1 of $pages"* && $text == *"page $pages of $pages"* ]] && ok "$name: 'page N of M' footers" ||
    not_ok "$name: 'page 1 of $pages' and 'page $pages of $pages' footers"
  if pdffonts "$file" 2>/dev/null | awk 'NR > 2 { n++; if ($(NF-4) != "yes") bad++ } END { exit !(n > 0 && bad == 0) }'; then
    ok "$name: pdffonts: every font embedded"
  else
    not_ok "$name: pdffonts: $(pdffonts "$file" 2>&1 | tail -n +3 | head -5)"
  fi
}
got=$(get "/pdf/$JOB" "$ART/report-served.pdf")
[ "$got" = "200 application/pdf" ] && ok "/pdf: 200 application/pdf" || not_ok "/pdf: got '$got'"
pdf_checks "/pdf" "$ART/report-served.pdf"

if "$PETRICORE" report "$JOB" --pdf "$ART/report.pdf" --prometheus "$PROM_URL" --accounting prometheus 2>"$T/pdf.err"; then
  ok "report --pdf exits 0"
  pdf_checks "report --pdf" "$ART/report.pdf"
  pdftoppm -png -r 50 "$ART/report.pdf" "$ART/report-page" && ok "pdftoppm renders the pages ($ART/report-page-*.png)" ||
    not_ok "pdftoppm renders the pages"
else
  not_ok "report --pdf exits 0: $(head -c 300 "$T/pdf.err")"
fi
"$PETRICORE" report 999999999 --pdf "$T/none.pdf" --prometheus "$PROM_URL" --accounting prometheus 2>"$T/none.err"
rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$T/none.err")" = 1 ] && [ ! -e "$T/none.pdf" ] &&
  ok "report --pdf of an unknown job: exit 2, one line, no file" ||
  not_ok "report --pdf of an unknown job: exit $rc, $(wc -l <"$T/none.err") lines, file $([ -e "$T/none.pdf" ] && echo made)"

# --- HTML
got=$(get "/jobs/$JOB" "$T/page.html")
[ "$got" = "200 text/html; charset=utf-8" ] && ok "/jobs/<id>: 200 HTML" || not_ok "/jobs/<id>: got '$got'"
grep -q "$JOB" "$T/page.html" && ok "the job page names the job" || not_ok "the job page names the job"
loc=$(curl -s --max-time 10 -o /dev/null -w '%{http_code} %{redirect_url}' "$URL/jobs/?id=%20$JOB")
[ "$loc" = "303 $URL/jobs/$JOB" ] && ok "/jobs/?id= redirects to the job page" || not_ok "/jobs/?id= redirect: got '$loc'"
status_is "/jobs/?id=bad" "/jobs/?id=bad" 400
get "/" "$T/index.html" >/dev/null
grep -q "/plot/$JOB/jobs_cpu_percent" "$T/index.html" && ok "the index's examples link to a job this server has analysed" ||
  not_ok "the index's examples link to job $JOB"

# --- Content-Encoding: gzip (curl --compressed asks for it and inflates)
gzip_form() {  # PATH NAME: fetched with gzip, inflates to the same bytes as without
  local headers=$T/$2.gz.headers size
  size=$(curl -s --max-time 30 --compressed -D "$headers" -o "$T/$2.gz.body" -w '%{size_download}' "$URL$1")
  if ! grep -qi '^content-encoding: gzip' "$headers"; then
    not_ok "$1 with Accept-Encoding: gzip: no Content-Encoding: gzip"
  elif ! cmp -s "$T/$2.gz.body" "$T/$2.plain"; then
    not_ok "$1: the gzip form does not inflate to the plain bytes"
  elif ! grep -qi '^vary: accept-encoding' "$headers"; then
    not_ok "$1: no Vary: Accept-Encoding"
  else
    ok "$1 gzip: $size bytes on the wire for $(wc -c <"$T/$2.plain") (same bytes inflated, Vary set)"
  fi
}
cp "$T/page.html" "$T/page.plain"
curl -s --max-time 30 -D "$T/page.plain.headers" -o /dev/null "$URL/jobs/$JOB"
grep -qi '^content-encoding' "$T/page.plain.headers" && not_ok "/jobs/<id> without Accept-Encoding is encoded" ||
  ok "/jobs/<id> without Accept-Encoding: sent as it is"
gzip_form "/jobs/$JOB" page
gzip_form "/jobs/$JOB" page  # the second comes from the rendered cache
curl -s --max-time 30 -o "$T/usage.plain" "$URL/api/v1/jobs/$JOB/usage"
gzip_form "/api/v1/jobs/$JOB/usage" usage
curl -s --max-time 30 -o "$T/svg.plain" "$URL/plot/$JOB/jobs_cpu_percent?format=svg"
gzip_form "/plot/$JOB/jobs_cpu_percent?format=svg" svg
curl -s --max-time 30 --compressed -D "$T/png.headers" -o /dev/null "$URL/plot/$JOB/jobs_cpu_percent"
grep -qi '^content-encoding' "$T/png.headers" && not_ok "a PNG is sent gzip-encoded" || ok "a PNG is sent as it is"

summary
[ "$failed" = 0 ]
