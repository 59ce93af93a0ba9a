#!/usr/bin/env bash
# Usage: tools/plot_sweep.sh SWEEP.json OUT.svg [TITLE] [LEAST_PERCENT_SHOWN]
# Draws the arrived-load curve of a replay sweep (`unisched replay --policy A,B --seeds ...
# --report json`): per policy, the GPU allocation at each arrived load, mean of the seeds, with
# the ideal (allocation = arrived load) for reference. Installs gnuplot and jq if missing.
set -euo pipefail

[ $# -ge 2 ] || { echo "usage: $0 SWEEP.json OUT.svg [TITLE] [LEAST_PERCENT_SHOWN]" >&2; exit 2; }
sweep=$1 out=$2 title=${3:-"GPU allocation by arrived load"} least=${4:-45}
[[ $least =~ ^[0-9]+$ ]] && [ "$least" -lt 100 ] ||
  { echo "error: LEAST_PERCENT_SHOWN must be a whole number below 100, not \"$least\"" >&2; exit 2; }
[ -r "$sweep" ] && [ -s "$sweep" ] || { echo "error: cannot read $sweep, or it is empty" >&2; exit 2; }
missing=()
command -v gnuplot >/dev/null || missing+=(gnuplot-nox)
command -v jq >/dev/null || missing+=(jq)
if [ ${#missing[@]} -gt 0 ]; then
  sudo=(); [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi
jq -e '.runs | length > 0' "$sweep" >/dev/null ||
  { echo "error: $sweep: no \"runs\" (is it the JSON of a sweep?)" >&2; exit 2; }

data=$(mktemp)
trap 'rm -f "$data"' EXIT
# One block per policy (blank lines between): load, mean allocation over its seeds.
jq -r '
  [.runs[] | {policy, a: .allocation}] | group_by(.policy) | .[] |
  ("# " + .[0].policy),
  ([.[].a | to_entries[]] | group_by(.key | tonumber) | .[] |
     "\(.[0].key) \((map(.value) | add) / length)"),
  "", ""' "$sweep" > "$data"
policies=$(jq -r '[.runs[].policy] | unique | .[]' "$sweep")

plot="plot x title 'arrived = allocated' dashtype 2 linecolor rgb 'gray'"
index=0
for policy in $policies; do
  plot+=", '$data' index $index using 1:2 with linespoints title '$policy'"
  index=$((index + 1))
done
gnuplot <<GNUPLOT
set terminal svg size 800,500 dynamic font 'sans,12'
set output '$out'
set title '$title'
set xlabel 'arrived load (% of GPU capacity)'
set ylabel 'GPU allocated (% of capacity)'
set xrange [$((least >= 80 ? 85 : 45)):135]
set yrange [$least:100]
set key bottom right
set grid
$plot
GNUPLOT
echo "wrote $out" >&2
