#!/usr/bin/python3
"""Plots the real-data experiments' JSON (Debian's python3-matplotlib): OUTDIR/bpmf.json -> bpmf.png."""
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
        for m in s["methods"]:
            ax.plot([p["pass"] for p in m["curve"]], [p["rmse"] for p in m["curve"]], label=m["method"])
        ax.axhline(s["bias_baseline_rmse"], color="k", ls="--", label="user+item bias")
        lo = min(min(p["rmse"] for p in m["curve"]) for m in s["methods"])
        ax.set_ylim(min(lo, s["bias_baseline_rmse"]) - 0.02, s["bias_baseline_rmse"] + 0.25)
        ax.set_xlabel("passes over the training ratings")
        ax.set_ylabel("test RMSE")
        ax.set_title(f"BPMF, MovieLens-small, {s['split']} split")
        ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "bpmf.png"), dpi=110)
    print("wrote", os.path.join(out, "bpmf.png"))
