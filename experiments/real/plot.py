#!/usr/bin/python3
"""Plots the real-data experiments' JSON (Debian's python3-matplotlib): OUTDIR/bpmf.json -> bpmf.png,
OUTDIR/bnn.json -> bnn.png (test error against passes and seconds, NLL and ECE against passes). Methods that diverged at
every learning rate are left out of the plot (the JSON records them)."""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

out = sys.argv[1] if len(sys.argv) > 1 else "reproductions-real"
path = os.path.join(out, "bpmf.json")
if os.path.exists(path):
    r = json.load(open(path))
    fig, axes = plt.subplots(1, len(r["splits"]), figsize=(6 * len(r["splits"]), 4))
    for ax, s in zip(axes, r["splits"]):
        curves = [m for m in s["methods"] if m.get("curve") and not m.get("diverged")]
        for m in curves:
            rate = f" (η = {m['learning_rate']:.0e})" if "learning_rate" in m else ""
            ax.plot([p["pass"] for p in m["curve"]], [p["rmse"] for p in m["curve"]], label=m["method"] + rate)
        ax.axhline(s["bias_baseline_rmse"], color="k", ls="--", label="user+item bias")
        lo = min([min(p["rmse"] for p in m["curve"]) for m in curves] + [s["bias_baseline_rmse"]])
        ax.set_ylim(min(lo, s["bias_baseline_rmse"]) - 0.02, s["bias_baseline_rmse"] + 0.25)
        ax.set_xlabel("passes over the training ratings")
        ax.set_ylabel("test RMSE")
        ax.set_title(f"BPMF, MovieLens-small, {s['split']} split")
        ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "bpmf.png"), dpi=110)
    print("wrote", os.path.join(out, "bpmf.png"))

path = os.path.join(out, "bnn.json")
if os.path.exists(path):
    r = json.load(open(path))
    fig, axes = plt.subplots(2, 2, figsize=(12, 8))
    panels = (("pass", "error", axes[0][0], (0.08, 0.3)), ("seconds", "error", axes[0][1], (0.08, 0.3)),
              ("pass", "nll", axes[1][0], (0.25, 0.8)), ("pass", "ece", axes[1][1], (0.0, 0.1)))
    names = {"pass": "passes over the training images", "seconds": "seconds of sampling", "error": "test error",
             "nll": "test negative log-likelihood", "ece": "expected calibration error (15 bins)"}
    for key, score, ax, ylim in panels:
        for m in r["methods"]:
            if not m["curve"] or score not in m["curve"][0]:
                continue  # a record from before NLL and ECE were scored
            rate = ""
            if m["method"] in r.get("optimiser_tuning", {}):
                rate = f" (lr {r['optimiser_tuning'][m['method']]['chosen']:.1e})"
            ax.plot([p[key] for p in m["curve"]], [p[score] for p in m["curve"]], label=m["method"] + rate)
        ax.set_ylim(*ylim)
        ax.set_xlabel(names[key])
        ax.set_ylabel(names[score])
        ax.set_title("BNN 784-100-10, Fashion-MNIST (batch 500)")
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "bnn.png"), dpi=110)
    print("wrote", os.path.join(out, "bnn.png"))
