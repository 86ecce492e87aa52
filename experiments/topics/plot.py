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
