#!/usr/bin/env bash
# Pretrains all three models in sequence (npm run pretrain). Each stage writes
# src/model/weights/<model>.ts; forecastmodel-2.1 starts from forecastmodel-1's
# trained weights, so the build is refreshed in between.
set -euo pipefail
cd "$(dirname "$0")/.."
build() { npx tsc -p tsconfig.build.json || echo "(type errors elsewhere in the tree; JavaScript was still emitted)"; }
build
node dist/bench/pretrain.js --model forecastmodel-1 --seed fm1-v5 --steps 15000 --batch 256 --lr 0.001 --warmup 300
build
node dist/bench/pretrain.js --model forecastmodel-2.1 --init forecastmodel-1 --seed fm21-v5 --steps 1200 --batch 256 --lr 0.0005 --warmup 100
node dist/bench/pretrain.js --model forecastmodel-1-long-horizon --seed fm1long-v5 --steps 2000 --batch 128 --lr 0.001 --warmup 200
build
