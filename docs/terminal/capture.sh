#!/usr/bin/env bash
# Run one applyedit command in a detached tmux pane of a given width and save what the screen shows:
# the live progress line every few seconds (only the frames that changed), then the final screen.
#
#   docs/terminal/capture.sh WIDTH OUTDIR -- applyedit fixtures/py_change_constant_instr/before.py \
#       --edit fixtures/py_change_constant_instr/edit.txt --backend llamacpp
#
# OUTDIR/screen-WIDTH-NN.txt are the frames (tmux capture-pane -p), OUTDIR/screen-WIDTH-final.txt the
# last screen; the diff goes to OUTDIR/diff-WIDTH.patch. Needs tmux. Runs the real model when the
# command does: on a shared machine, wrap the call in `flock /tmp/realmodel.lock`.
set -euo pipefail
width=$1 outdir=$2
shift 2
[ "${1:-}" = "--" ] && shift
mkdir -p "$outdir"
session="applyedit-capture-$$"
cmd=$(printf '%q ' "$@")
tmux new-session -d -s "$session" -x "$width" -y 30 \
    "cd $(printf '%q' "$PWD") && $cmd > $(printf '%q' "$outdir/diff-$width.patch"); echo \"exit code \$?\"; sleep 600"
trap 'tmux kill-session -t "$session" 2>/dev/null || true' EXIT
n=0 last=""
while :; do
    sleep "${CAPTURE_EVERY:-2}"
    screen=$(tmux capture-pane -p -t "$session")
    if [ "$screen" != "$last" ]; then
        n=$((n + 1))
        printf '%s\n' "$screen" > "$outdir/screen-$width-$(printf %02d "$n").txt"
        last=$screen
    fi
    if grep -q "^exit code" <<<"$screen"; then
        printf '%s\n' "$screen" > "$outdir/screen-$width-final.txt"
        break
    fi
done
