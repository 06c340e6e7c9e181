"""One ONNX file that averages the logits of several trained models of the same input and output.

    python3 -m mango_train.ensemble --out ensemble.onnx runs/a/model.onnx runs/b/model.onnx

The members run side by side on the same `input`; `logits` is their mean (logits, not
probabilities: the product thresholds a logit at 0, so a pixel is lesion when the members' mean
log-odds say so). The product needs nothing new: the file has the single model's input and output.
"""
import argparse

import numpy as np
import onnx
from onnx import compose, helper, numpy_helper


def ensemble(paths, out):
    members = [onnx.load(p) for p in paths]
    first = members[0]
    for m in members:
        if [i.name for i in m.graph.input] != ["input"] or [o.name for o in m.graph.output] != ["logits"]:
            raise SystemExit(f"ensemble: every member needs input 'input' and output 'logits'")
    nodes, inits, outs = [], [], []
    for k, m in enumerate(members):
        p = compose.add_prefix(m, f"m{k}_")
        g = p.graph
        nodes.append(helper.make_node("Identity", ["input"], [f"m{k}_input"], name=f"m{k}_in"))
        nodes.extend(g.node)
        inits.extend(g.initializer)
        outs.append(f"m{k}_logits")
    nodes.append(helper.make_node("Sum", outs, ["logits_sum"], name="ensemble_sum"))
    inits.append(numpy_helper.from_array(np.array(1.0 / len(members), dtype=np.float32), "ensemble_weight"))
    nodes.append(helper.make_node("Mul", ["logits_sum", "ensemble_weight"], ["logits"], name="ensemble_mean"))
    graph = helper.make_graph(
        nodes, "ensemble", list(first.graph.input), list(first.graph.output), initializer=inits
    )
    model = helper.make_model(graph, opset_imports=list(first.opset_import), producer_name="mango_train.ensemble")
    model.ir_version = first.ir_version
    onnx.checker.check_model(model)
    onnx.save(model, out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("members", nargs="+")
    a = ap.parse_args()
    ensemble(a.members, a.out)


if __name__ == "__main__":
    main()
