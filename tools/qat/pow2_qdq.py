"""Power-of-two fake quantization for any torchvision-style model, exported as ONNX QDQ.

`quantize_model(model, bits, wbits)` rewrites a float nn.Module in place:

  * the model's input goes through an activation quantizer (signed `bits`-wide range);
  * every nn.ReLU becomes ReLU -> quantizer on [0, 2^(bits-1) - 1] (the non-negative half of a
    signed format: tauvta's activations are signed, so after a ReLU a 4-bit one holds 0..7);
  * every nn.Conv2d / nn.Linear uses its weights fake-quantized per output channel
    (signed `wbits`-wide range, binary point by the MSE rule on the current weights);
  * the model's output (the logits) goes through a signed `bits`-wide quantizer.

Every quantizer computes clip(round_half_even(x * 2^f), qmin, qmax) * 2^-f (ONNX's
QuantizeLinear rounding) with a straight-through gradient that stops where the clip saturates.
Activation binary points are calibrated (`calibrate`) and then fixed; weight binary points are
re-picked by `refit_weights`.

Debian's PyTorch 1.13 refuses to export fake quantization below 8 bits ("ONNX allows only (0, 127),
(0, 255) and (-128, 127)"), so the quantizer is an autograd Function with its own `symbolic`: it
exports as QuantizeLinear(scale 2^-f, int8 zero point 0) -> Clip(qmin, qmax) on the int8 value ->
DequantizeLinear, per tensor for activations and per axis 0 for weights. tauvta's importer reads
that pattern back as the fixed-point formats (docs/quantization.md, "Importing quantized models").
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class _Pow2FakeQuant(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, frac, qmin, qmax, axis, half_up):
        shape = [1] * x.dim()
        if len(frac) > 1:
            shape[axis] = -1
        s = (2.0 ** torch.tensor(frac, dtype=x.dtype)).view(shape)
        v = x * s
        ctx.save_for_backward((v >= qmin) & (v <= qmax))
        return torch.clamp(torch.floor(v + 0.5) if half_up else torch.round(v), qmin, qmax) / s

    @staticmethod
    def backward(ctx, g):
        (inside,) = ctx.saved_tensors
        return g * inside, None, None, None, None, None

    @staticmethod
    def symbolic(g, x, frac, qmin, qmax, axis, half_up):
        scale = torch.pow(2.0, -torch.tensor(frac, dtype=torch.float32))
        per_axis = scale.numel() > 1
        if not per_axis:
            scale = scale.reshape(())
        zp = torch.zeros(scale.shape, dtype=torch.int8)
        kw = {"axis_i": axis} if per_axis else {}
        sc = g.op("Constant", value_t=scale)
        z = g.op("Constant", value_t=zp)
        q = g.op("QuantizeLinear", x, sc, z, **kw)
        lo = g.op("Constant", value_t=torch.tensor(int(qmin), dtype=torch.int8))
        hi = g.op("Constant", value_t=torch.tensor(int(qmax), dtype=torch.int8))
        q = g.op("Clip", q, lo, hi)
        return g.op("DequantizeLinear", q, sc, z, **kw)


def fake_quant(x, frac, qmin, qmax, axis=0, half_up=False):
    """`frac`: a tensor of binary points (one, or one per slice of `axis`); passed on as Python ints
    so that the export writes them as constants. half_up: round half up (the accelerator's
    requantization) instead of half to even (QuantizeLinear's, and tauvta's Quantize of inputs)."""
    return _Pow2FakeQuant.apply(x, tuple(int(v) for v in frac.reshape(-1).tolist()), qmin, qmax, axis, half_up)


def _grid_bias(layer):
    """The bias at the product's binary point f_in + f_w (per output channel), half to even, with a
    straight-through gradient: what the accelerator adds to its accumulator."""
    if layer.bias is None or layer.in_quant is None or not layer.bias_on_grid:
        return layer.bias
    s = 2.0 ** (layer.in_quant.frac + layer.wfrac).to(layer.bias.dtype)
    q = torch.round(layer.bias * s) / s
    return layer.bias + (q - layer.bias).detach()


_last_quant = [None]  # the activation quantizer that ran last (trace_inputs)


def mse_frac(x, qmin, qmax, per_channel=False, span=12):
    """The binary point(s) minimizing the squared error of fake quantization of `x` (per output
    channel along axis 0 when per_channel), searched from the no-clip point to `span` bits finer."""
    x = x.detach().float()
    rows = x.reshape(x.shape[0], -1) if per_channel else x.reshape(1, -1)
    mag = rows.abs().amax(1).clamp_min(1e-12)
    f0 = torch.floor(torch.log2(qmax / mag)).long()  # max rule: the largest f with mag*2^f <= qmax
    best_err = torch.full((rows.shape[0],), float("inf"))
    best = f0.clone()
    for d in range(span):
        f = f0 + d
        s = (2.0 ** f.float()).view(-1, 1)
        err = ((torch.clamp(torch.round(rows * s), qmin, qmax) / s - rows) ** 2).mean(1)
        better = err < best_err
        best_err = torch.where(better, err, best_err)
        best = torch.where(better, f, best)
    return best if per_channel else best.reshape(())


class ActQuant(nn.Module):
    """Activation quantizer with a fixed binary point (set by calibrate())."""

    def __init__(self, bits, non_negative, half_up=True):
        super().__init__()
        self.half_up = half_up
        self.qmin = 0 if non_negative else -2 ** (bits - 1)
        self.qmax = 2 ** (bits - 1) - 1
        self.register_buffer("frac", torch.tensor(0, dtype=torch.long))
        self.observing = None  # a list while calibrating

    def forward(self, x):
        if self.observing is not None:
            self.observing.append(x.detach())
            return x
        _last_quant[0] = self
        return fake_quant(x, self.frac, self.qmin, self.qmax, half_up=self.half_up)


class _QLayer:
    """What QConv2d and QLinear share: the input's quantizer (found by trace_inputs) and the bias grid."""
    in_quant = None
    tracing = False
    bias_on_grid = True

    def _trace(self):
        if self.tracing:  # a plain attribute: as a submodule it would be exported and saved twice
            object.__setattr__(self, "in_quant", _last_quant[0])

    def setup(self, wbits):
        """Per-output-channel weight binary points at `wbits` (the mse rule)."""
        self.wq = (-2 ** (wbits - 1), 2 ** (wbits - 1) - 1)
        self.register_buffer("wfrac", mse_frac(self.weight, *self.wq, per_channel=True))

    def qweight(self):
        return fake_quant(self.weight, self.wfrac, self.wq[0], self.wq[1], 0)


class QConv2d(_QLayer, nn.Conv2d):
    def forward(self, x):
        self._trace()
        return self._conv_forward(x, self.qweight(), _grid_bias(self))


class QLinear(_QLayer, nn.Linear):
    def forward(self, x):
        self._trace()
        return F.linear(x, self.qweight(), _grid_bias(self))


class QuantWrapper(nn.Module):
    """input quantizer -> the rewritten model -> output quantizer."""

    def __init__(self, model, bits):
        super().__init__()
        self.inq = ActQuant(bits, non_negative=False, half_up=False)  # tauvta's Quantize: half to even
        self.model = model
        self.outq = ActQuant(bits, non_negative=False)

    def forward(self, x):
        return self.outq(self.model(self.inq(x)))


def quantize_model(model, bits, wbits):
    def rewrite(parent):
        for name, child in parent.named_children():
            if isinstance(child, nn.ReLU):
                setattr(parent, name, nn.Sequential(nn.ReLU(), ActQuant(bits, non_negative=True)))
            elif type(child) in (nn.Conv2d, nn.Linear):
                child.__class__ = QConv2d if isinstance(child, nn.Conv2d) else QLinear
                child.setup(wbits)
            else:
                rewrite(child)
    rewrite(model)
    return QuantWrapper(model, bits)


def refit_weights(qmodel):
    for m in qmodel.modules():
        if isinstance(m, (QConv2d, QLinear)):
            m.wfrac.copy_(mse_frac(m.weight, *m.wq, per_channel=True))


@torch.no_grad()
def calibrate(qmodel, batches):
    """Fixes every activation quantizer's binary point by the MSE rule over `batches` (the
    quantizers before it already quantizing, so each sees the values it will get)."""
    acts = [m for m in qmodel.modules() if isinstance(m, ActQuant)]
    for a in acts:  # in forward order: inq first, then the ReLUs in module order, outq last
        a.observing = []
    order = [qmodel.inq] + [a for a in acts if a is not qmodel.inq and a is not qmodel.outq] + [qmodel.outq]
    for a in order:
        a.observing = []
        for b in batches:
            qmodel(b)
        a.frac.fill_(int(mse_frac(torch.cat([v.reshape(-1) for v in a.observing]), a.qmin, a.qmax)))
        a.observing = None
        for other in order:  # the others observe nothing until their turn
            if other.observing is not None:
                other.observing = []


def act_formats(qmodel):
    return [int(m.frac) for m in qmodel.modules() if isinstance(m, ActQuant)]


def set_act_formats(qmodel, fracs):
    acts = [m for m in qmodel.modules() if isinstance(m, ActQuant)]
    if len(fracs) != len(acts):
        raise SystemExit(f"{len(fracs)} formats given for {len(acts)} activation quantizers")
    for a, f in zip(acts, fracs):
        a.frac.fill_(int(f))


@torch.no_grad()
def trace_inputs(qmodel, sample):
    """Finds each layer's input quantizer (the one that ran last before it), for the bias grid."""
    layers = [m for m in qmodel.modules() if isinstance(m, _QLayer)]
    for m in layers:
        m.tracing = True
    qmodel(sample)
    for m in layers:
        m.tracing = False


@torch.no_grad()
def snap_biases(qmodel):
    """Writes the grid biases into the parameters before export, each plus a quarter of the
    accumulator's step 2^-(f_in + f_w + 2). The exported QuantizeLinear rounds ties to even where
    the accelerator (and this model) round them up; the quarter step moves every tie just above
    it, where both round up, and moves nothing else across a rounding boundary (the accumulator's
    other values lie at least a whole step away), while tauvta, rounding the bias to f_in + f_w,
    gets the grid value back. So the file's ONNX semantics, this model and the integer datapath
    agree exactly. (A layer without a bias keeps QuantizeLinear's ties-to-even in the file.)"""
    for m in qmodel.modules():
        if isinstance(m, _QLayer) and m.bias is not None:
            grid = _grid_bias(m)
            if m.in_quant is not None and m.bias_on_grid:
                grid = grid + 2.0 ** -(m.in_quant.frac + m.wfrac + 2).to(grid.dtype)
            m.bias.copy_(grid)
            m.bias_on_grid = False  # on it (up to the quarter step)
