#!/usr/bin/env bash
# The manual pages (man/*.1): each renders with man(1) without a single groff
# warning, and each documents exactly the long options the binary has:
# every option `petricore SUB --help` prints appears in SUB's page, and the
# page names no option the binary lacks. man/meson.build installs all six,
# under share/man/man1.
#
# Only the options --help prints are compared: the hidden subcommands that
# stand for config-only sections ([accounting.db] under accounting,
# [archive.db] under archive, [prometheus], [ldap], [smtp], [rules]) print
# nothing there, and their keys are documented in petricore.1's
# CONFIGURATION by name (host, password_file), not as --options. The config
# examples check them instead: each must be accepted by the binary.
#
# The checks are checked too: a page with a broken macro must make man warn,
# and a page with one option taken out or one made up must fail the option
# comparison, so that neither check can pass by accident.
set -uo pipefail
petricore=$1
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/../../scripts/lib/tap.sh
source "$here/../../scripts/lib/tap.sh"
man_dir=$(cd "$here/../../man" && pwd) || bail "no man/ directory next to test/"

command -v man >/dev/null || skip "man (man-db) is not installed"
command -v groff >/dev/null || skip "groff is not installed"
[ -x "$petricore" ] || bail "no petricore binary at $petricore"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# page:subcommand ("" = the options before the subcommand).
pages=(petricore.1: petricore-collect.1:collect petricore-serve.1:serve petricore-report.1:report
  petricore-archive.1:archive petricore-init-db.1:init-db)

# help_options [SUB]: the long options `petricore [SUB] --help` prints, one a line.
help_options() {
  "$petricore" "$@" --help 2>&1 | grep -oE -- '--[a-z][a-z0-9-]*' | sed 's/-*$//' | sort -u
}

# page_options FILE: the long options a page names, written \-\-name (or
# --name) anywhere but in roff comments, one a line.
page_options() {
  grep -v '^\.\\"' "$1" | sed -e 's/\\-/-/g' -e 's/\\[%&:c]//g' |
    grep -oE -- '--[a-z][a-z0-9-]*' | sed 's/-*$//' | sort -u
}

# compare_options PAGE REQUIRED ALLOWED: prints one line per problem; fails
# when a required option is missing from PAGE or PAGE names one not allowed.
compare_options() {
  local page=$1 required=$2 allowed=$3 missing extra
  page_options "$page" >"$tmp/page"
  missing=$(comm -23 "$required" "$tmp/page" | tr '\n' ' ')
  extra=$(comm -23 "$tmp/page" "$allowed" | tr '\n' ' ')
  [ -z "$missing" ] || echo "missing from the page: $missing"
  [ -z "$extra" ] || echo "not options of the binary: $extra"
  [ -z "$missing" ] && [ -z "$extra" ]
}

# render PAGE: man's warnings (stderr) go to $tmp/warnings, the text to $tmp/text.
render() {
  LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "$1" >"$tmp/text" 2>"$tmp/warnings"
}

# ---- the checks checked ----

printf '.TH BROKEN 1\n.SH NAME\nbroken \\- a page with faults\n.NOSUCHMACRO x\n\\*[nosuchstring]\n' >"$tmp/broken.1"
render "$tmp/broken.1"
if [ -s "$tmp/warnings" ]; then
  ok "man --warnings reports a broken page: $(head -n 1 "$tmp/warnings")"
else
  not_ok "man --warnings printed nothing for a page with an undefined macro: the warning check proves nothing"
fi

help_options >"$tmp/global"
help_options collect >"$tmp/collect"
n_global=$(wc -l <"$tmp/global")
n_collect=$(wc -l <"$tmp/collect")
if [ "$n_global" -ge 4 ] && grep -qx -- --config "$tmp/global" && [ "$n_collect" -ge 10 ] &&
  grep -qx -- --once-window "$tmp/collect"; then
  ok "the help parser finds the options ($n_global global, $n_collect of collect)"
else
  not_ok "the help parser found $n_global global and $n_collect collect options: $(tr '\n' ' ' <"$tmp/collect")"
fi

sort -u "$tmp/collect" "$tmp/global" >"$tmp/collect-allowed"
grep -v -- 'max\\-proc\\-names' "$man_dir/petricore-collect.1" >"$tmp/without-option.1"
# (compare_options fails here, as it should: keep its output, not its status.)
problems=$(compare_options "$tmp/without-option.1" "$tmp/collect" "$tmp/collect-allowed")
if [[ $problems == *"missing from the page: --max-proc-names"* ]]; then
  ok "a page without --max-proc-names fails the option check"
else
  not_ok "a page without --max-proc-names passed the option check"
fi
{
  cat "$man_dir/petricore-collect.1"
  printf '.TP\n.B \\-\\-no\\-such\\-option\nMade up.\n'
} >"$tmp/extra-option.1"
problems=$(compare_options "$tmp/extra-option.1" "$tmp/collect" "$tmp/collect-allowed")
if [[ $problems == *"not options of the binary: --no-such-option"* ]]; then
  ok "a page naming --no-such-option fails the option check"
else
  not_ok "a page naming a made-up option passed the option check"
fi

# ---- the pages ----

for spec in "${pages[@]}"; do
  page=${spec%%:*}
  sub=${spec#*:}
  file=$man_dir/$page
  if [ ! -f "$file" ]; then
    not_ok "$page: missing from man/"
    continue
  fi

  if render "$file" && [ ! -s "$tmp/warnings" ] && [ -s "$tmp/text" ]; then
    ok "$page renders without warnings ($(wc -l <"$tmp/text") lines at 80 columns)"
  else
    not_ok "$page: man failed or warned: $(head -n 5 "$tmp/warnings" | tr '\n' ' ')"
  fi
  name=${page%.1}
  if grep -q "^NAME" "$tmp/text" && grep -qF "$name" "$tmp/text" && grep -q "^EXAMPLES" "$tmp/text"; then
    ok "$page has NAME and EXAMPLES sections"
  else
    not_ok "$page: no NAME or EXAMPLES section, or no mention of $name, in the rendered text"
  fi

  # What the page must name: the options of its own --help. What it may name:
  # those and the global ones; the overview page may name any subcommand's.
  if [ -z "$sub" ]; then
    cp "$tmp/global" "$tmp/required"
    {
      cat "$tmp/global"
      for other in collect serve report archive init-db; do help_options "$other"; done
    } | sort -u >"$tmp/allowed"
  else
    help_options "$sub" >"$tmp/required"
    sort -u "$tmp/required" "$tmp/global" >"$tmp/allowed"
  fi
  n_required=$(wc -l <"$tmp/required")
  if [ "$n_required" -lt 3 ]; then
    not_ok "$page: only $n_required options parsed from \`petricore $sub --help\`"
    continue
  fi
  if problems=$(compare_options "$file" "$tmp/required" "$tmp/allowed"); then
    ok "$page names all $n_required options of \`petricore${sub:+ $sub} --help\` and no other"
  else
    not_ok "$page: $(echo "$problems" | tr '\n' ';')"
  fi

  # Every configuration file example (an .EX block with a [section] line) is
  # one the binary accepts: an unknown key or section would exit 2 naming the
  # config file before `report` ever looks at its (invalid) job id.
  rm -f "$tmp"/example-*.toml
  awk -v out="$tmp/example-" '
    /^\.EX/ { inside = 1; text = ""; toml = 0; next }
    /^\.EE/ { if (toml) { n++; printf "%s", text > (out n ".toml"); close(out n ".toml") } inside = 0; next }
    inside { if ($0 ~ /^\[[a-z.\\-]+\]$/) toml = 1; text = text $0 "\n" }
  ' "$file"
  for example in "$tmp"/example-*.toml; do
    [ -e "$example" ] || continue
    sed -i -e 's/\\-/-/g' -e 's/\\e/\\/g' "$example"
    "$petricore" --config "$example" report not-a-job >/dev/null 2>"$tmp/err"
    if grep -q "not a Slurm job id" "$tmp/err"; then
      ok "$page: the config example $(basename "$example" .toml) ($(grep -c '^\[' "$example") sections) is accepted"
    else
      not_ok "$page: config example $(basename "$example" .toml) refused: $(head -n 1 "$tmp/err")"
    fi
  done
done

# ---- installation ----

# man/meson.build installs exactly the pages in man/.
listed=$(grep -oE "'[a-z-]+\.1'" "$man_dir/meson.build" | tr -d "'" | sort)
present=$(find "$man_dir" -maxdepth 1 -name '*.1' -printf '%f\n' | sort)
if grep -q 'install_man' "$man_dir/meson.build" && [ "$listed" = "$present" ] && [ "$(echo "$listed" | wc -l)" -eq 6 ]; then
  ok "man/meson.build install_man()s the six pages"
else
  not_ok "man/meson.build lists '$(echo "$listed" | tr '\n' ' ')', man/ holds '$(echo "$present" | tr '\n' ' ')'"
fi

# A real install of the man pages (install tag "man") into a scratch DESTDIR,
# when the binary sits in a meson build directory.
build_dir=$(cd "$(dirname "$petricore")/.." && pwd)
if [ -f "$build_dir/meson-private/install.dat" ] && command -v meson >/dev/null; then
  if meson install -C "$build_dir" --no-rebuild --tags man --destdir "$tmp/dest" >"$tmp/install.log" 2>&1; then
    installed=$(find "$tmp/dest" -path '*/share/man/man1/*' -type f -printf '%f\n' | sort)
    if [ "$installed" = "$present" ]; then
      ok "meson install --destdir puts the six pages under share/man/man1"
    else
      not_ok "meson install put '$(echo "$installed" | tr '\n' ' ')' under share/man/man1"
    fi
  else
    not_ok "meson install --tags man failed: $(tail -n 3 "$tmp/install.log" | tr '\n' ' ')"
  fi
else
  echo "# no meson build directory at $build_dir: the DESTDIR install is not checked"
fi

summary
[ "$failed" -eq 0 ]
