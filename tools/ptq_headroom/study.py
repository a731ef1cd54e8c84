"""How far post-training choices can take VGG-7 / Fashion-MNIST at W4A4 and W2A2 under tauvta's
power-of-two scheme (ptq.py emulates it integer-exactly; its W4A4 baseline, 0.8620 held-out with
15% top-logit ties, equals the simulator's). Variants, each reported on held-out test[2000:10000):
  a  baseline (mse activations, per-channel mse weights)
  b  logits kept wide (8 bit, 16 bit, the raw accumulator)
  c  bias correction (per-channel mean output error folded into the bias)
  d  b + c
  e  weight binary points by layer-output MSE instead of weight MSE
  f  W2A2: formats chosen layer by layer for the best match to float, then a +-1 search
  search: per-layer +-1 format search on training images [512, 2512)
Results and the conclusions: docs/precision_case_study.md ("Headroom of post-training choices").
Usage (from this directory; Debian's python3 with torch, numpy, onnx; 10-30 min per run):
  /usr/bin/python3 study.py --bits 4,2 [--search | --only-search | --only-e]"""
import sys, time, json
import torch
import torch.nn.functional as F
from ptq import *

t0 = time.time()
log = lambda *a: print(f"[{time.time() - t0:6.0f}s]", *a, flush=True)
xtr, ytr, xte, yte = load_data()
W = load_weights()
xh, yh = xte[2000:], yte[2000:]           # held-out, as in the C++ measurement
xcal = xtr[:512]                          # calibration (same as pipeline)
xs, ys = xtr[512:2512], ytr[512:2512]     # format-search split (training images)
bits_list = [int(b) for b in (sys.argv[sys.argv.index("--bits") + 1].split(",") if "--bits" in sys.argv else ["4", "2"])]
do_search = "--search" in sys.argv
only_search = "--only-search" in sys.argv
do_search = do_search or only_search

lg = torch.cat([float_forward(W, xh[k:k + 1000])[0] for k in range(0, len(xh), 1000)])
FACC = evaluate(lg, yh)[0]
log("float held-out", FACC)
hs = calib_hists(W, xcal)
_, facts = float_forward(W, xcal, collect=True)   # float (input, pre, post) per layer on calib
results = {}


def report(name, m, bits):
    acc, ties = evaluate(m.logits(xh), yh)
    results[(name, bits)] = (acc, ties)
    log(f"W{bits}A{bits} {name:38s} acc={acc:.4f} gap={100 * (acc - FACC):+.2f} ties={ties:.3f} fmt={m.fmt}")
    return acc


def bias_correct(m, xc=xcal, mode="full"):
    """Empirical bias correction, layer by layer with earlier layers quantized (and corrected).
    mode full: reference = float model's pre-activation on the same images.
    mode weight: reference = float weights applied to the quantized input (weight error only)."""
    q = m.quant_input(xc)
    for i, (name, kind, relu, pool) in enumerate(LAYERS):
        a = m.acc(i, q)
        real = a * 2.0 ** -m.acc_frac(i).view((1, -1, 1, 1) if a.dim() == 4 else (1, -1))
        if mode == "full":
            ref = facts[i][1]
        else:
            ref = lin(kind, q * 2.0 ** -m.fmt[i], W[i][0], W[i][1])
        dims = (0, 2, 3) if a.dim() == 4 else (0,)
        m.bias[i] = m.bias[i] - (real - ref).mean(dims)
        q, _ = m.layer(i, q)
    return m


def output_mse_weights(m, xc=xcal, bs=64):
    """Per-channel weight frac bits minimising E[(x_q . (w_q - w))^2] on calib data, layer by
    layer, with the input x_q coming from the already-chosen quantized earlier layers."""
    q = m.quant_input(xc)
    for i, (name, kind, relu, pool) in enumerate(LAYERS):
        w = W[i][0]
        x = q * 2.0 ** -m.fmt[i]
        if kind == "conv":
            S = 0
            for k in range(0, len(x), bs):
                p = F.unfold(x[k:k + bs].double(), 3, padding=1).transpose(1, 2).reshape(-1, w[0].numel())
                S = S + p.T @ p
            n = len(x) * x.shape[2] * x.shape[3]
        else:
            p = x.flatten(1).double()
            S, n = p.T @ p, len(x)
        S = S / n
        wf = w.reshape(w.shape[0], -1).double()
        lo = min(weight_fracs_hist(w, m.wbits, "max"))
        cands = list(range(lo - 1, lo + m.wbits + 9))
        errs = []
        for f in cands:
            d = torch.clamp(torch.round(wf * 2.0 ** f), -2.0 ** (m.wbits - 1), 2.0 ** (m.wbits - 1) - 1) * 2.0 ** -f - wf
            errs.append(((d @ S) * d).sum(1))
        errs = torch.stack(errs)  # [cands, C]
        m.fw[i] = [cands[j] for j in errs.argmin(0).tolist()]
        m.requant_weights()
        q, _ = m.layer(i, q)
    return m


def acc_on(m, x, y):
    return evaluate(torch.cat([m.forward(x[k:k + 1000]) for k in range(0, len(x), 1000)]), y)


def format_search(m, x=xs, y=ys, sweeps=2, refit=None):
    """coordinate descent, +-1 on each activation format, objective = accuracy on a TRAINING split.
    refit(m) is re-applied after every change (e.g. bias correction, which depends on formats)."""
    base_bias = [b.clone() for b in m.bias]

    def score(fmt):
        m.fmt = list(fmt)
        if refit:
            m.bias = [b.clone() for b in base_bias]
            refit(m)
        a, t = acc_on(m, x, y)
        return a - 1e-3 * t   # tie-break towards fewer ties
    best = list(m.fmt)
    bs = score(best)
    for sw in range(sweeps):
        improved = False
        for i in range(len(best)):
            for d in (-1, 1):
                cand = list(best)
                cand[i] += d
                s = score(cand)
                if s > bs + 1e-9:
                    best, bs, improved = cand, s, True
        log(f"  search sweep {sw}: fmt={best} search-acc={bs:.4f}")
        if not improved:
            break
    m.fmt = best
    if refit:
        m.bias = [b.clone() for b in base_bias]
        refit(m)
    return m




def main_variants(B, fm):
    if "--only-e" in sys.argv:
        return e_variants(B, fm)
    # a. baseline
    report("a baseline", QModel(W, B, B, fm), B)
    # b. wide logits
    for lb in (8, 16, "acc"):
        report(f"b logits {lb}", QModel(W, B, B, act_formats(hs, B, lb), logit_bits=lb), B)
    # c. bias correction
    report("c biascorr (full ref)", bias_correct(QModel(W, B, B, fm)), B)
    report("c' biascorr (weight-err only)", bias_correct(QModel(W, B, B, fm), mode="weight"), B)
    # d. b + c
    for lb in (16, "acc"):
        report(f"d logits {lb} + biascorr", bias_correct(QModel(W, B, B, act_formats(hs, B, lb), logit_bits=lb)), B)
    e_variants(B, fm)


def e_variants(B, fm):
    # e. output-MSE weight formats
    me = output_mse_weights(QModel(W, B, B, fm))
    log("  e fw changes vs hist-mse:", [sum(int(a != b) for a, b in zip(fa, fb)) for fa, fb in
                                        zip(me.fw, QModel(W, B, B, fm).fw)])
    report("e outMSE weights", me, B)
    report("e + logits acc + biascorr", bias_correct(output_mse_weights(QModel(W, B, B, act_formats(hs, B, "acc"), logit_bits="acc"))), B)


def greedy_cosine(m, xc=xcal, span=4):
    """Layer by layer (input first), pick the format maximising the cosine between the dequantized
    quantized-path value and the float value on calib images (scale-free: a wrong power of two is
    what the later formats absorb; what matters at 2 bits is WHICH values are kept)."""
    xq = xc
    def cos(a, b):
        a, b = a.flatten().double(), b.flatten().double()
        return (a @ b / (a.norm() * b.norm() + 1e-30)).item()
    best, bc = m.fmt[0], -2
    for f in range(m.fmt[0] - span, m.fmt[0] + span + 1):
        m.fmt[0] = f
        c = cos(m.quant_input(xc) * 2.0 ** -f, xc)
        if c > bc: best, bc = f, c
    m.fmt[0] = best
    q = m.quant_input(xc)
    for i in range(len(LAYERS) - (1 if m.logit_bits == "acc" else 0)):
        ref = facts[i][2]
        f0 = m.fmt[i + 1]
        best, bc = f0, -2
        for f in range(f0 - span, f0 + span + 1):
            m.fmt[i + 1] = f
            v = m.requant(i, m.acc(i, q)) * 2.0 ** -f
            c = cos(v, ref)
            if c > bc: best, bc = f, c
        m.fmt[i + 1] = best
        log(f"  greedy layer {i}: f={best} cos={bc:.3f}")
        q, _ = m.layer(i, q)
    return m


def search_variants(B, fm):
    if B == 2:
        mg = greedy_cosine(QModel(W, B, B, act_formats(hs, B, "acc"), logit_bits="acc"))
        if "--skip-greedy-report" not in sys.argv:
            report("f greedy-cos fmts + logits acc", mg, B)
            report("f greedy-cos + acc + biascorr", bias_correct(mg), B)
        mg = greedy_cosine(QModel(W, B, B, act_formats(hs, B, "acc"), logit_bits="acc"))
        mg = format_search(mg, x=xs[:1000], y=ys[:1000], sweeps=1)
        report("f greedy-cos + acc + search(1 sweep)", mg, B)
        report("f greedy-cos + acc + search + biascorr", bias_correct(mg), B)
        mg2 = greedy_cosine(QModel(W, B, B, act_formats(hs, B, 8), logit_bits=8))
        report("f greedy-cos + logits 8", mg2, B)
        return
    if True:
        # format search on a training split (baseline model, then wide logits + bias corr)
        if B > 2: report("s search (a)", format_search(QModel(W, B, B, fm)), B)
        m = QModel(W, B, B, act_formats(hs, B, "acc"), logit_bits="acc")
        report("f search + logits acc + biascorr", format_search(m, refit=bias_correct), B)
        m2 = output_mse_weights(QModel(W, B, B, act_formats(hs, B, "acc"), logit_bits="acc"))
        report("f search + acc + biascorr + outMSE", format_search(m2, refit=bias_correct), B)

for B in bits_list:
    fm = act_formats(hs, B)
    if not only_search:
        main_variants(B, fm)
    if do_search:
        search_variants(B, fm)

json.dump({f"{k[0]}|W{k[1]}A{k[1]}": v for k, v in results.items()} | {"float": FACC},
          open(f"results_{'_'.join(map(str, bits_list))}{'_search' if do_search else ''}.json", "w"), indent=1)
log("done")
