#!/usr/bin/env bash
# Pretrains all three models in sequence (npm run pretrain). Each stage writes
# src/model/weights/<model>.ts; forecastmodel-2.1 starts from forecastmodel-1's
# trained weights, so the build is refreshed in between.
#
# Two stages per model: "point" trains the point network (MAE), "spread" then
# trains the spread head alone (quantile loss) on the frozen point network.
# The point stage never reads the spread head, so its output does not depend
# on it. `bash tools/pretrain-all.sh --spread-only` reruns only the spread
# stages on the shipped point networks.
set -euo pipefail
cd "$(dirname "$0")/.."
build() { npx tsc -p tsconfig.build.json || echo "(type errors elsewhere in the tree; JavaScript was still emitted)"; }
point=1
if [ "${1:-}" = "--spread-only" ]; then point=0; fi
build
if [ $point = 1 ]; then
  node dist/tools/pretrain.js --model forecastmodel-1 --seed fm1-v5 --steps 15000 --batch 256 --lr 0.001 --warmup 300
  build
fi
node dist/tools/pretrain.js --model forecastmodel-1 --init forecastmodel-1 --stage spread --seed fm1-v5-spread --steps 8000 --batch 256 --lr 0.001 --warmup 100
build
if [ $point = 1 ]; then
  node dist/tools/pretrain.js --model forecastmodel-2.1 --init forecastmodel-1 --seed fm21-v5 --steps 1200 --batch 256 --lr 0.0005 --warmup 100
  build
fi
node dist/tools/pretrain.js --model forecastmodel-2.1 --init forecastmodel-2.1 --stage spread --seed fm21-v5-spread --steps 3000 --batch 256 --lr 0.0005 --warmup 100
if [ $point = 1 ]; then
  node dist/tools/pretrain.js --model forecastmodel-1-long-horizon --seed fm1long-v5 --steps 2000 --batch 128 --lr 0.001 --warmup 200
  build
fi
node dist/tools/pretrain.js --model forecastmodel-1-long-horizon --init forecastmodel-1-long-horizon --stage spread --seed fm1long-v5-spread --steps 4000 --batch 128 --lr 0.001 --warmup 100
build
