#!/usr/bin/env bash
# The C++ sources are formatted as .clang-format says: `clang-format
# --dry-run -Werror` finds nothing to change in any of them. Which files:
# every tracked *.cpp / *.hpp under src/ and test/ (fixtures aside), or, with
# FORMAT_BASE=<git rev>, only those changed since that revision (what a
# pre-commit run wants). The check is checked too: a copy of one source with
# its indentation broken must fail it.
#
# clang-format's output differs between major versions; Debian 12's
# clang-format 14 is the reference (scripts/install-deps installs it).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/../../scripts/lib/tap.sh
source "$here/../../scripts/lib/tap.sh"
root=$(cd "$here/../.." && pwd)
cd "$root" || bail "cannot enter $root"

command -v clang-format >/dev/null || skip "clang-format is not installed"
major=$(clang-format --version | sed -n 's/.*version \([0-9]*\).*/\1/p')
[ "$major" = 14 ] || skip "clang-format $major is not the reference version 14 (Debian 12)"

# The files: from git when this is a checkout, else every source on disk.
if git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
  if [ -n "${FORMAT_BASE:-}" ]; then
    mapfile -t files < <(git diff --name-only --diff-filter=ACMR "$FORMAT_BASE" -- 'src/*.cpp' 'src/*.hpp' \
      'test/*.cpp' 'test/*.hpp' | grep -v '^test/fixtures/')
  else
    mapfile -t files < <(git ls-files -- 'src/*.cpp' 'src/*.hpp' 'test/*.cpp' 'test/*.hpp' | grep -v '^test/fixtures/')
  fi
else
  mapfile -t files < <(find src test -path test/fixtures -prune -o \( -name '*.cpp' -o -name '*.hpp' \) -print | sort)
fi

unformatted=()
for f in "${files[@]}"; do
  [ -f "$f" ] || continue
  clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || unformatted+=("$f")
done
if [ ${#unformatted[@]} -eq 0 ]; then
  ok "${#files[@]} C++ files are formatted as .clang-format says"
else
  not_ok "${#unformatted[@]} of ${#files[@]} C++ files need clang-format -i: ${unformatted[*]}"
fi

# The check itself: a copy with a line's indentation broken must fail.
tmp=$(mktemp -d) || bail "no temp dir"
trap 'rm -rf "$tmp"' EXIT
cp .clang-format "$tmp/"
sed '0,/^  [a-z]/s//        &/' src/main.cpp >"$tmp/main.cpp"
if ! cmp -s src/main.cpp "$tmp/main.cpp" && ! clang-format --dry-run -Werror "$tmp/main.cpp" >/dev/null 2>&1; then
  ok "a source with a broken indentation fails the check"
else
  not_ok "a source with a broken indentation fails the check"
fi

summary
[ "$failed" -eq 0 ]
