#!/usr/bin/env bash
# The rooms of src/ (src/README.md) include only the rooms below them:
#   core <- model <- collect / sources <- analysis <- render <- archive <- serve / report / initdb <- main
# The build proves the same for symbols (src/meson.build's layer_check_*
# shared objects, linked with no undefined symbol allowed); this check also
# catches an include of a header-only part of a room above. And it checks
# itself: an include planted in a copy of a file must be found.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=SCRIPTDIR/../../scripts/lib/tap.sh
source "$here/../../scripts/lib/tap.sh"
src=$(cd "$here/../../src" && pwd) || bail "no src/ next to test/"

# room: the rooms it may include besides itself.
declare -A allowed=(
  [core]=""
  [model]="core"
  [collect]="core model"
  [sources]="core model"
  [analysis]="core model sources"
  [render]="core model"
  [archive]="core model sources analysis render"
  [serve]="core model sources analysis render archive"
  [report]="core model sources analysis render archive"
  [initdb]="core model sources"
)

# crossings DIR ROOM: one line per include of DIR's files that ROOM may not use.
crossings() {
  local dir=$1 room=$2 file target
  while IFS=: read -r file _ target; do
    target=${target#*\"}
    target=${target%%/*}
    [ "$target" = "$room" ] && continue
    [[ " ${allowed[$room]} " == *" $target "* ]] && continue
    [ -d "$src/$target" ] || continue  # "petricore_version.hpp" and the like
    echo "${file#"$src"/} includes $target/"
  done < <(grep -n '^#include "[a-z_]*/' "$dir"/*.cpp "$dir"/*.hpp 2>/dev/null)
}

for room in "${!allowed[@]}"; do
  [ -d "$src/$room" ] || { not_ok "room $room exists"; continue; }
done
for dir in "$src"/*/; do
  room=$(basename "$dir")
  [ -n "${allowed[$room]+set}" ] || { not_ok "src/$room/ is a room of the layering table"; continue; }
  bad=$(crossings "$src/$room" "$room")
  if [ -z "$bad" ]; then
    ok "src/$room/ includes nothing outside itself${allowed[$room]:+ but ${allowed[$room]// /, }}"
  else
    not_ok "src/$room/ crosses the layering: $(echo "$bad" | tr '\n' ';')"
  fi
done

# The check itself: a render file that includes serve/ must be found.
tmp=$(mktemp -d) || bail "no temp dir"
trap 'rm -rf "$tmp"' EXIT
printf '#include "serve/api.hpp"\n' >"$tmp/planted.cpp"
if [ -n "$(crossings "$tmp" render)" ]; then
  ok "an include of serve/ planted in render is found"
else
  not_ok "an include of serve/ planted in render is found"
fi

summary
[ "$failed" -eq 0 ]
