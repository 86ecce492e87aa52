#!/usr/bin/python3
"""Plots the real-data experiments' JSON (Debian's python3-matplotlib): OUTDIR/bpmf.json -> bpmf.png,
OUTDIR/bnn.json -> bnn.png (test error against passes and against seconds). Methods that diverged at
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
    fig, axes = plt.subplots(1, 2, figsize=(12, 4))
    for key, ax, label in (("pass", axes[0], "passes over the training images"), ("seconds", axes[1], "seconds of sampling")):
        for m in r["methods"]:
            rate = ""
            if m["method"] in r.get("optimiser_tuning", {}):
                rate = f" (lr {r['optimiser_tuning'][m['method']]['chosen']:.1e})"
            ax.plot([p[key] for p in m["curve"]], [p["error"] for p in m["curve"]], label=m["method"] + rate)
        ax.set_ylim(0.08, 0.3)
        ax.set_xlabel(label)
        ax.set_ylabel("test error")
        ax.set_title("BNN 784-100-10, Fashion-MNIST (batch 500)")
        ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "bnn.png"), dpi=110)
    print("wrote", os.path.join(out, "bnn.png"))
