#!/usr/bin/env python3
"""tfn's model zoo (issue 19): real architectures exported from PyTorch 1.13
(Debian's python3-torch and python3-torchvision) to ONNX at opset 17, with
random weights from fixed seeds. Nothing is downloaded and nothing here is
committed: the test suite (tests/zoo/zoo_test.cc) and the comparison with
ONNX Runtime (bench/compare/run.sh --zoo) run this script.

The zoo covers the families people deploy: plain convnets, residual nets with
grouped convs, dense concatenation, inception branches, mobile nets
(depthwise convs of several kernel sizes, hardswish/SiLU, squeeze-excitation),
channel shuffle, ConvNeXt, vision transformers (ViT, Swin), segmentation
(dilated convs, ASPP, bilinear resize), a U-Net, recurrent layers (LSTM, GRU,
RNN; bidirectional, two layers; a GRU over 70 steps) and a GPT-2-style causal
decoder with token embeddings, dynamic batch and sequence.

For each model NAME it writes NAME.onnx and, per case, CASE_input.npy and
CASE_output.npy (PyTorch's output; the first case is NAME itself, further
ones change the model's dynamic dims), and a manifest zoo.txt: one line per
model, "NAME CASE..." (models with dynamic dims have several cases).

usage: make_zoo.py OUT_DIR [NAME...]     (default: every model)
       make_zoo.py --list
"""
import os
import sys

import numpy as np
import torch
from torchvision import models as tvm

OPSET = 17


def randomize(model, generator):
    """Random batch-norm statistics and affine terms (the defaults, 0 and 1,
    would make batch norm an identity), and a random head where torchvision
    initializes one to zeros (ViT): the output must depend on every layer."""
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, (torch.nn.BatchNorm1d, torch.nn.BatchNorm2d)):
                n = m.num_features
                m.running_mean.copy_(torch.randn(n, generator=generator) * 0.1)
                m.running_var.copy_(torch.rand(n, generator=generator) * 0.5 + 0.75)
                m.weight.copy_(torch.rand(n, generator=generator) * 0.5 + 0.75)
                m.bias.copy_(torch.randn(n, generator=generator) * 0.1)
            elif isinstance(m, torch.nn.Linear) and not m.weight.any():
                m.weight.copy_(torch.randn(m.weight.shape, generator=generator) * 0.02)
    return model


class DictOut(torch.nn.Module):
    """torchvision's segmentation nets return a dict; ONNX gets its "out"."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        return self.net(x)["out"]


class Recurrent(torch.nn.Module):
    """Two bidirectional layers of nn.LSTM, nn.GRU or nn.RNN, batch first;
    ONNX gets the sequence output."""

    def __init__(self, cls, features, hidden):
        super().__init__()
        self.net = cls(features, hidden, num_layers=2, bidirectional=True, batch_first=True)

    def forward(self, x):
        return self.net(x)[0]


class LongRecurrent(torch.nn.Module):
    """One nn.GRU layer over a sequence longer than 64 steps: the split and
    concat of its unrolled steps have an operand per step (a 64-operand
    limit in the runtime's shape inference, and the code generator's value
    cache keyed by node * 64 + port, broke such models)."""

    def __init__(self):
        super().__init__()
        self.net = torch.nn.GRU(16, 32, batch_first=True)

    def forward(self, x):
        return self.net(x)[0]


class UNet(torch.nn.Module):
    """A small U-Net (Ronneberger et al.): three down steps of two 3x3
    conv-BN-ReLU and 2x2 max pooling, a bottleneck, three up steps of a 2x2
    stride-2 ConvTranspose, a skip concatenation and two 3x3 convs, and a 1x1
    head with two classes."""

    def __init__(self, channels=(16, 32, 64, 128)):
        super().__init__()

        def block(cin, cout):
            return torch.nn.Sequential(
                torch.nn.Conv2d(cin, cout, 3, padding=1, bias=False), torch.nn.BatchNorm2d(cout),
                torch.nn.ReLU(inplace=True), torch.nn.Conv2d(cout, cout, 3, padding=1, bias=False),
                torch.nn.BatchNorm2d(cout), torch.nn.ReLU(inplace=True))

        c = channels
        self.down = torch.nn.ModuleList([block(3, c[0]), block(c[0], c[1]), block(c[1], c[2])])
        self.bottom = block(c[2], c[3])
        self.up = torch.nn.ModuleList([torch.nn.ConvTranspose2d(c[i + 1], c[i], 2, stride=2)
                                       for i in reversed(range(3))])
        self.up_blocks = torch.nn.ModuleList([block(2 * c[i], c[i]) for i in reversed(range(3))])
        self.head = torch.nn.Conv2d(c[0], 2, 1)

    def forward(self, x):
        skips = []
        for b in self.down:
            x = b(x)
            skips.append(x)
            x = torch.nn.functional.max_pool2d(x, 2)
        x = self.bottom(x)
        for up, b, skip in zip(self.up, self.up_blocks, reversed(skips)):
            x = b(torch.cat([up(x), skip], dim=1))
        return self.head(x)


class CausalDecoder(torch.nn.Module):
    """A GPT-2-style decoder as Hugging Face writes it: token and position
    embeddings, pre-LayerNorm blocks of causal self-attention (the mask a
    buffer [1, 1, max, max] sliced to the run's sequence length, heads split
    by reshapes of run-time dims) and a GELU MLP, a final LayerNorm and an LM
    head tied to the token embedding. Input: int64 token ids [batch, seq]."""

    def __init__(self, vocab=512, d=128, heads=4, layers=2, max_len=128):
        super().__init__()
        self.heads = heads
        self.tok = torch.nn.Embedding(vocab, d)
        self.pos = torch.nn.Embedding(max_len, d)
        self.blocks = torch.nn.ModuleList()
        for _ in range(layers):
            self.blocks.append(torch.nn.ModuleDict({
                "ln1": torch.nn.LayerNorm(d), "qkv": torch.nn.Linear(d, 3 * d),
                "proj": torch.nn.Linear(d, d), "ln2": torch.nn.LayerNorm(d),
                "fc": torch.nn.Linear(d, 4 * d), "out": torch.nn.Linear(4 * d, d)}))
        self.ln_f = torch.nn.LayerNorm(d)
        self.register_buffer("mask", torch.tril(torch.ones(max_len, max_len)).view(1, 1, max_len, max_len))

    def forward(self, ids):
        b, t = ids.shape
        pos = torch.arange(t, dtype=torch.long, device=ids.device).unsqueeze(0)
        x = self.tok(ids) + self.pos(pos)
        for blk in self.blocks:
            h = blk["ln1"](x)
            q, k, v = blk["qkv"](h).split(x.size(-1), dim=2)
            split = lambda z: z.view(b, t, self.heads, -1).transpose(1, 2)  # noqa: E731
            q, k, v = split(q), split(k), split(v)
            att = (q @ k.transpose(-2, -1)) * (1.0 / float(np.sqrt(k.size(-1))))
            att = att.masked_fill(self.mask[:, :, :t, :t] == 0, float("-inf"))
            att = torch.softmax(att, dim=-1)
            y = (att @ v).transpose(1, 2).contiguous().view(b, t, -1)
            x = x + blk["proj"](y)
            x = x + blk["out"](torch.nn.functional.gelu(blk["fc"](blk["ln2"](x))))
        return self.ln_f(x) @ self.tok.weight.t()


def image(n=1, size=224):
    return lambda g: torch.rand(n, 3, size, size, generator=g)


def tv(name, **kwargs):
    return lambda: getattr(tvm, name)(weights=None, **kwargs)


def seg(name):
    return lambda: DictOut(getattr(tvm.segmentation, name)(weights=None, weights_backbone=None))


def encoder(batch_first):
    return lambda: torch.nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128,
                                                    dropout=0.0, batch_first=batch_first)


BATCH = {"x": {0: "batch"}, "y": {0: "batch"}}


def recurrent(cls):
    """Two bidirectional layers over 32 steps of 64 features, hidden 128, at
    batch 1 and 5."""
    return (lambda: Recurrent(cls, 64, 128),
            [lambda g: torch.randn(1, 32, 64, generator=g),
             lambda g: torch.randn(5, 32, 64, generator=g)], BATCH)


# name: (constructor, inputs of each case (a function of a torch.Generator;
# the first case is the one exported), dynamic axes). Images are 224x224 but
# where the architecture asks for another size.
ZOO = {
    # Plain convnets.
    "alexnet": (tv("alexnet"), [image()], None),
    "vgg11": (tv("vgg11"), [image()], None),
    # Residual nets, grouped convs, dense concatenation, inception branches.
    "resnet18": (tv("resnet18"), [image()], None),
    "resnet50": (tv("resnet50"), [image(), image(2)], BATCH),
    "resnext50_32x4d": (tv("resnext50_32x4d"), [image()], None),
    "densenet121": (tv("densenet121"), [image()], None),
    "googlenet": (tv("googlenet", aux_logits=False, init_weights=True), [image()], None),
    "inception_v3": (tv("inception_v3", aux_logits=False, init_weights=True), [image(1, 299)], None),
    # Mobile nets: depthwise convs (3x3, 5x5, strides 1 and 2), hardswish,
    # hardsigmoid, SiLU, squeeze-excitation; channel shuffle; fire modules.
    "mobilenet_v2": (tv("mobilenet_v2"), [image()], None),
    "mobilenet_v3_small": (tv("mobilenet_v3_small"), [image()], None),
    "mobilenet_v3_large": (tv("mobilenet_v3_large"), [image(), image(3)], BATCH),
    "mnasnet0_5": (tv("mnasnet0_5"), [image()], None),
    "efficientnet_b0": (tv("efficientnet_b0"), [image()], None),
    "regnet_x_400mf": (tv("regnet_x_400mf"), [image()], None),
    "regnet_y_400mf": (tv("regnet_y_400mf"), [image()], None),
    "shufflenet_v2_x0_5": (tv("shufflenet_v2_x0_5"), [image()], None),
    "shufflenet_v2_x1_0": (tv("shufflenet_v2_x1_0"), [image()], None),
    "squeezenet1_1": (tv("squeezenet1_1"), [image()], None),
    # ConvNeXt (7x7 depthwise, LayerNorm over channels, permutes) and vision
    # transformers (ViT; Swin with window partition and roll).
    "convnext_tiny": (tv("convnext_tiny"), [image()], None),
    "vit_b_16": (tv("vit_b_16"), [image()], None),
    "swin_t": (tv("swin_t"), [image()], None),
    # Segmentation: dilated convs, ASPP, bilinear resize; a U-Net.
    "deeplabv3_mobilenet_v3_large": (seg("deeplabv3_mobilenet_v3_large"), [image()], None),
    "lraspp_mobilenet_v3_large": (seg("lraspp_mobilenet_v3_large"), [image()], None),
    "fcn_resnet50": (seg("fcn_resnet50"), [image()], None),
    "unet": (UNet, [image(1, 256)], None),
    # Sequence models: recurrent layers over 32 steps (batch dynamic), and
    # transformer encoder layers, batch first with a dynamic sequence, and
    # sequence first with dynamic batch and sequence (heads split by reshapes
    # to targets of several run-time dims).
    "lstm": recurrent(torch.nn.LSTM),
    "gru": recurrent(torch.nn.GRU),
    "rnn": recurrent(torch.nn.RNN),
    "gru_long": (LongRecurrent, [lambda g: torch.randn(1, 70, 16, generator=g)], None),
    "transformer_encoder": (encoder(True),
                            [lambda g: torch.randn(2, 10, 64, generator=g),
                             lambda g: torch.randn(2, 7, 64, generator=g)],
                            {"x": {1: "seq"}, "y": {1: "seq"}}),
    "transformer_dynamic": (encoder(False),
                            [lambda g: torch.randn(10, 2, 64, generator=g),
                             lambda g: torch.randn(7, 5, 64, generator=g)],
                            {"x": {0: "seq", 1: "batch"}, "y": {0: "seq", 1: "batch"}}),
    "causal_decoder": (CausalDecoder,
                       [lambda g: torch.randint(0, 512, (1, 64), generator=g),
                        lambda g: torch.randint(0, 512, (3, 17), generator=g)],
                       {"x": {0: "batch", 1: "seq"}, "y": {0: "batch", 1: "seq"}}),
}


def case_names(name):
    cases = ZOO[name][1]
    return [name] + ["%s_case%d" % (name, i) for i in range(1, len(cases))]


def export(out_dir, name):
    make, cases, dynamic_axes = ZOO[name]
    # One seed per model, from its name: a model's weights and inputs do not
    # change when others are added or left out.
    seed = sum(ord(c) * 31 ** i for i, c in enumerate(name)) % (2 ** 31)
    torch.manual_seed(seed)
    g = torch.Generator().manual_seed(seed)
    model = randomize(make(), g).eval()
    inputs = [c(g) for c in cases]
    # Gradients stay enabled: under no_grad PyTorch 1.13 takes a fused fast
    # path for TransformerEncoderLayer that cannot be exported to ONNX.
    torch.onnx.export(model, (inputs[0],), os.path.join(out_dir, name + ".onnx"),
                      opset_version=OPSET, input_names=["x"], output_names=["y"],
                      dynamic_axes=dynamic_axes)
    for case, x in zip(case_names(name), inputs):
        np.save(os.path.join(out_dir, case + "_input.npy"), x.numpy())
        np.save(os.path.join(out_dir, case + "_output.npy"), model(x).detach().numpy())


def main():
    args = sys.argv[1:]
    if args == ["--list"]:
        print(" ".join(ZOO))
        return
    if not args or args[0].startswith("-"):
        sys.exit(__doc__)
    out_dir, names = args[0], args[1:] or list(ZOO)
    unknown = [n for n in names if n not in ZOO]
    if unknown:
        sys.exit("make_zoo.py: no model %s in the zoo (known: %s)" % (", ".join(unknown), " ".join(ZOO)))
    os.makedirs(out_dir, exist_ok=True)
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    for name in names:
        export(out_dir, name)
        print("make_zoo.py: wrote " + name, flush=True)
    # The manifest is written last and atomically: a run that stops midway
    # leaves no manifest naming models it did not write.
    tmp = os.path.join(out_dir, "zoo.txt.tmp")
    with open(tmp, "w") as f:
        for name in names:
            f.write(" ".join(case_names(name)) + "\n")
    os.replace(tmp, os.path.join(out_dir, "zoo.txt"))


if __name__ == "__main__":
    main()
