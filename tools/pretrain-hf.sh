#!/usr/bin/env bash
# Pretrains forecastmodel-1-high-frequency (issue 30): the point stage on
# synthetic hourly and sub-hourly series (tools/pretrain/synthetic-hf.ts) with
# a fifth of the windows from the hourly development series before their
# first development origin (tools/pretrain/pretrain.ts: realHfWindow), then
# the spread stage on the frozen point network. Writes
# src/model/weights/forecastmodel-1-high-frequency.ts and the loss curves in
# tools/pretrain/logs/pretrain-log-forecastmodel-1-high-frequency*.json.
set -euo pipefail
cd "$(dirname "$0")/.."
build() { npx tsc -p tsconfig.build.json || echo "(type errors elsewhere in the tree; JavaScript was still emitted)"; }
build
node dist/tools/pretrain.js --model forecastmodel-1-high-frequency --seed fmhf-v2 --steps 12000 --batch 256 --lr 0.001 --warmup 300 --log-every 250
build
node dist/tools/pretrain.js --model forecastmodel-1-high-frequency --init forecastmodel-1-high-frequency --stage spread --seed fmhf-v2-spread --steps 3000 --batch 256 --lr 0.001 --warmup 100 --log-every 250
build
