#!/usr/bin/python3
"""Plots the JSON written by reproduce_recipe (one PNG per figure). Usage: plot.py DIR"""
import json, math, os, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

d = sys.argv[1]
def load(n):
    p = os.path.join(d, n + ".json")
    return json.load(open(p)) if os.path.exists(p) else None

j = load("fig2_left")
if j:
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, t in zip(axes, j["targets"]):
        for m in t["methods"]:
            ax.loglog(m["steps"], m["kl"], label=m["method"])
        ax.set_title("U = " + t["target"]); ax.set_xlabel("steps"); ax.set_ylabel("KL(histogram || truth)"); ax.legend()
    fig.tight_layout(); fig.savefig(os.path.join(d, "fig2_left.png"), dpi=120)

j = load("fig2_right")
if j:
    import numpy as np
    a = np.linspace(-4, 4, 200); b = np.linspace(-3, 3, 200); A, B = np.meshgrid(a, b)
    U = A**4 / 10 + (4 * (B + 1.2) - A**2)**2 / 2
    fig, axes = plt.subplots(1, 3, figsize=(12, 4), sharey=True)
    for ax, m in zip(axes, j["methods"]):
        ax.contour(A, B, np.exp(-U), 8, colors="0.7")
        ax.plot(m["theta1"][:200], m["theta2"][:200], ".-", ms=2, lw=0.3)
        ax.set_title("%s: first %d steps" % (m["method"], 200 * j["keep_every"]))
    fig.tight_layout(); fig.savefig(os.path.join(d, "fig2_right.png"), dpi=120)

j = load("sghmc_fig1")
if j:
    lo, hi, n = j["bins"]; w = (hi - lo) / n
    xs = [lo + (k + 0.5) * w for k in range(int(n))]
    plt.figure(figsize=(6, 4))
    plt.plot(xs, [p / w for p in j["truth"][1:-1]], "k", lw=2, label="true")
    for m in j["methods"]:
        plt.plot(xs, [p / w for p in m["histogram"][1:-1]], label="%s (TV %.3f)" % (m["method"], m["tv"]))
    plt.xlabel("theta"); plt.ylabel("density"); plt.legend(fontsize=7); plt.tight_layout()
    plt.savefig(os.path.join(d, "sghmc_fig1.png"), dpi=120)

j = load("sghmc_fig2")
if j:
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5))
    for t in j["trajectories"]:
        axes[0].plot(t["theta"], t["r"], lw=0.3, label=t["method"])
    axes[0].set_xlabel("theta"); axes[0].set_ylabel("r"); axes[0].legend(fontsize=7)
    for e in j["energy"]:
        axes[1].plot(e["at"], e["mean_energy"], label=e["method"])
        if "exact_mean_energy" in e: axes[1].plot(e["at"], e["exact_mean_energy"], "k--", label="exact (frictionless)")
    axes[1].set_xlabel("step"); axes[1].set_ylabel("mean H over chains"); axes[1].legend(fontsize=7)
    fig.tight_layout(); fig.savefig(os.path.join(d, "sghmc_fig2.png"), dpi=120)

j = load("sghmc_fig3")
if j:
    plt.figure(figsize=(6, 4))
    for meth, mk in (("SGHMC", "o-"), ("SGLD", "s-")):
        p = [q for q in j["points"] if q["method"] == meth]
        plt.plot([q["cov_abs_error"] for q in p], [q["autocorrelation_time"] for q in p], mk, label=meth + " (ESS-based)")
        plt.plot([q["exact_cov_bias"] for q in p], [q["exact_autocorrelation_time"] for q in p], mk[0] + "--", mfc="none",
                 label=meth + " (exact)")
    plt.xscale("log"); plt.xlabel("mean |cov error|"); plt.ylabel("autocorrelation time"); plt.legend(fontsize=7)
    plt.tight_layout(); plt.savefig(os.path.join(d, "sghmc_fig3.png"), dpi=120)
print("plots written to", d)
