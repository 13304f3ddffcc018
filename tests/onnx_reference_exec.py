"""A reference ONNX executor on torch ops: the independent truth for memplan's ONNX sizes.

It shares nothing with memplan's importer (no ONNX shape inference either): it runs the
model's nodes in order on real tensors and records what each produced. Every executed
tensor's shape, dtype and byte size is the ground truth the size test compares against.

    values, record = run(model, {"input": torch.randn(1, 3, 64, 64)})
    record["conv1_out"] -> Executed(shape=(1, 64, 32, 32), dtype=torch.float32, bytes=262144,
                                    op="Conv", node="Conv_0", scope="")

Operators outside the table below raise UnsupportedOp naming the op and the node.
"""
import math
from dataclasses import dataclass

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import helper, numpy_helper

ONNX_TO_TORCH = {
    onnx.TensorProto.FLOAT: torch.float32, onnx.TensorProto.DOUBLE: torch.float64,
    onnx.TensorProto.FLOAT16: torch.float16,
    onnx.TensorProto.INT8: torch.int8, onnx.TensorProto.UINT8: torch.uint8,
    onnx.TensorProto.INT16: torch.int16, onnx.TensorProto.INT32: torch.int32,
    onnx.TensorProto.INT64: torch.int64, onnx.TensorProto.BOOL: torch.bool,
}


class UnsupportedOp(Exception):
    pass


@dataclass
class Executed:
    shape: tuple
    dtype: torch.dtype
    bytes: int
    op: str      # producing op type ("input" for graph inputs)
    node: str    # producing node name
    scope: str   # "" for the main graph, else the If node whose branch produced it


def tensor_bytes(t):
    """A tensor's bytes; a sequence (a Python list of tensors) holds its elements' bytes."""
    if isinstance(t, list):
        return sum(tensor_bytes(e) for e in t)
    return t.numel() * t.element_size()


def _shape_dtype(value):
    if isinstance(value, list):  # a sequence: its length, its elements' type
        return (len(value),), value[0].dtype if value else None
    return tuple(value.shape), value.dtype


def to_torch(array):
    a = np.array(array, copy=True, order="C")  # (ascontiguousarray makes 0-d arrays 1-d)
    if a.dtype in (np.uint16, np.uint32, np.uint64) or a.dtype.kind not in "fiub":
        # torch 1.13 has no such dtype: executing it would record the wrong byte size.
        raise UnsupportedOp(f"element type {a.dtype} (torch has none)")
    return torch.from_numpy(a)


def attrs_of(node):
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def ints(t):
    return [int(v) for v in t.flatten().tolist()]


# --- helpers for pooling/conv padding -------------------------------------------------

def _spatial_pads(a, x, kernel, strides, dilations):
    """ONNX pads [b1..bn, e1..en] for the spatial dims, resolving auto_pad."""
    n = len(kernel)
    auto = a.get("auto_pad", b"NOTSET")
    auto = auto.decode() if isinstance(auto, bytes) else auto
    if auto in ("SAME_UPPER", "SAME_LOWER"):
        pads = [0] * (2 * n)
        for i in range(n):
            size = x.shape[2 + i]
            out = -(-size // strides[i])
            eff = (kernel[i] - 1) * dilations[i] + 1
            total = max(0, (out - 1) * strides[i] + eff - size)
            small, big = total // 2, total - total // 2
            pads[i], pads[n + i] = (small, big) if auto == "SAME_UPPER" else (big, small)
        return pads
    if auto == "VALID":
        return [0] * (2 * n)
    return list(a.get("pads", [0] * (2 * n)))


def _torch_pad_order(pads):
    """ONNX [b1..bn, e1..en] -> torch F.pad (last dim first: bn, en, ..., b1, e1)."""
    n = len(pads) // 2
    out = []
    for i in reversed(range(n)):
        out += [pads[i], pads[n + i]]
    return out


def op_conv(node, a, x, w, b=None):
    n = x.dim() - 2
    kernel = list(a.get("kernel_shape", w.shape[2:]))
    strides = list(a.get("strides", [1] * n))
    dil = list(a.get("dilations", [1] * n))
    pads = _spatial_pads(a, x, kernel, strides, dil)
    if any(pads):
        x = F.pad(x, _torch_pad_order(pads))
    conv = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}[n]
    return conv(x, w, b, stride=strides, dilation=dil, groups=a.get("group", 1))


def op_conv_transpose(node, a, x, w, b=None):
    """Explicit pads only (auto_pad and output_shape are refused): a transposed convolution
    without padding, then [begin, end) pads cropped per spatial dim (they may differ)."""
    n = x.dim() - 2
    auto = a.get("auto_pad", b"NOTSET")
    if (auto.decode() if isinstance(auto, bytes) else auto) != "NOTSET" or "output_shape" in a:
        raise NotImplementedError(f"ConvTranspose with auto_pad/output_shape (node {node.name!r})")
    strides = list(a.get("strides", [1] * n))
    dil = list(a.get("dilations", [1] * n))
    outpad = list(a.get("output_padding", [0] * n))
    pads = list(a.get("pads", [0] * (2 * n)))
    conv = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}[n]
    y = conv(x, w, b, stride=strides, output_padding=outpad, groups=a.get("group", 1), dilation=dil)
    for i in range(n):
        y = y.narrow(2 + i, pads[i], y.shape[2 + i] - pads[i] - pads[n + i])
    return y.contiguous()


def op_maxpool(node, a, x):
    n = x.dim() - 2
    kernel = list(a["kernel_shape"])
    strides = list(a.get("strides", [1] * n))
    dil = list(a.get("dilations", [1] * n))
    if len(node.output) > 1 and node.output[1]:
        raise UnsupportedOp(f"MaxPool with an Indices output (node {node.name!r})")
    pads = _spatial_pads(a, x, kernel, strides, dil)
    if any(pads):
        low = -math.inf if x.dtype.is_floating_point else torch.iinfo(x.dtype).min
        x = F.pad(x, _torch_pad_order(pads), value=low)
    pool = {1: F.max_pool1d, 2: F.max_pool2d, 3: F.max_pool3d}[n]
    y = x if x.dtype.is_floating_point else x.double()  # torch pools floats only
    return pool(y, kernel, strides, 0, dil, ceil_mode=bool(a.get("ceil_mode", 0))).to(x.dtype)


def op_avgpool(node, a, x):
    n = x.dim() - 2
    kernel = list(a["kernel_shape"])
    strides = list(a.get("strides", [1] * n))
    pads = _spatial_pads(a, x, kernel, strides, [1] * n)
    ceil = bool(a.get("ceil_mode", 0))
    pool = {1: F.avg_pool1d, 2: F.avg_pool2d, 3: F.avg_pool3d}[n]
    ones = torch.ones_like(x[:1, :1])
    if any(pads):
        x = F.pad(x, _torch_pad_order(pads))
        # Padding counts in the divisor only with count_include_pad; mark it in the mask.
        ones = F.pad(ones, _torch_pad_order(pads), value=float(a.get("count_include_pad", 0)))
    total = pool(x, kernel, strides, 0, ceil_mode=ceil, count_include_pad=True)
    counted = pool(ones, kernel, strides, 0, ceil_mode=ceil, count_include_pad=True)
    return total / counted


def op_batchnorm(node, a, x, scale, bias, mean, var):
    if a.get("training_mode", 0) or len(node.output) > 1:
        raise UnsupportedOp(f"BatchNormalization in training mode (node {node.name!r})")
    shape = [1, -1] + [1] * (x.dim() - 2)
    inv = torch.rsqrt(var.reshape(shape) + a.get("epsilon", 1e-5))
    return (x - mean.reshape(shape)) * inv * scale.reshape(shape) + bias.reshape(shape)


def op_layernorm(node, a, x, scale, bias=None):
    axis = a.get("axis", -1) % x.dim()
    dims = list(range(axis, x.dim()))
    mean = x.mean(dims, keepdim=True)
    var = ((x - mean) ** 2).mean(dims, keepdim=True)
    inv = torch.rsqrt(var + a.get("epsilon", 1e-5))
    y = (x - mean) * inv * scale
    if bias is not None:
        y = y + bias
    return y, mean, inv


def op_gemm(node, a, A, B, C=None):
    if a.get("transA", 0):
        A = A.t()
    if a.get("transB", 0):
        B = B.t()
    y = a.get("alpha", 1.0) * (A @ B)
    if C is not None:
        y = y + a.get("beta", 1.0) * C
    return y


def _reduce(fn):
    def op(node, a, x, axes=None, opset=13):
        if axes is None:
            axes = a.get("axes")
        else:
            axes = ints(axes)
        keep = bool(a.get("keepdims", 1))
        if not axes:
            if a.get("noop_with_empty_axes", 0):
                return x
            axes = list(range(x.dim()))
        axes = sorted(ax % x.dim() for ax in axes)
        return fn(x, axes, keep)
    return op


def _reduce_each(f):
    def fn(x, axes, keep):
        for ax in reversed(axes):
            x = f(x, ax, keep)
        return x
    return fn


def _softmax(f):
    def op(node, a, x, opset=13):
        if opset >= 13:
            return f(x, a.get("axis", -1))
        axis = a.get("axis", 1) % x.dim()  # old semantics: coerce to 2-D at axis
        flat = x.reshape(math.prod(x.shape[:axis]), -1)
        return f(flat, 1).reshape(x.shape)
    return op


def op_flatten(node, a, x):
    axis = a.get("axis", 1)
    axis = axis + x.dim() if axis < 0 else axis
    return x.reshape(math.prod(x.shape[:axis]), math.prod(x.shape[axis:]))


def op_reshape(node, a, x, shape=None):
    target = ints(shape) if shape is not None else list(a["shape"])
    if not a.get("allowzero", 0):
        target = [x.shape[i] if v == 0 else v for i, v in enumerate(target)]
    return x.reshape(target)


def op_transpose(node, a, x):
    perm = a.get("perm", list(reversed(range(x.dim()))))
    return x.permute(*perm).contiguous()


def op_split(node, a, x, split=None):
    axis = a.get("axis", 0) % x.dim()
    if split is not None:
        sizes = ints(split)
    elif "split" in a:
        sizes = list(a["split"])
    else:
        parts = a.get("num_outputs", len(node.output))
        chunk = -(-x.shape[axis] // parts)
        sizes = [chunk] * (parts - 1) + [x.shape[axis] - chunk * (parts - 1)]
    return tuple(t.contiguous() for t in torch.split(x, sizes, axis))


def op_slice(node, a, x, starts=None, ends=None, axes=None, steps=None):
    if starts is None:  # opset < 10: attributes
        starts, ends, axes = list(a["starts"]), list(a["ends"]), a.get("axes")
        steps = None
    else:
        starts, ends = ints(starts), ints(ends)
        axes = ints(axes) if axes is not None else None
        steps = ints(steps) if steps is not None else None
    axes = axes if axes is not None else list(range(len(starts)))
    steps = steps if steps is not None else [1] * len(starts)
    for s, e, ax, st in zip(starts, ends, axes, steps):
        ax %= x.dim()
        indices = range(x.shape[ax])[slice(s, e, st)]  # python clamps exactly as ONNX does
        x = torch.index_select(x, ax, torch.tensor(list(indices), dtype=torch.int64))
    return x


def op_gather(node, a, x, idx):
    axis = a.get("axis", 0) % x.dim()
    flat = idx.flatten().long()
    flat = torch.where(flat < 0, flat + x.shape[axis], flat)
    out = torch.index_select(x, axis, flat)
    return out.reshape(tuple(x.shape[:axis]) + tuple(idx.shape) + tuple(x.shape[axis + 1:]))


def op_shape(node, a, x):
    dims = list(x.shape)
    start, end = a.get("start", 0), a.get("end", len(dims))
    return torch.tensor(dims[start:end], dtype=torch.int64)


def op_unsqueeze(node, a, x, axes=None):
    axes = ints(axes) if axes is not None else list(a["axes"])
    rank = x.dim() + len(axes)
    shape = list(x.shape)
    for ax in sorted(ax % rank for ax in axes):
        shape.insert(ax, 1)
    return x.reshape(shape)


def op_squeeze(node, a, x, axes=None):
    axes = ints(axes) if axes is not None else a.get("axes")
    if axes is None:
        return x.reshape([d for d in x.shape if d != 1])
    axes = {ax % x.dim() for ax in axes}
    return x.reshape([d for i, d in enumerate(x.shape) if i not in axes])


def op_constant(node, a):
    if "value" in a:
        return to_torch(numpy_helper.to_array(a["value"]))
    for key, dtype in (("value_float", torch.float32), ("value_floats", torch.float32),
                       ("value_int", torch.int64), ("value_ints", torch.int64)):
        if key in a:
            return torch.tensor(a[key], dtype=dtype)
    raise UnsupportedOp(f"Constant node {node.name!r}: attribute {list(a)} not supported")


def op_constant_of_shape(node, a, shape):
    value = to_torch(numpy_helper.to_array(a["value"])) if "value" in a else torch.zeros(1)
    return torch.full(ints(shape), value.flatten()[0].item(), dtype=value.dtype)


def op_cast(node, a, x):
    to = a["to"]
    if to not in ONNX_TO_TORCH:
        raise UnsupportedOp(f"Cast to element type {to} (node {node.name!r})")
    return x.to(ONNX_TO_TORCH[to])


def op_expand(node, a, x, shape):
    out = torch.broadcast_shapes(tuple(x.shape), tuple(ints(shape)))
    return x.expand(out).contiguous()


def _resize_common(node, x, size, mode, transform, scales=None):
    spatial = x.dim() - 2
    if list(x.shape[:2]) != list(size[:2]):
        raise UnsupportedOp(f"{node.op_type} of batch/channel dims (node {node.name!r})")
    size = [int(s) for s in size[2:]]
    # torch maps coordinates with the given scale when asked (ONNX does), else in/out.
    how = dict(size=size) if scales is None else dict(scale_factor=scales[2:],
                                                      recompute_scale_factor=False)
    if mode == "linear" and min(size) == 1:
        raise UnsupportedOp(f"linear {node.op_type} to a size-1 dim (node {node.name!r})")
    if mode == "nearest":
        if transform != "asymmetric":
            raise UnsupportedOp(f"nearest {node.op_type} with {transform} (node {node.name!r})")
        return F.interpolate(x, mode="nearest", **how)
    if mode == "linear":
        torch_mode = {1: "linear", 2: "bilinear", 3: "trilinear"}[spatial]
        if transform == "align_corners":
            return F.interpolate(x, size=size, mode=torch_mode, align_corners=True)
        if transform in ("half_pixel", "pytorch_half_pixel"):
            return F.interpolate(x, mode=torch_mode, align_corners=False, **how)
    raise UnsupportedOp(f"{node.op_type} mode {mode} with {transform} (node {node.name!r})")


def _resize_axes_sizes(a, x, sizes):
    """Resize-18 sizes for all axes: `axes` names a subset, keep_aspect_ratio_policy scales
    them by one factor (the least or the largest of size / extent, rounded half away from
    zero as C's roundf)."""
    axes = [d % x.dim() for d in a.get("axes", range(x.dim()))]
    sizes = ints(sizes)
    policy = a.get("keep_aspect_ratio_policy", b"stretch").decode()
    if policy != "stretch":
        ratios = [np.float32(s) / np.float32(x.shape[d]) for s, d in zip(sizes, axes)]
        f = min(ratios) if policy == "not_larger" else max(ratios)
        sizes = [int(np.floor(np.float32(f) * np.float32(x.shape[d]) + np.float32(0.5))) for d in axes]
    full = list(x.shape)
    for s, d in zip(sizes, axes):
        full[d] = s
    return full


def op_resize(node, a, x, roi=None, scales=None, sizes=None):
    mode = a.get("mode", b"nearest").decode()
    transform = a.get("coordinate_transformation_mode", b"half_pixel").decode()
    if mode == "nearest" and a.get("nearest_mode", b"round_prefer_floor").decode() != "floor":
        raise UnsupportedOp(f"Resize nearest_mode {a.get('nearest_mode')} (node {node.name!r})")
    if sizes is not None and sizes.numel():
        return _resize_common(node, x, _resize_axes_sizes(a, x, sizes), mode, transform)
    scales = scales.flatten().tolist()
    if "axes" in a:  # scales for the named axes only
        full = [1.0] * x.dim()
        for s, d in zip(scales, a["axes"]):
            full[d % x.dim()] = s
        scales = full
    size = [int(math.floor(d * s)) for d, s in zip(x.shape, scales)]
    return _resize_common(node, x, size, mode, transform, scales)


def op_upsample(node, a, x, scales=None):
    mode = a.get("mode", b"nearest").decode()
    scales = scales.flatten().tolist() if scales is not None else list(a["scales"])
    size = [int(math.floor(d * s)) for d, s in zip(x.shape, scales)]
    return _resize_common(node, x, size, mode, "asymmetric", scales)


def op_pad(node, a, x, pads=None, value=None, axes=None):
    mode = a.get("mode", b"constant").decode()
    pads = ints(pads) if pads is not None else list(a["pads"])
    if axes is not None:  # Pad-18: pads name only these axes (all begins, then all ends)
        named, full = [d % x.dim() for d in ints(axes)], [0] * (2 * x.dim())
        for k, d in enumerate(named):
            full[d], full[d + x.dim()] = pads[k], pads[k + len(named)]
        pads = full
    fill = value.item() if value is not None and value.numel() else a.get("value", 0.0)
    torch_pads = _torch_pad_order(pads)
    if mode == "constant":
        return F.pad(x, torch_pads, value=fill)
    # torch's reflect/replicate pad only the trailing dims: drop the leading zero pairs.
    while len(torch_pads) > 2 and torch_pads[-2:] == [0, 0]:
        torch_pads = torch_pads[:-2]
    # ... and only floating tensors.
    y = F.pad(x.double() if not x.dtype.is_floating_point else x, torch_pads,
              mode={"reflect": "reflect", "edge": "replicate"}[mode])
    return y.to(x.dtype)


def op_clip(node, a, x, lo=None, hi=None):
    lo = lo.item() if lo is not None and lo.numel() else a.get("min")
    hi = hi.item() if hi is not None and hi.numel() else a.get("max")
    if lo is None and hi is None:
        return x.clone()
    return torch.clamp(x, lo, hi)


def op_div(node, a, x, y):
    if x.dtype.is_floating_point:
        return x / y
    return torch.div(x, y, rounding_mode="trunc")


def op_range(node, a, start, limit, delta):
    return torch.arange(start.item(), limit.item(), delta.item(), dtype=start.dtype)


def op_concat(node, a, *xs):
    return torch.cat([x for x in xs], a["axis"])


def op_dropout(node, a, x, ratio=None, training=None):
    if a.get("is_test", 1) == 0 or (training is not None and bool(training.item())):
        raise UnsupportedOp(f"Dropout in training mode (node {node.name!r})")
    return x, torch.ones_like(x, dtype=torch.bool)


def op_tile(node, a, x, repeats):
    return x.repeat(ints(repeats))


def op_argmax(node, a, x):
    axis, keep = a.get("axis", 0) % x.dim(), bool(a.get("keepdims", 1))
    if a.get("select_last_index", 0):
        return x.shape[axis] - 1 - torch.argmax(x.flip(axis), axis, keepdim=keep)
    return torch.argmax(x, axis, keepdim=keep)


def op_one_hot(node, a, indices, depth, values):
    d = int(depth.flatten()[0].item())
    idx = indices.long()
    idx = torch.where(idx < 0, idx + d, idx)
    valid = (idx >= 0) & (idx < d)  # out of range: an all-off row
    hot = F.one_hot(idx.clamp(0, d - 1), d) * valid.unsqueeze(-1)
    axis = a.get("axis", -1)
    if axis < 0:
        axis += indices.dim() + 1
    hot = hot.movedim(-1, axis).bool()
    off, on = values.flatten()[0], values.flatten()[1]
    return torch.where(hot, on, off).to(values.dtype)


def op_group_norm(node, a, x, scale, bias):
    groups, c = a["num_groups"], x.shape[1]
    y = F.group_norm(x, groups, eps=a.get("epsilon", 1e-5))
    if scale.numel() != c:  # opset 18: one scale and bias per group
        scale, bias = scale.repeat_interleave(c // groups), bias.repeat_interleave(c // groups)
    shape = [1, c] + [1] * (x.dim() - 2)
    return y * scale.view(shape) + bias.view(shape)


def op_rms_norm(node, a, x, scale):
    axis = a.get("axis", -1) % x.dim()
    dims = list(range(axis, x.dim()))
    return x / torch.sqrt((x * x).mean(dims, keepdim=True) + a.get("epsilon", 1e-5)) * scale


def op_center_crop_pad(node, a, x, shape):
    y = x
    for target, d in zip(ints(shape), a.get("axes", range(x.dim()))):
        d %= x.dim()
        n = y.shape[d]
        if target < n:  # crop, the extra (odd) element off the end
            y = y.narrow(d, (n - target) // 2, target)
        elif target > n:  # pad with zeros, the extra element at the end
            sizes = list(y.shape)
            sizes[d] = target
            z = torch.zeros(sizes, dtype=y.dtype)
            z.narrow(d, (target - n) // 2, n).copy_(y)
            y = z
    return y


def op_attention(node, a, q, k, v, mask=None, past_key=None, past_value=None, nonpad=None):
    """Attention-23/24 (scaled dot product, grouped heads, past keys), qk_matmul_output_mode
    0 (the scaled QK product) and no softcap or nonpad_kv_seqlen."""
    if nonpad is not None or a.get("softcap", 0.0) or a.get("qk_matmul_output_mode", 0):
        raise UnsupportedOp(f"Attention with nonpad_kv_seqlen, softcap or a QK mode (node {node.name!r})")

    def heads_first(t, heads):  # [B, S, H*D] -> [B, H, S, D]
        return t if t.dim() == 4 else t.reshape(t.shape[0], t.shape[1], heads, -1).transpose(1, 2)
    q4 = heads_first(q, a.get("q_num_heads", 0))
    k4 = heads_first(k, a.get("kv_num_heads", 0))
    v4 = heads_first(v, a.get("kv_num_heads", 0))
    if past_key is not None:
        k4, v4 = torch.cat([past_key, k4], 2), torch.cat([past_value, v4], 2)
    group = q4.shape[1] // k4.shape[1]
    qk = q4 @ k4.repeat_interleave(group, 1).transpose(-1, -2) * a.get("scale", 1 / math.sqrt(q4.shape[-1]))
    scores = qk
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf")) if mask.dtype == torch.bool else scores + mask
    if a.get("is_causal", 0):
        sq, total = scores.shape[-2:]
        scores = scores.masked_fill(~torch.ones(sq, total, dtype=torch.bool).tril(total - sq), float("-inf"))
    y = torch.softmax(scores, -1) @ v4.repeat_interleave(group, 1)
    if q.dim() == 3:
        y = y.transpose(1, 2).reshape(q.shape[0], q.shape[1], -1)
    return y, k4, v4, qk


# Sequences are Python lists of tensors.
def op_split_to_sequence(node, a, x, split=None):
    axis = a.get("axis", 0) % x.dim()
    if split is None:
        parts = list(torch.split(x, 1, axis))
        return [p.squeeze(axis) for p in parts] if a.get("keepdims", 1) == 0 else parts
    if split.dim() == 0:
        return list(torch.split(x, int(split.item()), axis))
    return list(torch.split(x, ints(split), axis))


def op_sequence_insert(node, a, s, t, pos=None):
    s = list(s)
    p = len(s) if pos is None else int(pos.item())
    s.insert(p + len(s) if p < 0 else p, t)
    return s


def op_sequence_erase(node, a, s, pos=None):
    s = list(s)
    del s[-1 if pos is None else int(pos.item())]
    return s


def op_concat_from_sequence(node, a, s):
    if a.get("new_axis", 0):
        return torch.stack(s, a["axis"])
    return torch.cat(s, a["axis"])


def op_einsum(node, a, *xs):
    return torch.einsum(a["equation"].decode(), *xs)


def _elementwise(f):
    return lambda node, a, *xs: f(*xs)


def _variadic(f):
    def op(node, a, *xs):
        out = xs[0]
        for x in xs[1:]:
            out = f(out, x)
        return out
    return op


OPS = {
    "Conv": op_conv, "MaxPool": op_maxpool, "AveragePool": op_avgpool,
    "GlobalAveragePool": lambda n, a, x: x.mean(list(range(2, x.dim())), keepdim=True),
    "GlobalMaxPool": lambda n, a, x: x.amax(list(range(2, x.dim())), keepdim=True),
    "Add": _elementwise(torch.add), "Sub": _elementwise(torch.sub),
    "Mul": _elementwise(torch.mul), "Div": op_div,
    "Pow": lambda n, a, x, y: torch.pow(x, y).to(x.dtype),
    "Sqrt": _elementwise(torch.sqrt), "Erf": _elementwise(torch.erf),
    "Exp": _elementwise(torch.exp), "Log": _elementwise(torch.log),
    "Neg": _elementwise(torch.neg), "Abs": _elementwise(torch.abs),
    "Reciprocal": _elementwise(torch.reciprocal), "Floor": _elementwise(torch.floor),
    "Ceil": _elementwise(torch.ceil), "Sin": _elementwise(torch.sin),
    "Cos": _elementwise(torch.cos),
    "Relu": _elementwise(torch.relu), "Sigmoid": _elementwise(torch.sigmoid),
    "Tanh": _elementwise(torch.tanh), "Clip": op_clip,
    "LeakyRelu": lambda n, a, x: F.leaky_relu(x, a.get("alpha", 0.01)),
    "Elu": lambda n, a, x: F.elu(x, a.get("alpha", 1.0)),
    "Softplus": lambda n, a, x: F.softplus(x),
    "Softsign": lambda n, a, x: x / (1 + x.abs()),
    "HardSigmoid": lambda n, a, x: torch.clamp(a.get("alpha", 0.2) * x + a.get("beta", 0.5), 0, 1),
    "HardSwish": lambda n, a, x: x * torch.clamp(x / 6 + 0.5, 0, 1),
    "Gemm": op_gemm, "MatMul": _elementwise(torch.matmul),
    "BatchNormalization": op_batchnorm, "LayerNormalization": op_layernorm,
    "ReduceMean": _reduce(lambda x, ax, k: x.mean(ax, keepdim=k)),
    "ReduceSum": _reduce(lambda x, ax, k: x.sum(ax, keepdim=k)),
    "ReduceMax": _reduce(_reduce_each(lambda x, ax, k: x.amax(ax, keepdim=k))),
    "ReduceMin": _reduce(_reduce_each(lambda x, ax, k: x.amin(ax, keepdim=k))),
    "Softmax": _softmax(torch.softmax), "LogSoftmax": _softmax(torch.log_softmax),
    "Flatten": op_flatten, "Reshape": op_reshape, "Transpose": op_transpose,
    "Concat": op_concat, "Split": op_split, "Slice": op_slice, "Gather": op_gather,
    "Shape": op_shape, "Unsqueeze": op_unsqueeze, "Squeeze": op_squeeze,
    "Constant": op_constant, "ConstantOfShape": op_constant_of_shape, "Cast": op_cast,
    "Expand": op_expand, "Resize": op_resize, "Upsample": op_upsample, "Pad": op_pad,
    "Where": _elementwise(torch.where), "Equal": _elementwise(torch.eq),
    "Less": _elementwise(torch.lt), "Greater": _elementwise(torch.gt),
    "LessOrEqual": _elementwise(torch.le), "GreaterOrEqual": _elementwise(torch.ge),
    "ConvTranspose": op_conv_transpose,
    "Size": lambda n, a, x: torch.tensor(x.numel(), dtype=torch.int64),
    "Not": _elementwise(torch.logical_not), "And": _elementwise(torch.logical_and),
    "Or": _elementwise(torch.logical_or), "Range": op_range,
    "Identity": lambda n, a, x: list(x) if isinstance(x, list) else x.clone(), "Dropout": op_dropout,
    "Max": _variadic(torch.maximum), "Min": _variadic(torch.minimum),
    "Sum": _variadic(torch.add), "Tile": op_tile, "ArgMax": op_argmax, "Einsum": op_einsum,
    "OneHot": op_one_hot,
    # Ops added after opset 17 (ONNX 1.12's inference does not know them).
    "Gelu": lambda n, a, x: F.gelu(x, approximate=a.get("approximate", b"none").decode()),
    "Mish": _elementwise(F.mish), "GroupNormalization": op_group_norm,
    "RMSNormalization": op_rms_norm, "CenterCropPad": op_center_crop_pad,
    "BitwiseAnd": _elementwise(torch.bitwise_and), "BitwiseOr": _elementwise(torch.bitwise_or),
    "BitwiseXor": _elementwise(torch.bitwise_xor), "BitwiseNot": _elementwise(torch.bitwise_not),
    "Attention": op_attention,
    "SplitToSequence": op_split_to_sequence, "SequenceConstruct": lambda n, a, *xs: list(xs),
    "SequenceEmpty": lambda n, a: [], "SequenceInsert": op_sequence_insert,
    "SequenceErase": op_sequence_erase,
    "SequenceAt": lambda n, a, s, pos: s[int(pos.item())].clone(),
    "SequenceLength": lambda n, a, s: torch.tensor(len(s), dtype=torch.int64),
    "ConcatFromSequence": op_concat_from_sequence,
}
OPSET_AWARE = {"Softmax", "LogSoftmax"}
# Ops whose output is the input's bytes reinterpreted (memplan's contract: they alias).
VIEW_OPS = {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity", "Dropout"}


def opset_of(model):
    for imp in model.opset_import:
        if imp.domain in ("", "ai.onnx"):
            return imp.version
    return 1


def _run_graph(graph, env, record, opset, scope):
    for index, node in enumerate(graph.node):
        if node.domain not in ("", "ai.onnx"):
            raise UnsupportedOp(f"op {node.domain}.{node.op_type} (node {node.name!r})")
        a = attrs_of(node)
        args = []
        for name in node.input:
            if name == "":
                args.append(None)
            elif name in env:
                args.append(env[name])
            else:
                raise KeyError(f"node {node.name!r} ({node.op_type}) reads {name!r}, "
                               "which no earlier node produced")
        while args and args[-1] is None:
            args.pop()
        if node.op_type == "If":
            branch = a["then_branch"] if bool(args[0].item()) else a["else_branch"]
            inner = dict(env)
            _run_graph(branch, inner, record, opset, scope or node.name or f"If#{index}")
            outs = tuple(inner[o.name] for o in branch.output)
        elif node.op_type in OPS:
            kwargs = {"opset": opset} if node.op_type in OPSET_AWARE else {}
            with torch.no_grad():
                outs = OPS[node.op_type](node, a, *args, **kwargs)
            if not isinstance(outs, tuple):
                outs = (outs,)
        else:
            raise UnsupportedOp(f"op {node.op_type} (node {node.name!r}) is not implemented "
                                "by the reference executor")
        for name, value in zip(node.output, outs):
            if name == "":
                continue
            env[name] = value
            record[name] = Executed(*_shape_dtype(value), tensor_bytes(value),
                                    node.op_type, node.name, scope)


def weight_names(model):
    """Initializers and Constant outputs of the main graph: the weights memplan leaves out."""
    g = model.graph
    return {i.name for i in g.initializer} | {o for n in g.node if n.op_type == "Constant"
                                               for o in n.output}


def run(model, inputs):
    """Executes `model` (onnx.ModelProto) on `inputs` (name -> torch tensor).

    Returns (values, record): every tensor's value, and every executed tensor's Executed
    entry (graph inputs, node outputs in the main graph and in the taken If branches).
    """
    env = {init.name: to_torch(numpy_helper.to_array(init)) for init in model.graph.initializer}
    record = {}
    for name, value in inputs.items():
        env[name] = value
        record[name] = Executed(tuple(value.shape), value.dtype, tensor_bytes(value),
                                "input", "", "")
    _run_graph(model.graph, env, record, opset_of(model), "")
    return env, record


def graph_inputs(model):
    """The model's true inputs (graph inputs that are not initializers)."""
    inits = {i.name for i in model.graph.initializer}
    return [i for i in model.graph.input if i.name not in inits]


def random_inputs(model, shapes=None, seed=0):
    """Random inputs: shapes from `shapes` (name -> list) or the model's static dims."""
    gen = torch.Generator().manual_seed(seed)
    out = {}
    for vi in graph_inputs(model):
        tt = vi.type.tensor_type
        if shapes and vi.name in shapes:
            shape = list(shapes[vi.name])
        else:
            shape = []
            for d in tt.shape.dim:
                if not d.HasField("dim_value"):
                    raise ValueError(f"input {vi.name!r} has a symbolic dim; give its shape")
                shape.append(d.dim_value)
        dtype = ONNX_TO_TORCH[tt.elem_type]
        if dtype.is_floating_point:
            out[vi.name] = torch.randn(shape, generator=gen).to(dtype)
        elif dtype == torch.bool:
            out[vi.name] = torch.randint(0, 2, shape, generator=gen).bool()
        else:
            out[vi.name] = torch.randint(0, 4, shape, generator=gen).to(dtype)
    return out
