#!/usr/bin/python3
"""PyTorch's side of bench/train: the same training steps as train_bench.cc
(MLP 784-512-512-10 at batch 64, also with a written-out GELU, digits CNN
at batch 32, LeNet-5 at batch 64, an Elman RNN 32 -> 128 over 50 steps at
batch 32; SGD momentum 0.9), eager and TorchScript (torch.jit.script of the model), on one thread.

usage: torch_train.py [--model mlp|cnn|lenet|rnn|gelu] [--seconds S]
"""
import argparse
import time

import torch

torch.set_num_threads(1)


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.l = torch.nn.ModuleList([torch.nn.Linear(a, b) for a, b in ((784, 512), (512, 512), (512, 10))])

    def forward(self, x):
        x = torch.relu(self.l[0](x))
        x = torch.relu(self.l[1](x))
        return self.l[2](x)


def gelu(x):
    return x * 0.5 * (torch.tanh((x + x * x * x * 0.044715) * 0.7978845608) + 1.0)


class GeluMlp(Mlp):
    """The MLP with GELU's tanh approximation written out (as train_bench's)."""

    def forward(self, x):
        x = gelu(self.l[0](x))
        x = gelu(self.l[1](x))
        return self.l[2](x)


class Cnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(1, 8, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(8, 16, 3, padding=1)
        self.fc = torch.nn.Linear(256, 10)

    def forward(self, x):
        x = torch.max_pool2d(torch.relu(self.conv1(x)), 2)
        x = torch.relu(self.conv2(x))
        return self.fc(x.flatten(1))


class LeNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(1, 6, 5)
        self.c2 = torch.nn.Conv2d(6, 16, 5)
        self.f1 = torch.nn.Linear(256, 120)
        self.f2 = torch.nn.Linear(120, 10)

    def forward(self, x):
        x = torch.nn.functional.avg_pool2d(torch.relu(self.c1(x)), 2)
        x = torch.max_pool2d(torch.relu(self.c2(x)), 2)
        return self.f2(torch.relu(self.f1(x.flatten(1))))


class Rnn(torch.nn.Module):
    """The loop written out, as train_bench's while_loop (x: [steps, batch, 32])."""

    def __init__(self):
        super().__init__()
        self.wx = torch.nn.Linear(32, 128, bias=False)
        self.wh = torch.nn.Linear(128, 128)
        self.out = torch.nn.Linear(128, 10)

    def forward(self, x):
        h = torch.zeros(x.shape[1], 128)
        for t in range(x.shape[0]):
            h = torch.tanh(self.wx(x[t]) + self.wh(h))
        return self.out(h)


def bench(model, x, y, seconds):
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

    def step():
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss

    for _ in range(5):
        step()
    times = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        t0 = time.perf_counter()
        loss = step()
        times.append((time.perf_counter() - t0) * 1e6)
    times.sort()
    return times[0], times[len(times) // 2], len(times), loss.item()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model", default="mlp")
    p.add_argument("--seconds", type=float, default=2)
    a = p.parse_args()
    torch.manual_seed(0)
    if a.model in ("mlp", "gelu"):
        x, y = torch.rand(64, 784), torch.randint(0, 10, (64,))
        make = Mlp if a.model == "mlp" else GeluMlp
    elif a.model == "rnn":
        x, y = torch.rand(50, 32, 32) * 2 - 1, torch.randint(0, 10, (32,))
        make = Rnn
    elif a.model == "lenet":
        x, y = torch.rand(64, 1, 28, 28), torch.randint(0, 10, (64,))
        make = LeNet
    else:
        x, y = torch.rand(32, 1, 8, 8), torch.randint(0, 10, (32,))
        make = Cnn
    for name, model in (("eager", make()), ("torchscript", torch.jit.script(make()))):
        mn, med, n, loss = bench(model, x, y, a.seconds)
        print(f"pytorch {name} {a.model}: min {mn:.1f} us, median {med:.1f} us, {n} steps, loss {loss:.4f}")


if __name__ == "__main__":
    main()
