#!/usr/bin/env python3
"""Exports the real models of tfn's ONNX tests from PyTorch (Debian's
python3-torch and python3-torchvision), with random weights from a fixed
seed, at opset 17: resnet18, mobilenet_v2, a segmentation net
(deeplabv3_mobilenet_v3_large: dilated convs, ASPP on a 14x14 map, bilinear
resize to the input size, hardswish, squeeze-excitation) and a
TransformerEncoderLayer with a dynamic sequence length, and one sequence
first with dynamic batch and sequence, and two-layer bidirectional LSTM, GRU
and RNN with a dynamic batch. Writes NAME.onnx, NAME_input.npy and
NAME_output.npy (PyTorch's output) into OUT_DIR. Nothing here is committed:
the test suite runs this script.

usage: make_models.py OUT_DIR
"""
import os
import sys

import numpy as np
import torch
import torchvision


def randomize_batchnorm(model, generator):
    # Default running statistics (0 and 1) would make batch norm an identity;
    # random ones exercise the import for real.
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.running_mean.copy_(torch.randn(m.num_features, generator=generator) * 0.1)
            m.running_var.copy_(torch.rand(m.num_features, generator=generator) * 0.5 + 0.75)
            m.weight.data.copy_(torch.rand(m.num_features, generator=generator) * 0.5 + 0.75)
            m.bias.data.copy_(torch.randn(m.num_features, generator=generator) * 0.1)


class Recurrent(torch.nn.Module):
    """Two bidirectional layers of nn.LSTM, nn.GRU or nn.RNN, batch first;
    ONNX gets the sequence output."""

    def __init__(self, cls):
        super().__init__()
        self.net = cls(16, 24, num_layers=2, bidirectional=True, batch_first=True)

    def forward(self, x):
        return self.net(x)[0]


class SegmentationOut(torch.nn.Module):
    """torchvision's segmentation nets return a dict; ONNX gets its "out"."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        return self.net(x)["out"]


def export(out_dir, name, model, x, dynamic_axes=None):
    model.eval()
    # Gradients stay enabled: under no_grad PyTorch 1.13 takes a fused fast
    # path for TransformerEncoderLayer that cannot be exported to ONNX.
    y = model(x).detach()
    torch.onnx.export(model, (x,), os.path.join(out_dir, name + ".onnx"), opset_version=17,
                      input_names=["x"], output_names=["y"], dynamic_axes=dynamic_axes)
    np.save(os.path.join(out_dir, name + "_input.npy"), x.numpy())
    np.save(os.path.join(out_dir, name + "_output.npy"), y.numpy())


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    torch.manual_seed(20261130)
    g = torch.Generator().manual_seed(7)
    resnet = torchvision.models.resnet18(weights=None)
    with torch.no_grad():
        randomize_batchnorm(resnet, g)
    export(out_dir, "resnet18", resnet, torch.rand(1, 3, 224, 224, generator=g))
    mobilenet = torchvision.models.mobilenet_v2(weights=None)
    with torch.no_grad():
        randomize_batchnorm(mobilenet, g)
    export(out_dir, "mobilenet_v2", mobilenet, torch.rand(1, 3, 224, 224, generator=g))
    deeplab = torchvision.models.segmentation.deeplabv3_mobilenet_v3_large(weights=None,
                                                                           weights_backbone=None)
    with torch.no_grad():
        randomize_batchnorm(deeplab, g)
    export(out_dir, "deeplabv3_mobilenet_v3_large", SegmentationOut(deeplab),
           torch.rand(1, 3, 224, 224, generator=g))
    encoder = torch.nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128, dropout=0.0,
                                               batch_first=True)
    export(out_dir, "transformer_encoder", encoder, torch.randn(2, 10, 64, generator=g),
           dynamic_axes={"x": {1: "seq"}, "y": {1: "seq"}})
    # A second sequence length for the same model (its seq dim is dynamic).
    x7 = torch.randn(2, 7, 64, generator=g)
    np.save(os.path.join(out_dir, "transformer_encoder_seq7_input.npy"), x7.numpy())
    np.save(os.path.join(out_dir, "transformer_encoder_seq7_output.npy"), encoder(x7).detach().numpy())
    # Sequence first (nn.MultiheadAttention's own layout) with batch and
    # sequence both dynamic: its heads are split by reshapes to
    # [batch*heads, seq, 64] and back to [batch, heads, seq, 64], targets with
    # several dims known only from Shape(x).
    seq_first = torch.nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128,
                                                 dropout=0.0, batch_first=False)
    export(out_dir, "transformer_dynamic", seq_first, torch.randn(10, 2, 64, generator=g),
           dynamic_axes={"x": {0: "seq", 1: "batch"}, "y": {0: "seq", 1: "batch"}})
    x75 = torch.randn(7, 5, 64, generator=g)
    np.save(os.path.join(out_dir, "transformer_dynamic_seq7_batch5_input.npy"), x75.numpy())
    np.save(os.path.join(out_dir, "transformer_dynamic_seq7_batch5_output.npy"),
            seq_first(x75).detach().numpy())
    # Recurrent layers (ONNX LSTM, GRU, RNN) over 12 steps, the batch dynamic.
    for name, cls in (("lstm", torch.nn.LSTM), ("gru", torch.nn.GRU), ("rnn", torch.nn.RNN)):
        net = Recurrent(cls)
        export(out_dir, name, net, torch.randn(3, 12, 16, generator=g),
               dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}})
        x5 = torch.randn(5, 12, 16, generator=g)
        np.save(os.path.join(out_dir, name + "_batch5_input.npy"), x5.numpy())
        np.save(os.path.join(out_dir, name + "_batch5_output.npy"), net(x5).detach().numpy())
    print("wrote resnet18, mobilenet_v2, deeplabv3_mobilenet_v3_large, transformer_encoder, "
          "transformer_dynamic, lstm, gru, rnn to " + out_dir)


if __name__ == "__main__":
    main()
