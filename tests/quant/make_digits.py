#!/usr/bin/env python3
"""The digits model of tfn-quantize's accuracy test: a small CNN trained here
on scikit-learn's digits data set (1797 8x8 images, shipped by Debian's
python3-sklearn; nothing downloaded), exported to ONNX.

It writes into OUT_DIR:
  digits.onnx       input x: f32[batch,1,8,8] (pixels / 16), output logits: f32[batch,10]
  test_x.npy        the held-out split (20%, fixed seed): f32[360,1,8,8]
  test_y.npy        its labels, int64[360]
  calib/NN.npy      8 batches of 32 training images: tfn-quantize's calibration data
  torch_accuracy.txt  PyTorch's held-out top-1 (a fraction)

usage: make_digits.py OUT_DIR      (about 5 s on one core)
"""
import os
import sys

import numpy as np
import torch
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split


class DigitsNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(1, 32, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(32, 64, 3, padding=1)
        self.fc1 = torch.nn.Linear(64 * 4 * 4, 128)
        self.fc2 = torch.nn.Linear(128, 10)

    def forward(self, x):
        x = torch.relu(self.conv1(x))
        x = torch.max_pool2d(torch.relu(self.conv2(x)), 2)
        x = torch.relu(self.fc1(torch.flatten(x, 1)))
        return self.fc2(x)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(os.path.join(out, "calib"), exist_ok=True)
    torch.manual_seed(0)
    torch.set_num_threads(1)
    digits = load_digits()
    x = (digits.images / 16.0).astype(np.float32)[:, None, :, :]
    y = digits.target.astype(np.int64)
    x_train, x_test, y_train, y_test = train_test_split(x, y, test_size=0.2, random_state=0,
                                                        stratify=y)
    model = DigitsNet()
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    xt, yt = torch.from_numpy(x_train), torch.from_numpy(y_train)
    for epoch in range(15):
        perm = torch.randperm(len(xt))
        for i in range(0, len(xt), 64):
            idx = perm[i:i + 64]
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(xt[idx]), yt[idx])
            loss.backward()
            opt.step()
    model.eval()
    with torch.no_grad():
        acc = (model(torch.from_numpy(x_test)).argmax(1).numpy() == y_test).mean()
    print(f"digits: torch held-out top-1 {acc:.4f} on {len(y_test)} images")
    torch.onnx.export(model, torch.from_numpy(x_test[:1]), os.path.join(out, "digits.onnx"),
                      input_names=["x"], output_names=["logits"], opset_version=13,
                      dynamic_axes={"x": {0: "batch"}, "logits": {0: "batch"}})
    np.save(os.path.join(out, "test_x.npy"), x_test)
    np.save(os.path.join(out, "test_y.npy"), y_test)
    for b in range(8):
        np.save(os.path.join(out, "calib", f"{b:02d}.npy"), x_train[b * 32:(b + 1) * 32])
    with open(os.path.join(out, "torch_accuracy.txt"), "w") as f:
        f.write(f"{acc}\n")


if __name__ == "__main__":
    main()
