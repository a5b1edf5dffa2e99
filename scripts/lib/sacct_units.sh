# shellcheck shell=bash
# sacct's units as numbers, for the suites that compare petricore with sacct
# (test/integration/slurm_e2e_test.sh, test/vm/vm_test.sh).

# seconds of a sacct duration: [D-][HH:]MM:SS[.mmm]
duration_s() {
  awk -v d="$1" 'BEGIN {
    days = 0; if (index(d, "-")) { split(d, a, "-"); days = a[1]; d = a[2] }
    n = split(d, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]
    printf "%.3f", s + days * 86400 }'
}
# MiB of a sacct size: 102904K, 1.5M, 2G, or bytes
size_mib() {
  awk -v v="$1" 'BEGIN {
    u = substr(v, length(v)); n = v + 0
    if (u == "K") n /= 1024; else if (u == "G") n *= 1024; else if (u == "T") n *= 1048576
    else if (u != "M") n /= 1048576
    printf "%.1f", n }'
}
