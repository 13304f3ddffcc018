"""The real-model zoo of the ONNX size test and benchmark.

- torchvision models (random init: weights=None, weights_backbone=None; no downloads),
  exported with torch.onnx.export into a cache folder (the build dir; not committed), with
  the input and torch's eager output saved next to each so the reference executor can be
  checked against torch;
- small hand-built models: an If whose branches differ, and Reshape/Pad shapes computed
  in the graph from Shape/Gather/Div/Concat chains;
- Debian libonnx-testdata models (their test_data_set_0 holds inputs and expected outputs).

Every case is a Case(name, path, inputs, expected, dims): `inputs` the feeds (name ->
tensor), `expected` the outputs the executor must reproduce (list, graph output order),
`dims` the shapes to bind with `memplan onnx --input NAME=AxBxC` (inputs with symbolic dims).
"""
import glob
import os
from dataclasses import dataclass, field

import onnx
import torch
from onnx import TensorProto, helper, numpy_helper

import onnx_reference_exec as rx

TESTDATA = "/usr/share/libonnx-testdata/data"
TESTDATA_GROUPS = ("pytorch-converted", "pytorch-operator", "simple", "node")
CACHE_VERSION = "1"  # bump when an export setting changes


@dataclass
class Case:
    name: str
    path: str
    inputs: dict
    expected: list
    dims: dict = field(default_factory=dict)  # input name -> shape, for --input
    kind: str = "torchvision"


def _torchvision_specs():
    import torchvision.models as tvm
    import torchvision.models.segmentation as seg

    class SegOut(torch.nn.Module):  # deeplabv3 returns a dict; export its "out"
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, x):
            return self.m(x)["out"]

    # name, constructor, input shape, opset, dynamic spatial dims
    return [
        ("resnet18", lambda: tvm.resnet18(weights=None), (1, 3, 64, 64), 14, True),
        ("resnet50", lambda: tvm.resnet50(weights=None), (1, 3, 64, 64), 17, True),
        ("mobilenet_v2", lambda: tvm.mobilenet_v2(weights=None), (1, 3, 64, 64), 14, True),
        ("mobilenet_v3_large", lambda: tvm.mobilenet_v3_large(weights=None), (1, 3, 64, 64),
         17, True),
        ("efficientnet_b0", lambda: tvm.efficientnet_b0(weights=None), (1, 3, 64, 64), 17, True),
        ("convnext_tiny", lambda: tvm.convnext_tiny(weights=None), (1, 3, 64, 64), 17, True),
        ("deeplabv3_mobilenet_v3_large",
         lambda: SegOut(seg.deeplabv3_mobilenet_v3_large(weights=None, weights_backbone=None)),
         (1, 3, 96, 96), 16, True),
        # ViT's position embedding fixes the image size at 224: only the batch is symbolic.
        ("vit_b_16", lambda: tvm.vit_b_16(weights=None), (1, 3, 224, 224), 17, False),
        # MaxViT's attention is written with torch.einsum (Einsum nodes; its window and grid
        # partitions also fix the image size).
        ("maxvit_t", lambda: tvm.maxvit_t(weights=None), (1, 3, 224, 224), 17, False),
    ]


def _export(name, ctor, shape, opset, dynamic_hw, folder):
    path = os.path.join(folder, f"{name}.onnx")
    data = os.path.join(folder, f"{name}.io.pt")
    stamp = os.path.join(folder, f"{name}.stamp")
    want = f"{CACHE_VERSION} {torch.__version__} {shape} {opset} {dynamic_hw}"
    if os.path.exists(stamp) and open(stamp).read() == want:
        io = torch.load(data)
        return path, io["input"], io["output"]
    torch.manual_seed(0)
    model = ctor().eval()
    x = torch.randn(shape, generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        y = model(x)
    axes = {0: "batch", 2: "height", 3: "width"} if dynamic_hw else {0: "batch"}
    torch.onnx.export(model, (x,), path, opset_version=opset, do_constant_folding=True,
                      input_names=["input"], output_names=["output"],
                      dynamic_axes={"input": axes, "output": {0: "batch"}})
    torch.save({"input": x, "output": y}, data)
    with open(stamp, "w") as f:
        f.write(want)
    return path, x, y


def torchvision_cases(folder, names=None):
    os.makedirs(folder, exist_ok=True)
    cases = []
    for name, ctor, shape, opset, dyn in _torchvision_specs():
        if names is not None and name not in names:
            continue
        path, x, y = _export(name, ctor, shape, opset, dyn, folder)
        cases.append(Case(name, path, {"input": x}, [y], {"input": list(shape)}))
    return cases


# --- small hand-built models ----------------------------------------------------------

def _const(name, values, dtype=TensorProto.INT64):
    return helper.make_node("Constant", [], [name], name=name,
                            value=helper.make_tensor(name + "_v", dtype, [len(values)], values))


def if_model():
    """x[N,16] -> If(sum(x) > 0): then relu(x)*x via a [N,4,4] reshape, else sigmoid(x)+x
    widened by Concat; both give y[N,32]. Branch tensors are used only inside the If."""
    then_nodes = [
        helper.make_node("Relu", ["x"], ["t_relu"], name="t_relu"),
        helper.make_node("Mul", ["t_relu", "x"], ["t_mul"], name="t_mul"),
        helper.make_node("Concat", ["t_mul", "t_relu"], ["t_out"], name="t_cat", axis=1),
    ]
    else_nodes = [
        helper.make_node("Sigmoid", ["x"], ["e_sig"], name="e_sig"),
        helper.make_node("Add", ["e_sig", "x"], ["e_add"], name="e_add"),
        helper.make_node("Tanh", ["e_add"], ["e_tanh"], name="e_tanh"),
        helper.make_node("Concat", ["e_tanh", "e_add"], ["e_out"], name="e_cat", axis=1),
    ]
    f = TensorProto.FLOAT
    then_g = helper.make_graph(then_nodes, "then", [],
                               [helper.make_tensor_value_info("t_out", f, ["N", 32])])
    else_g = helper.make_graph(else_nodes, "else", [],
                               [helper.make_tensor_value_info("e_out", f, ["N", 32])])
    nodes = [
        helper.make_node("Exp", ["x"], ["x_exp"], name="pre"),
        helper.make_node("ReduceSum", ["x_exp"], ["s"], name="sum", keepdims=0),
        _const("thr", [60.0], TensorProto.FLOAT),
        helper.make_node("Greater", ["s", "thr"], ["cond_v"], name="gt"),
        helper.make_node("Squeeze", ["cond_v"], ["cond"], name="sq"),
        helper.make_node("If", ["cond"], ["y"], name="branch", then_branch=then_g,
                         else_branch=else_g),
        helper.make_node("Relu", ["y"], ["out"], name="post"),
    ]
    g = helper.make_graph(nodes, "if_model",
                          [helper.make_tensor_value_info("x", f, ["N", 16])],
                          [helper.make_tensor_value_info("out", f, ["N", 32])])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


def computed_shapes_model():
    """x[1,C,H,W] -> Pad with pads computed as [0,0,1,1, 0,0,H/4,W/4] (Shape/Gather/Div/
    Concat) -> Conv -> Reshape to [1, C', -1] with the shape taken from Shape(conv) ->
    Transpose -> Softmax; and an Expand to a computed shape."""
    f = TensorProto.FLOAT
    w = numpy_helper.from_array(torch.randn(8, 3, 3, 3).numpy(), "w")
    nodes = [
        helper.make_node("Shape", ["x"], ["xs"], name="shape_x"),
        _const("hw_idx", [2, 3]),
        helper.make_node("Gather", ["xs", "hw_idx"], ["hw"], name="gather_hw", axis=0),
        _const("four", [4]),
        helper.make_node("Div", ["hw", "four"], ["hw4"], name="div_hw"),
        _const("pads_head", [0, 0, 1, 1, 0, 0]),
        helper.make_node("Concat", ["pads_head", "hw4"], ["pads"], name="cat_pads", axis=0),
        helper.make_node("Pad", ["x", "pads"], ["xp"], name="pad", mode="constant"),
        helper.make_node("Conv", ["xp", "w"], ["c"], name="conv", kernel_shape=[3, 3]),
        helper.make_node("Shape", ["c"], ["cs"], name="shape_c"),
        _const("nc_idx", [0, 1]),
        helper.make_node("Gather", ["cs", "nc_idx"], ["nc"], name="gather_nc", axis=0),
        _const("minus1", [-1]),
        helper.make_node("Concat", ["nc", "minus1"], ["rshape"], name="cat_shape", axis=0),
        helper.make_node("Reshape", ["c", "rshape"], ["r"], name="reshape"),
        helper.make_node("Transpose", ["r"], ["rt"], name="transpose", perm=[0, 2, 1]),
        helper.make_node("Softmax", ["rt"], ["sm"], name="softmax", axis=-1),
        # Expand a [1, 8] row to [2*C', 8]: the row count computed from the conv's shape.
        _const("two", [2]),
        helper.make_node("Mul", ["nc", "two"], ["nc2"], name="mul_nc"),
        _const("one_idx", [1]),
        helper.make_node("Gather", ["nc2", "one_idx"], ["c2"], name="gather_c2", axis=0),
        _const("eight", [8]),
        helper.make_node("Concat", ["c2", "eight"], ["eshape"], name="cat_eshape", axis=0),
        helper.make_node("ReduceMean", ["sm"], ["row"], name="mean_row", axes=[1]),
        helper.make_node("Expand", ["row", "eshape"], ["ex"], name="expand"),
    ]
    g = helper.make_graph(nodes, "computed_shapes",
                          [helper.make_tensor_value_info("x", f, [1, 3, "H", "W"])],
                          [helper.make_tensor_value_info("sm", f, [1, "L", 8]),
                           helper.make_tensor_value_info("ex", f, [1, "R", 8])],
                          initializer=[w])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


# Einsum with each form of equation the operator allows (ONNX 1.12's inference gives its
# outputs only a rank): explicit; implicit with an upper-case label and spaces (the output
# is the labels used once, in ASCII order: A, i, k, not i, A, k as they appear); an ellipsis
# broadcasting a size-1 dim against the symbolic batch; a diagonal; an ellipsis summed out;
# a transpose; a contraction to one dim.
EINSUMS = [
    ("e1", "bij,jk->bik", ["x", "w1"]),
    ("e2", "i A j , j k", ["x", "w1"]),
    ("e3", "...ij,...jk->...ik", ["x", "w3"]),
    ("gram", "bij,bkj->bik", ["x", "x"]),
    ("e4", "bii->bi", ["gram"]),
    ("e5", "...j->j", ["x"]),
    ("e6", "bij->jib", ["x"]),
    ("e7", "bi,bi->b", ["e4", "e4"]),
]
EINSUM_OUTPUTS = ["e1", "e2", "e3", "e5", "e6", "e7"]


def einsum_weights():
    gen = torch.Generator().manual_seed(5)
    return {"w1": torch.randn(6, 5, generator=gen), "w3": torch.randn(1, 6, 3, generator=gen)}


def einsum_model():
    """x[N,4,6] through the Einsums of EINSUMS; outputs declared without a shape."""
    f = TensorProto.FLOAT
    inits = [numpy_helper.from_array(t.numpy(), n) for n, t in einsum_weights().items()]
    nodes = [helper.make_node("Einsum", ins, [out], name=out, equation=eq)
             for out, eq, ins in EINSUMS]
    g = helper.make_graph(nodes, "einsum_forms",
                          [helper.make_tensor_value_info("x", f, ["N", 4, 6])],
                          [helper.make_tensor_value_info(o, f, None) for o in EINSUM_OUTPUTS],
                          initializer=inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 12)])


def einsum_expected(x):
    """EINSUM_OUTPUTS computed with torch.einsum directly (not by the executor)."""
    env = dict(einsum_weights(), x=x)
    for out, eq, ins in EINSUMS:
        env[out] = torch.einsum(eq.replace(" ", ""), *[env[i] for i in ins])
    return [env[o] for o in EINSUM_OUTPUTS]


def one_hot_model():
    """x[N,5] int64 indices -> OneHot(depth 7 from a Constant node, axis 1) [N,7,5] -> Relu;
    OneHot(depth 3.0, a float initializer, default axis) [N,5,3]. ONNX 1.12's inference
    leaves the depth dim unknown."""
    f = TensorProto.FLOAT
    nodes = [
        helper.make_node("Constant", [], ["depth7"], name="depth7",
                         value=helper.make_tensor("d7", TensorProto.INT64, [], [7])),
        _const("onoff", [0.0, 2.0], f),
        helper.make_node("OneHot", ["x", "depth7", "onoff"], ["h7"], name="h7", axis=1),
        helper.make_node("Relu", ["h7"], ["h7r"], name="h7r"),
        helper.make_node("OneHot", ["x", "depth3", "onoff"], ["h3"], name="h3"),
    ]
    g = helper.make_graph(nodes, "one_hot",
                          [helper.make_tensor_value_info("x", TensorProto.INT64, ["N", 5])],
                          [helper.make_tensor_value_info("h7r", f, None),
                           helper.make_tensor_value_info("h3", f, None)],
                          initializer=[helper.make_tensor("depth3", f, [1], [3.0])])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 11)])


def one_hot_expected(x):
    """one_hot_model's outputs by comparison with a range (not by the executor): index k
    (k + depth when negative) lights entry k; out-of-range indices light none."""
    def hot(d, axis):
        idx = torch.where(x < 0, x + d, x).unsqueeze(axis)
        shape = [1] * idx.dim()
        shape[axis] = d
        return torch.where(idx == torch.arange(d).view(shape), 2.0, 0.0)
    return [torch.relu(hot(7, 1)), hot(3, 2)]


def later_ops_model():
    """Ops added or changed after opset 17, which ONNX 1.12's inference does not size:
    x[N,4,6,10] -> Gelu (20) -> Mish (18); GroupNormalization (18: a scale and bias per
    group); RMSNormalization (23); Pad-18 with an `axes` input (a negative one); Resize-18
    with `axes` and keep_aspect_ratio_policy not_larger / not_smaller, and with scales on
    negative axes; CenterCropPad (18, cropping one axis and padding another); BitwiseAnd
    (broadcasting [3,1,5] and [4,1]) -> BitwiseNot; two Attentions (23); Split-18 into
    num_outputs parts that do not divide the dim. Each result then goes through a Relu (or
    an Identity for the integers), so what follows them must be sized too."""
    f, i64 = TensorProto.FLOAT, TensorProto.INT64
    nodes = [
        helper.make_node("Gelu", ["x"], ["gelu"], name="gelu", approximate="tanh"),
        helper.make_node("Mish", ["gelu"], ["mish"], name="mish"),
        _const("gn_scale", [1.5, 0.5], f), _const("gn_bias", [0.25, -0.25], f),
        helper.make_node("GroupNormalization", ["x", "gn_scale", "gn_bias"], ["gn"], name="gn",
                         num_groups=2),
        _const("rms_scale", [1.0 + k / 10 for k in range(10)], f),
        helper.make_node("RMSNormalization", ["x", "rms_scale"], ["rms"], name="rms"),
        _const("pads", [1, 2, 3, 4]), _const("pad_axes", [2, -1]),
        helper.make_node("Pad", ["x", "pads", "", "pad_axes"], ["pad"], name="pad"),
        _const("sizes", [12, 30]),
        helper.make_node("Resize", ["x", "", "", "sizes"], ["rsz_nl"], name="rsz_nl", axes=[2, 3],
                         mode="linear", keep_aspect_ratio_policy="not_larger"),
        helper.make_node("Resize", ["x", "", "", "sizes"], ["rsz_ns"], name="rsz_ns", axes=[2, 3],
                         mode="linear", keep_aspect_ratio_policy="not_smaller"),
        _const("scales", [1.5, 0.5], f),
        helper.make_node("Resize", ["x", "", "scales"], ["rsz_s"], name="rsz_s", axes=[-2, -1],
                         mode="linear"),
        _const("crop", [3, 14]),
        helper.make_node("CenterCropPad", ["x", "crop"], ["ccp"], name="ccp", axes=[2, 3]),
        # Split-18 into 3 parts of a dim of 10: 4, 4, 2 (the last smaller).
        helper.make_node("Split", ["x"], ["sp0", "sp1", "sp2"], name="split3", axis=3, num_outputs=3),
        helper.make_node("BitwiseAnd", ["xi", "yi"], ["band"], name="band"),
        helper.make_node("BitwiseNot", ["band"], ["bnot"], name="bnot"),
        # Attention (23): 3-D Q, K, V with grouped heads (4 query heads, 2 key/value heads of
        # 6 and 5 values) and past keys; every output.
        helper.make_node("Attention", ["q", "k", "v", "", "past_k", "past_v"],
                         ["att", "present_k", "present_v", "qk"], name="att",
                         q_num_heads=4, kv_num_heads=2),
        # ... and 4-D, causal, only Y.
        helper.make_node("Attention", ["q4", "k4", "v4"], ["att4"], name="att4", is_causal=1),
    ]
    outs = LATER_OPS_OUTPUTS
    nodes += [helper.make_node("Relu" if o not in ("bnot",) else "Identity", [o], [o + "_r"], name=o + "_r")
              for o in outs]
    g = helper.make_graph(
        nodes, "later_ops",
        [helper.make_tensor_value_info("x", f, ["N", 4, 6, 10]),
         helper.make_tensor_value_info("xi", TensorProto.INT32, [3, 1, 5]),
         helper.make_tensor_value_info("yi", TensorProto.INT32, [4, 1])] +
        [helper.make_tensor_value_info(name, f, shape) for name, shape in ATTENTION_INPUTS],
        [helper.make_tensor_value_info(o + "_r", TensorProto.INT32 if o == "bnot" else f, None)
         for o in outs])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 23)])
    m.ir_version = 10
    return m


LATER_OPS_OUTPUTS = ["mish", "gn", "rms", "pad", "rsz_nl", "rsz_ns", "rsz_s", "ccp", "bnot",
                     "att", "present_k", "present_v", "qk", "att4", "sp0", "sp1", "sp2"]
# Q [B=2, Sq=3, 4 heads x 6], K [2, Skv=5, 2 heads x 6], V [2, 5, 2 heads x 5], past keys
# and values of 7 positions; the 4-D attention: 2 heads, 3 queries over 3 keys.
ATTENTION_INPUTS = [("q", [2, 3, 24]), ("k", [2, 5, 12]), ("v", [2, 5, 10]),
                    ("past_k", [2, 2, 7, 6]), ("past_v", [2, 2, 7, 5]),
                    ("q4", [2, 2, 3, 8]), ("k4", [2, 2, 3, 8]), ("v4", [2, 2, 3, 4])]


def later_ops_expected(inputs):
    """later_ops_model's outputs with torch's own ops (not by the executor)."""
    x, xi, yi = inputs["x"], inputs["xi"], inputs["yi"]
    F = torch.nn.functional
    gn = F.group_norm(x, 2) * torch.tensor([1.5, 1.5, 0.5, 0.5]).view(1, 4, 1, 1) + \
        torch.tensor([0.25, 0.25, -0.25, -0.25]).view(1, 4, 1, 1)
    rms = x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5) * \
        torch.tensor([1.0 + k / 10 for k in range(10)])
    up = dict(mode="bilinear", align_corners=False)
    ccp = torch.zeros(x.shape[0], 4, 3, 14)
    ccp[..., 2:12] = x[:, :, 1:4, :]  # rows 6 -> 3 (from (6-3)//2), cols 10 -> 14 (at (14-10)//2)
    outs = [F.mish(F.gelu(x, approximate="tanh")), gn, rms,
            F.pad(x, (2, 4, 1, 3)),                        # last axis (2, 4), axis 2 (1, 3)
            F.interpolate(x, size=(12, 20), **up),         # not_larger: x2 (12/6 < 30/10)
            F.interpolate(x, size=(18, 30), **up),         # not_smaller: x3
            F.interpolate(x, scale_factor=(1.5, 0.5), recompute_scale_factor=False, **up),
            ccp]
    att = [torch.relu(o) for o in attention_expected(inputs)]
    parts = [torch.relu(p) for p in torch.split(x, [4, 4, 2], 3)]
    return [torch.relu(o) for o in outs] + [torch.bitwise_not(torch.bitwise_and(xi, yi))] + att + parts


def attention_expected(inputs):
    """The two Attentions of later_ops_model, head by head in plain loops."""
    q = inputs["q"].reshape(2, 3, 4, 6).transpose(1, 2)
    k = torch.cat([inputs["past_k"], inputs["k"].reshape(2, 5, 2, 6).transpose(1, 2)], 2)
    v = torch.cat([inputs["past_v"], inputs["v"].reshape(2, 5, 2, 5).transpose(1, 2)], 2)
    y = torch.zeros(2, 4, 3, 5)
    qk = torch.zeros(2, 4, 3, 12)
    for b in range(2):
        for h in range(4):  # query heads 0-1 share key/value head 0, 2-3 head 1
            qk[b, h] = q[b, h] @ k[b, h // 2].T / 6 ** 0.5
            y[b, h] = torch.softmax(qk[b, h], -1) @ v[b, h // 2]
    q4, k4, v4 = inputs["q4"], inputs["k4"], inputs["v4"]
    s4 = q4 @ k4.transpose(-1, -2) / 8 ** 0.5
    s4 = s4.masked_fill(torch.ones(3, 3, dtype=torch.bool).triu(1), float("-inf"))
    return [y.transpose(1, 2).reshape(2, 3, 20), k, v, qk, torch.softmax(s4, -1) @ v4]


def sequences_model():
    """x[N,4,10] -> sequences (ONNX 1.12 merges their elements' shapes; memplan follows them
    one by one): s1 = SplitToSequence(x, [3, 7], axis 2) (unequal parts), s2 = one squeezed
    part per row of axis 1, s3 = s1 with Relu(x) inserted at 0, s4 = s3 without element -2,
    s5 = SequenceConstruct(r, t); read back by SequenceAt (positive and negative positions),
    ConcatFromSequence (joined, and stacked on a new axis) and SequenceLength."""
    f = TensorProto.FLOAT
    nodes = [
        _const("split", [3, 7]),
        helper.make_node("SplitToSequence", ["x", "split"], ["s1"], name="s1", axis=2),
        helper.make_node("SplitToSequence", ["x"], ["s2"], name="s2", axis=1, keepdims=0),
        _const("one", [1]), _const("zero", [0]), _const("minus2", [-2]), _const("minus1", [-1]),
        helper.make_node("Squeeze", ["one"], ["one_s"], name="one_s"),
        helper.make_node("Squeeze", ["zero"], ["zero_s"], name="zero_s"),
        helper.make_node("Squeeze", ["minus2"], ["minus2_s"], name="minus2_s"),
        helper.make_node("Squeeze", ["minus1"], ["minus1_s"], name="minus1_s"),
        helper.make_node("SequenceAt", ["s1", "one_s"], ["t"], name="t"),
        helper.make_node("Relu", ["t"], ["r"], name="r"),
        helper.make_node("Relu", ["x"], ["y"], name="y"),
        helper.make_node("SequenceInsert", ["s1", "y", "zero_s"], ["s3"], name="s3"),
        helper.make_node("ConcatFromSequence", ["s3"], ["c"], name="c", axis=2),
        helper.make_node("Sigmoid", ["c"], ["c_sig"], name="c_sig"),
        helper.make_node("SequenceErase", ["s3", "minus2_s"], ["s4"], name="s4"),
        helper.make_node("ConcatFromSequence", ["s4"], ["c4"], name="c4", axis=-1),
        helper.make_node("ConcatFromSequence", ["s2"], ["st"], name="st", axis=0, new_axis=1),
        helper.make_node("SequenceLength", ["s4"], ["len"], name="len"),
        helper.make_node("SequenceConstruct", ["r", "t"], ["s5"], name="s5"),
        helper.make_node("SequenceAt", ["s5", "minus1_s"], ["u"], name="u"),
        helper.make_node("Relu", ["u"], ["u_r"], name="u_r"),
    ]
    g = helper.make_graph(nodes, "sequences",
                          [helper.make_tensor_value_info("x", f, ["N", 4, 10])],
                          [helper.make_tensor_value_info(o, TensorProto.INT64 if o == "len" else f, None)
                           for o in SEQUENCES_OUTPUTS])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


SEQUENCES_OUTPUTS = ["r", "c_sig", "c4", "st", "len", "u_r"]


def sequences_expected(x):
    """sequences_model's outputs with torch's own ops (not by the executor)."""
    a, b = x[:, :, :3], x[:, :, 3:]
    y = torch.relu(x)
    return [torch.relu(b), torch.sigmoid(torch.cat([y, a, b], 2)), torch.cat([y, b], 2),
            x.transpose(0, 1), torch.tensor(2), torch.relu(b)]


def small_cases(folder):
    """The If model (both branches, by two inputs), the computed-shape model, the Einsum
    forms, the OneHots, the ops after opset 17 and the sequences."""
    os.makedirs(folder, exist_ok=True)
    cases = []
    gen = torch.Generator().manual_seed(3)
    m = if_model()
    path = os.path.join(folder, "if_branches.onnx")
    onnx.save(m, path)
    for label, x in (("then", torch.ones(4, 16)), ("else", -torch.rand(4, 16, generator=gen))):
        cases.append(Case(f"if_branches[{label}]", path, {"x": x}, None, {"x": [4, 16]},
                          "small"))
    m = computed_shapes_model()
    path = os.path.join(folder, "computed_shapes.onnx")
    onnx.save(m, path)
    x = torch.randn(1, 3, 40, 24, generator=gen)
    cases.append(Case("computed_shapes", path, {"x": x}, None, {"x": [1, 3, 40, 24]}, "small"))
    path = os.path.join(folder, "einsum_forms.onnx")
    onnx.save(einsum_model(), path)
    x = torch.randn(3, 4, 6, generator=gen)
    cases.append(Case("einsum_forms", path, {"x": x}, None, {"x": [3, 4, 6]}, "small"))
    path = os.path.join(folder, "one_hot.onnx")
    onnx.save(one_hot_model(), path)
    x = torch.randint(-3, 7, (4, 5), generator=gen)  # in range for depth 7, partly for 3
    cases.append(Case("one_hot", path, {"x": x}, None, {"x": [4, 5]}, "small"))
    path = os.path.join(folder, "later_ops.onnx")
    onnx.save(later_ops_model(), path)
    feeds = {"x": torch.randn(2, 4, 6, 10, generator=gen),
             "xi": torch.randint(-50, 50, (3, 1, 5), generator=gen, dtype=torch.int32),
             "yi": torch.randint(-50, 50, (4, 1), generator=gen, dtype=torch.int32)}
    feeds.update({name: torch.randn(shape, generator=gen) for name, shape in ATTENTION_INPUTS})
    cases.append(Case("later_ops", path, feeds, None, {"x": [2, 4, 6, 10]}, "small"))
    path = os.path.join(folder, "sequences.onnx")
    onnx.save(sequences_model(), path)
    x = torch.randn(2, 4, 10, generator=gen)
    cases.append(Case("sequences", path, {"x": x}, None, {"x": [2, 4, 10]}, "small"))
    return cases


# --- libonnx-testdata -----------------------------------------------------------------

def _read_pb(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return rx.to_torch(numpy_helper.to_array(t))


def _numbered(folder, prefix):
    files = glob.glob(os.path.join(folder, f"{prefix}_*.pb"))
    return sorted(files, key=lambda p: int(p.rsplit("_", 1)[1][:-3]))


def testdata_case(folder):
    """A Case for one libonnx-testdata model; raises rx.UnsupportedOp (or onnx's error)
    when its data or types are outside what torch can hold."""
    model = onnx.load(os.path.join(folder, "model.onnx"))
    data = os.path.join(folder, "test_data_set_0")
    ins = [_read_pb(p) for p in _numbered(data, "input")]
    outs = [_read_pb(p) for p in _numbered(data, "output")]
    feeds = {vi.name: x for vi, x in zip(rx.graph_inputs(model), ins)}
    dims = {}
    for vi in rx.graph_inputs(model):
        shape = vi.type.tensor_type.shape
        if vi.name in feeds and any(not d.HasField("dim_value") for d in shape.dim):
            dims[vi.name] = list(feeds[vi.name].shape)
    group = os.path.basename(os.path.dirname(folder))
    return Case(f"{group}/{os.path.basename(folder)}", os.path.join(folder, "model.onnx"),
                feeds, outs, dims, "testdata")


def testdata_folders(groups=TESTDATA_GROUPS):
    out = []
    for g in groups:
        out += sorted(glob.glob(os.path.join(TESTDATA, g, "*", "model.onnx")))
    return [os.path.dirname(p) for p in out]


NPM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "benchmarks", "models", "npm")


def npm_models():
    """(file, {input: shape}, vendored) per line of benchmarks/models/npm/MODELS.tsv."""
    with open(os.path.join(NPM, "MODELS.tsv")) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            cols = line.rstrip("\n").split("\t")
            dims = {}
            for spec in cols[6].split():
                name, shape = spec.rsplit("=", 1)
                dims[name] = [int(d) for d in shape.split("x")]
            yield cols[0], dims, cols[5] == "yes"


def npm_cases(fetched=None):
    """The npm models (OCR, voice activity, wake word, face and line detection): the
    vendored ones, plus those scripts/fetch_npm_models.sh put into `fetched` (if given and
    present). Inputs: seeded random floats of the listed shapes (static shapes as declared);
    a scalar integer input (Silero's sample rate `sr`) is 16000. No expected outputs: these
    cases serve the size check, not the executor's own check."""
    gen = torch.Generator().manual_seed(0)
    cases = []
    for file, dims, vendored in npm_models():
        path = os.path.join(NPM if vendored else (fetched or ""), file)
        if not os.path.exists(path):
            continue
        model = onnx.load(path)
        weights = {t.name for t in model.graph.initializer}
        inputs = {}
        for i in model.graph.input:
            if i.name in weights:
                continue
            tt = i.type.tensor_type
            shape = dims.get(i.name) or [d.dim_value for d in tt.shape.dim]
            if tt.elem_type == TensorProto.INT64 and not shape:
                inputs[i.name] = torch.tensor(16000, dtype=torch.int64)
            else:
                inputs[i.name] = torch.randn(*shape, generator=gen)
        cases.append(Case(f"npm/{file[:-5]}", path, inputs, [], dims, kind="npm"))
    return cases
