"""Starting weights from an exported model: fine-tuning (`mango train bruise`) begins from the model in
force, which exists only as ONNX (the exporter folded each BatchNorm into its convolution).

Each Conv node of the graph, in order, gives the weight and bias of the network's convolutions in the
order `forward` runs them (stem, down2, down3, down4, up3, up2, up1, head). A folded convolution's
BatchNorm becomes the identity plus the folded bias: weight 1, bias b, running mean 0, running
variance 1 - eps (so (x - 0) / sqrt(var + eps) = x). Those BatchNorms stay in eval mode while
fine-tuning (`freeze_batchnorm`): their statistics are not re-estimated from a handful of photos.
"""
import numpy as np
import torch
import torch.nn as nn


def _convs(net):
    """The network's convolutions with the BatchNorm that follows each (None for the head), in order."""
    out = []
    for m in net.modules():
        if isinstance(m, nn.Sequential) and len(m) == 3 and isinstance(m[0], nn.Conv2d) and isinstance(m[1], nn.BatchNorm2d):
            out.append((m[0], m[1]))
    out.append((net.head, None))
    return out


def load_onnx(net, path):
    import onnx
    from onnx import numpy_helper

    model = onnx.load(path)
    inits = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    nodes = [n for n in model.graph.node if n.op_type == 'Conv']
    convs = _convs(net)
    if len(nodes) != len(convs):
        raise ValueError(f'{path}: {len(nodes)} convolutions, the network has {len(convs)}')
    with torch.no_grad():
        for node, (conv, bn) in zip(nodes, convs):
            w = inits[node.input[1]]
            b = inits[node.input[2]] if len(node.input) > 2 else np.zeros(w.shape[0], np.float32)
            if tuple(w.shape) != tuple(conv.weight.shape):
                raise ValueError(f'{path}: {node.name} has weights {w.shape}, the network {tuple(conv.weight.shape)}')
            conv.weight.copy_(torch.from_numpy(w.copy()))
            if bn is None:
                conv.bias.copy_(torch.from_numpy(b.copy()))
            else:
                bn.weight.fill_(1.0)
                bn.bias.copy_(torch.from_numpy(b.copy()))
                bn.running_mean.zero_()
                bn.running_var.fill_(1.0 - bn.eps)
    return net


def freeze_batchnorm(net):
    """BatchNorm layers in eval mode (call after net.train())."""
    for m in net.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.eval()
