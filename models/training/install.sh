#!/usr/bin/env bash
# Installs what training the bruise model needs, from Debian's packages (run as root):
# torch 1.13 (CPU), onnx, scipy, scikit-image, Pillow and OpenCV (GrabCut starts of annotation masks) for /usr/bin/python3.
set -euo pipefail
if /usr/bin/python3 -c 'import torch, onnx, scipy, skimage, PIL, cv2' 2>/dev/null; then
  echo "training dependencies: already installed"
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq python3-torch python3-onnx python3-scipy python3-skimage python3-pil python3-opencv >/dev/null
/usr/bin/python3 -c 'import torch, onnx; print("torch", torch.__version__, "onnx", onnx.__version__)'
