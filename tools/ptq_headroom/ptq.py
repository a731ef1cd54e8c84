"""Fake-quant (integer-exact) emulation of tauvta's power-of-two PTQ scheme for VGG-7 / Fashion-MNIST.

Mirrors docs/quantization.md and src/graph/quantize_stats.cpp / quantize_layers.cpp:
  * histogram-based frac_bits choice (log-linear magnitude histogram, 32 sub-bins per octave)
    with the 'mse' rule, searched from the max rule's point up to bits+8 finer;
  * weights per output channel, round-half-even + saturate; biases at f_in+f_w (32-bit);
  * integer accumulation, requantization: (acc + 2^(s-1)) >> s (floor), left shift if s<=0,
    clip to [0 or qmin, qmax]; MaxPool on integers; logits dequantized, argmax (first index on ties).
"""
import gzip
import os
import numpy as np
import onnx
import onnx.numpy_helper as nh
import torch
import torch.nn.functional as F

torch.set_num_threads(1)
D = "/usr/share/datasets/fashion-mnist"
MODEL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models", "vgg7_fmnist.onnx")
KMIN_EXP, KMAX_EXP, KSUB = -48, 48, 32
KBINS = (KMAX_EXP - KMIN_EXP) * KSUB
KMAX_FRAC, KMIN_FRAC = 48, -32


# ----------------------------------------------------------------------------- data / model
def load_idx(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    ndim = data[3]
    dims = [int.from_bytes(data[4 + 4 * i: 8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(data, np.uint8, offset=4 + 4 * ndim).reshape(dims)


def load_data():
    tr = load_idx(f"{D}/train-images-idx3-ubyte.gz").astype(np.float32) / 255.0
    trl = load_idx(f"{D}/train-labels-idx1-ubyte.gz").astype(np.int64)
    te = load_idx(f"{D}/t10k-images-idx3-ubyte.gz").astype(np.float32) / 255.0
    tel = load_idx(f"{D}/t10k-labels-idx1-ubyte.gz").astype(np.int64)
    t = lambda a: torch.from_numpy(a[:, None].copy())
    return t(tr), torch.from_numpy(trl), t(te), torch.from_numpy(tel)


# layer table: (weight name, kind, relu, pool_after)
LAYERS = [("features.0", "conv", True, False), ("features.2", "conv", True, True),
          ("features.5", "conv", True, False), ("features.7", "conv", True, True),
          ("features.10", "conv", True, False), ("features.12", "conv", True, True),
          ("classifier.1", "fc", True, False), ("classifier.3", "fc", False, False)]


def load_weights():
    m = onnx.load(MODEL)
    init = {i.name: torch.from_numpy(nh.to_array(i).copy()).float() for i in m.graph.initializer}
    # all Gemms are transB=1, alpha=beta=1 (checked in the ONNX)
    return [(init[n + ".weight"], init[n + ".bias"]) for n, *_ in LAYERS]


def lin(kind, x, w, b=None):
    if kind == "conv":
        return F.conv2d(x, w, b, padding=1)
    if x.dim() > 2:
        x = x.flatten(1)
    return F.linear(x, w, b)


def float_forward(W, x, collect=False):
    """Float model. Returns logits and (if collect) per-layer (input, pre-act, post-act)."""
    x = x.float()
    acts = []
    for (name, kind, relu, pool), (w, b) in zip(LAYERS, W):
        xin = x
        pre = lin(kind, x, w, b)
        post = F.relu(pre) if relu else pre
        if collect:
            acts.append((xin, pre, post))
        x = F.max_pool2d(post, 2) if pool else post
    return x, acts


# ----------------------------------------------------------------------------- histogram rule
class Hist:
    def __init__(self):
        self.pos = np.zeros(KBINS, np.int64)
        self.neg = np.zeros(KBINS, np.int64)
        self.zeros = 0
        self.count = 0
        self.min = None
        self.max = None

    def add(self, v):
        v = np.asarray(v, np.float32).ravel()
        v = v[~np.isnan(v)]
        if v.size == 0:
            return
        self.min = v.min() if self.min is None else min(self.min, v.min())
        self.max = v.max() if self.max is None else max(self.max, v.max())
        self.count += v.size
        m = np.abs(v)
        tiny = np.float32(2.0 ** KMIN_EXP)
        nz = m >= tiny
        self.zeros += int((~nz).sum())
        bits = m.view(np.uint32)
        e = ((bits >> 23) & 0xFF).astype(np.int64) - 127
        sub = ((bits >> 18) & 31).astype(np.int64)
        b = np.minimum((e - KMIN_EXP) * KSUB + sub, KBINS - 1)
        self.pos += np.bincount(b[nz & (v > 0)], minlength=KBINS)
        self.neg += np.bincount(b[nz & (v < 0)], minlength=KBINS)
        return self

    _centers = None

    @classmethod
    def centers(cls):
        if cls._centers is None:
            bb = np.arange(KBINS)
            o, s = bb // KSUB, bb % KSUB
            lo = np.ldexp(1.0 + s / KSUB, o + KMIN_EXP)
            hi = np.ldexp(1.0 + (s + 1) / KSUB, o + KMIN_EXP)
            cls._centers = 0.5 * (lo + hi)
        return cls._centers

    def qmse(self, bits, f):
        if self.count == 0:
            return 0.0
        step = 2.0 ** -f
        hi = (2.0 ** (bits - 1) - 1) * step
        lo = 2.0 ** (bits - 1) * step
        c = self.centers()

        def err(center, limit):
            return np.where(center > limit, (center - limit) ** 2,
                            np.where(center < step / 2, center ** 2, step * step / 12))
        s = 0.0
        if True:
            s += (self.pos * err(np.minimum(c, float(self.max)), hi)).sum()
            s += (self.neg * err(np.minimum(c, float(-self.min)), lo)).sum()
        return s / self.count


def largest_fitting_frac(mag, limit):
    for f in range(KMAX_FRAC, KMIN_FRAC, -1):
        if np.ldexp(mag, f) < limit + 0.5:
            return f
    return KMIN_FRAC


def f_maxrule(h, bits):
    qmax = 2.0 ** (bits - 1) - 1
    qmin_mag = 2.0 ** (bits - 1)
    if h.count == 0 or max(abs(h.min), abs(h.max)) == 0:
        return min(max(bits - 1, KMIN_FRAC), KMAX_FRAC)
    f = KMAX_FRAC
    if h.max > 0 and qmax > 0:
        f = min(f, largest_fitting_frac(float(h.max), qmax))
    if h.min < 0:
        f = min(f, largest_fitting_frac(-float(h.min), qmin_mag))
    if h.max > 0 and qmax == 0 and h.min >= 0:
        f = KMIN_FRAC
    return f


def choose_frac(h, bits, stat="mse"):
    fm = f_maxrule(h, bits)
    if h.count == 0 or max(abs(h.min), abs(h.max)) == 0 or stat == "max":
        return fm
    best, be = fm, h.qmse(bits, fm)
    for f in range(fm + 1, min(KMAX_FRAC, fm + bits + 8) + 1):
        e = h.qmse(bits, f)
        if e < be:
            best, be = f, e
    return best


def q_rne(x, f, bits):
    """float -> int (as float64 tensor): nearest, ties to even, saturate."""
    lo, hi = -2.0 ** (bits - 1), 2.0 ** (bits - 1) - 1
    return torch.clamp(torch.round(x.double() * 2.0 ** f), lo, hi)


# ----------------------------------------------------------------------------- quantized model
class QModel:
    """Integer-exact emulation. fmt[0] = input frac bits, fmt[i+1] = output frac of layer i."""

    def __init__(self, W, abits, wbits, fmt, fw=None, bias=None, logit_bits=None):
        self.W = W
        self.abits, self.wbits = abits, wbits
        self.fmt = list(fmt)
        self.logit_bits = logit_bits if logit_bits is not None else abits  # 'acc' = no requant
        self.fw = fw if fw is not None else [weight_fracs_hist(w, wbits) for w, _ in W]
        self.bias = bias if bias is not None else [b.clone() for _, b in W]  # float biases
        self.requant_weights()

    def requant_weights(self):
        self.wq = []
        for (w, _), fw in zip(self.W, self.fw):
            fwt = torch.tensor(fw, dtype=torch.float32).view(-1, *([1] * (w.dim() - 1)))
            self.wq.append(torch.clamp(torch.round(w * 2.0 ** fwt), -2.0 ** (self.wbits - 1),
                                       2.0 ** (self.wbits - 1) - 1).float())

    def out_bits(self, i):
        return self.logit_bits if i == len(LAYERS) - 1 else self.abits

    def bias_int(self, i):
        fin = self.fmt[i]
        fb = torch.tensor([fin + f for f in self.fw[i]], dtype=torch.float32)
        b = torch.clamp(torch.round(self.bias[i].double() * 2.0 ** fb.double()), -2.0 ** 31, 2.0 ** 31 - 1)
        assert b.abs().max() < 2 ** 23, 'bias too large for exact float32'
        return b.float()

    def quant_input(self, x):
        return q_rne(x.double(), self.fmt[0], self.abits).float()

    def acc(self, i, q):
        """integer accumulator (float64 exact) of layer i for integer input q (float32)."""
        name, kind, relu, pool = LAYERS[i]
        a = lin(kind, q, self.wq[i])
        shp = (1, -1, 1, 1) if a.dim() == 4 else (1, -1)
        a = a + self.bias_int(i).view(shp)
        assert a.abs().max() < 2 ** 24, 'accumulator not exact in float32'
        return a

    def acc_frac(self, i):
        return torch.tensor([self.fmt[i] + f for f in self.fw[i]], dtype=torch.float32)

    def requant(self, i, a):
        name, kind, relu, pool = LAYERS[i]
        bits = self.out_bits(i)
        s = (self.acc_frac(i) - self.fmt[i + 1])
        shp = (1, -1, 1, 1) if a.dim() == 4 else (1, -1)
        s = s.view(shp)
        v = torch.where(s > 0, torch.floor((a + torch.where(s > 0, 2.0 ** (s - 1), 0.0)) * 2.0 ** -s),
                        a * 2.0 ** -s)
        lo = 0.0 if relu else -2.0 ** (bits - 1)
        return torch.clamp(v, lo, 2.0 ** (bits - 1) - 1)

    def layer(self, i, q):
        """returns (next integer input, acc) for layer i."""
        a = self.acc(i, q)
        if i == len(LAYERS) - 1 and self.logit_bits == "acc":
            return a * 2.0 ** -self.acc_frac(i).view(1, -1), a
        v = self.requant(i, a)
        if LAYERS[i][3]:
            v = F.max_pool2d(v, 2)
        return v.float(), a

    def forward(self, x, upto=None):
        q = self.quant_input(x)
        n = len(LAYERS) if upto is None else upto
        for i in range(n):
            q, _ = self.layer(i, q)
        if upto is None and self.logit_bits != "acc":
            return q * 2.0 ** -self.fmt[-1]
        return q

    def logits(self, x, bs=1000):
        return torch.cat([self.forward(x[k:k + bs]) for k in range(0, len(x), bs)])


def weight_fracs_hist(w, bits, stat="mse"):
    out = []
    for c in range(w.shape[0]):
        h = Hist()
        h.add(w[c].float().numpy())
        out.append(choose_frac(h, bits, stat))
    return out


def evaluate(logits, labels):
    pred = logits.argmax(1)  # torch argmax returns the first maximal index
    top = logits.max(1, keepdim=True).values
    ties = ((logits == top).sum(1) > 1).double().mean().item()
    return (pred == labels).double().mean().item(), ties


# ----------------------------------------------------------------------------- calibration
def calib_hists(W, xcal, bs=128):
    """histograms of the input and of each layer's fused output (post-ReLU / logits)."""
    hs = [Hist() for _ in range(len(LAYERS) + 1)]
    hs[0].add(xcal.numpy())
    for k in range(0, len(xcal), bs):
        _, acts = float_forward(W, xcal[k:k + bs], collect=True)
        for i, (_, _, post) in enumerate(acts):
            hs[i + 1].add(post.float().numpy())
    return hs


def act_formats(hs, abits, logit_bits=None, stat="mse"):
    fmt = [choose_frac(h, abits, stat) for h in hs]
    if logit_bits not in (None, "acc"):
        fmt[-1] = choose_frac(hs[-1], logit_bits, stat)
    return fmt
