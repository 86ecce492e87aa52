"""Plots OUT/lda_<set>.json (experiments/topics/lda.cpp) as OUT/lda_<set>.png: held-out perplexity
against documents processed, one line per sampler and step size (complete recipe Fig. 3's shape).
Usage: /usr/bin/python3 experiments/topics/plot.py OUT"""
import glob
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

out = sys.argv[1] if len(sys.argv) > 1 else "reproductions"
for path in sorted(glob.glob(os.path.join(out, "lda_*.json"))):
    with open(path) as f:
        j = json.load(f)
    fig, ax = plt.subplots(figsize=(6, 4))
    for run in j["runs"]:
        style = "-" if run["sampler"] == "sgrld" else "--"
        label = f'{run["sampler"].upper()} a={run["step_a"]:g}' + (" (stopped)" if "failure" in run else "")
        ax.plot(run["documents"], run["perplexity"], style, marker=".", label=label)
    ax.axhline(j["random_topics_perplexity"], color="grey", lw=0.8, ls=":", label="random topics")
    ax.set_xlabel("documents processed")
    ax.set_ylabel("held-out perplexity")
    ax.set_yscale("log")
    ax.set_title(f'LDA, SpamAssassin {j["set"]} (K={j["K"]}, V={j["vocabulary"]}, batch {j["batch_size"]})')
    ax.legend(fontsize=7)
    fig.tight_layout()
    png = path[:-5] + ".png"
    fig.savefig(png, dpi=120)
    print("wrote", png)

# SAM (experiments/topics/sam.cpp): OUT/sam_<set>.json -> OUT/sam_<set>.png, held-out log-perplexity
# against sampler seconds (SGGMC paper Fig. 5's axes) and against documents processed.
for path in sorted(glob.glob(os.path.join(out, "sam_*.json"))):
    with open(path) as f:
        j = json.load(f)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for run in j.get("runs", []):
        c = run["curve"]
        name = run["method"]
        style = "-" if name.startswith("SGGMC") else "--" if name.startswith("gSGNHT") else ":"
        label = f'{name} γ={run["gamma"]:g}' + (" (stopped)" if "failure" in run else "")
        axes[0].plot(c["seconds"], c["log_perplexity"], style, marker=".", label=label)
        axes[1].plot(c["documents"], c["log_perplexity"], style, marker=".", label=label)
    for ax, xl in zip(axes, ("sampler wall-clock seconds", "documents processed")):
        if "initial_log_perplexity" in j:
            ax.axhline(j["initial_log_perplexity"], color="grey", lw=0.8, ls=":", label="initial topics")
        ax.set_xlabel(xl)
        ax.set_ylabel("held-out log-perplexity (lower is better)")
    axes[1].set_xscale("log")
    axes[0].legend(fontsize=7)
    fig.suptitle(f'SAM, SpamAssassin {j["set"]} (K={j["K"]}, V={j["vocabulary"]}, {j["train_documents"]} training docs, '
                 f'{j["settings"]["threads"]} threads)')
    fig.tight_layout()
    png = path[:-5] + ".png"
    fig.savefig(png, dpi=120)
    print("wrote", png)
