#!/usr/bin/python3
"""PyTorch 1.13's training runs that tests/training/training_test.cc follows.

Two models on scikit-learn's digits (8x8 images, 10 classes): a 2-layer MLP
(64-32-10) and a small CNN (conv 3x3 -> relu -> max pool -> conv 3x3 -> relu
-> linear), each trained 50 steps from fixed initial weights on fixed batches
with SGD (momentum 0.9), Adam and AdamW. Writes, per model, the initial
weights in tfn's layouts (linear [in, out], conv HWIO, images NHWC), the
batches, and per optimizer the 50 losses. Nothing is downloaded.

usage: make_torch_reference.py OUTDIR
"""
import os
import sys

import numpy as np
import torch
from sklearn.datasets import load_digits

STEPS = 50
BATCH = 32


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(64, 32)
        self.fc2 = torch.nn.Linear(32, 10)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))

    def tfn_weights(self):
        return {"w1": self.fc1.weight.T, "b1": self.fc1.bias,
                "w2": self.fc2.weight.T, "b2": self.fc2.bias}


class Cnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(1, 8, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(8, 16, 3, padding=1)
        self.fc = torch.nn.Linear(4 * 4 * 16, 10)

    def forward(self, x):  # x: NHWC, as tfn takes it
        x = x.permute(0, 3, 1, 2)
        x = torch.max_pool2d(torch.relu(self.conv1(x)), 2)
        x = torch.relu(self.conv2(x))
        return self.fc(x.permute(0, 2, 3, 1).flatten(1))  # NHWC flatten, as tfn's reshape

    def tfn_weights(self):
        hwio = lambda w: w.permute(2, 3, 1, 0)
        return {"c1": hwio(self.conv1.weight), "c1b": self.conv1.bias,
                "c2": hwio(self.conv2.weight), "c2b": self.conv2.bias,
                "w": self.fc.weight.T, "b": self.fc.bias}


OPTIMIZERS = {
    "sgd": lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9),
    "adam": lambda p: torch.optim.Adam(p, lr=0.01),
    "adamw": lambda p: torch.optim.AdamW(p, lr=0.01, weight_decay=0.05),
}


def save(path, array):
    np.save(path, np.ascontiguousarray(array))


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    digits = load_digits()
    x = (digits.data / 16.0).astype(np.float32)
    y = digits.target.astype(np.int64)
    rng = np.random.default_rng(0)
    order = rng.permutation(len(x))[: STEPS * BATCH]
    for name, make, shape in (("mlp", Mlp, (-1, 64)), ("cnn", Cnn, (-1, 8, 8, 1))):
        torch.manual_seed(1)
        model = make()
        initial = {k: v.detach().numpy().copy() for k, v in model.tfn_weights().items()}
        for k, v in initial.items():
            save(os.path.join(out, f"{name}_{k}.npy"), v)
        xb = x[order].reshape((STEPS, BATCH) + shape[1:])
        yb = y[order].reshape(STEPS, BATCH)
        save(os.path.join(out, f"{name}_x.npy"), xb)
        save(os.path.join(out, f"{name}_y.npy"), yb)
        state = {k: v.clone() for k, v in model.state_dict().items()}
        for opt_name, make_opt in OPTIMIZERS.items():
            model.load_state_dict(state)
            opt = make_opt(model.parameters())
            losses = []
            for step in range(STEPS):
                opt.zero_grad()
                loss = torch.nn.functional.cross_entropy(
                    model(torch.from_numpy(xb[step])), torch.from_numpy(yb[step]))
                loss.backward()
                opt.step()
                losses.append(loss.item())
            save(os.path.join(out, f"{name}_{opt_name}_losses.npy"), np.array(losses, np.float32))
    with open(os.path.join(out, "reference.txt"), "w") as f:
        f.write(f"torch {torch.__version__}\n")


if __name__ == "__main__":
    main()
