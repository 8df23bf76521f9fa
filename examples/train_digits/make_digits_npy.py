#!/usr/bin/python3
"""Writes scikit-learn's digits data set (Debian's python3-sklearn ships it;
nothing is downloaded) as .npy files for examples/train_digits: images NHWC
float32 in [0, 1], labels int64, a fixed shuffled 80/20 train/test split.

usage: make_digits_npy.py OUTDIR
"""
import os
import sys

import numpy as np
from sklearn.datasets import load_digits


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    digits = load_digits()
    x = (digits.images / 16.0).astype(np.float32).reshape(-1, 8, 8, 1)
    y = digits.target.astype(np.int64)
    order = np.random.default_rng(0).permutation(len(x))
    split = int(0.8 * len(x))
    for name, idx in (("train", order[:split]), ("test", order[split:])):
        np.save(os.path.join(out, f"x_{name}.npy"), x[idx])
        np.save(os.path.join(out, f"y_{name}.npy"), y[idx])


if __name__ == "__main__":
    main()
