#!/usr/bin/env bash
# npm run train:bruise [-- --folds 5] [-- --smoke]
#
# Rebuilds the shipped bruise model from ../shared/data/bruise-dev with fixed seeds:
#   1. fruit masks of every dev photo from the product's own segmentation (mango bruise --masks),
#   2. training (python3 -m mango_train.train) on every dev photo except the AI CUP set,
#   3. installs models/bruise-unet-320.onnx and writes its sha256 into models/manifest.json.
# With --folds 5 it also trains one model per fold (the fold's source fruit held out), resuming
# fold by fold (a fold whose model.onnx exists is skipped), then scores each held-out fold with the
# product's TypeScript inference (models/training/kfold.ts) into models/training/kfold-report.json.
# With --no-full the shipped model is left as it is (only the folds are trained and scored).
# With --smoke: a few photos and a few steps into a temporary folder (CI's training test).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
data=${MANGO_DATA:-$repo/../shared/data/bruise-dev}
runs=${MANGO_TRAIN_RUNS:-$here/runs}
folds=0
smoke=0
full=1
while [ $# -gt 0 ]; do
  case "$1" in
    --folds) folds=$2; shift 2 ;;
    --smoke) smoke=1; shift ;;
    --no-full) full=0; shift ;;
    *) echo "train:bruise: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -d "$data" ] || { echo "train:bruise: $data is not there (the dev split of ../shared/data)" >&2; exit 2; }
/usr/bin/python3 -c 'import torch, onnx, scipy, skimage, PIL' 2>/dev/null ||
  { echo "train:bruise: python3-torch and friends are missing: run models/training/install.sh" >&2; exit 2; }

mango() { node "$repo/cli/bin/mango.js" "$@"; }
train() { (cd "$here" && /usr/bin/python3 -m mango_train.train --data "$data" --masks "$masks" "$@"); }

if [ $smoke = 1 ]; then
  # A few photos of each kind, their masks, two steps and the ONNX export: the pipeline runs end to end.
  tmp=$(mktemp -d)
  keep=${MANGO_SMOKE_KEEP:-}
  [ -n "$keep" ] || trap 'rm -rf "$tmp"' EXIT
  mkdir -p "$tmp/synthetic_composites" "$tmp/senmango_real_lesions"
  for d in images bruise_masks fruit_masks; do ln -s "$data/synthetic_composites/$d" "$tmp/synthetic_composites/$d"; done
  ln -s "$data/senmango_real_lesions/images" "$tmp/senmango_real_lesions/images"
  cp "$data/synthetic_composites/provenance.csv" "$tmp/synthetic_composites/"
  cp "$data/senmango_real_lesions/provenance.csv" "$tmp/senmango_real_lesions/"
  awk 'NR <= 4' "$data/synthetic_composites/truth.csv" > "$tmp/synthetic_composites/truth.csv"
  awk -F, 'NR == 1 || ($NF + 0 == 0 && h++ < 3) || ($NF + 0 == 1 && l++ < 3)' "$data/senmango_real_lesions/labels.csv" \
    > "$tmp/senmango_real_lesions/labels.csv"
  data=$tmp masks=$tmp/masks
  list() { tail -n +2 "$1" | cut -d, -f1 | sed "s#^#$2/#"; }
  mango bruise $(list "$tmp/synthetic_composites/truth.csv" "$tmp/synthetic_composites/images") --method classical \
    --masks "$masks/composites" --out "$tmp/c.csv"
  mango bruise $(list "$tmp/senmango_real_lesions/labels.csv" "$tmp/senmango_real_lesions/images") --method classical \
    --masks "$masks/senmango" --out "$tmp/s.csv"
  train --out "${keep:-$tmp/out}" --steps 2 --batch 4 --threads 1
  ls -l "${keep:-$tmp/out}/model.onnx"
  exit 0
fi

masks=$runs/masks
mkdir -p "$runs"
if [ ! -f "$masks/.done" ]; then
  echo "train:bruise: fruit masks from the product's segmentation"
  mango bruise "$data/senmango_real_lesions/images" --method classical --masks "$masks/senmango" --out "$runs/senmango.csv"
  mango bruise "$data/synthetic_composites/images" --method classical --masks "$masks/composites" --out "$runs/composites.csv"
  touch "$masks/.done"
fi

if [ $full = 1 ]; then
  train --out "$runs/full"
  cp "$runs/full/model.onnx" "$repo/models/bruise-unet-320.onnx"
  node "$here/install-model.mjs" "$repo/models/bruise-unet-320.onnx" "$runs/full/train.json"
fi

if [ "$folds" -gt 0 ]; then
  for k in $(seq 0 $((folds - 1))); do
    if [ -f "$runs/fold-$k/model.onnx" ]; then echo "train:bruise: fold $k already trained"; continue; fi
    train --out "$runs/fold-$k.partial" --fold "$k" --folds "$folds"
    rm -rf "$runs/fold-$k" && mv "$runs/fold-$k.partial" "$runs/fold-$k"
  done
  (cd "$repo" && node --import tsx "$here/kfold.ts" --runs "$runs" --folds "$folds" --data "$data" \
    --out "$here/kfold-report.json")
fi
