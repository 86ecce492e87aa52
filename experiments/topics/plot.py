"""Plots OUT/lda_<set>.json (experiments/topics/lda.cpp) as OUT/lda_<set>.png: held-out perplexity
against documents processed, one line per sampler and step size (complete recipe Fig. 3's shape); left
from the current sample, right averaged over the posterior samples after burn-in (Patterson & Teh §4).
Usage: /usr/bin/python3 experiments/topics/plot.py OUT"""
import glob
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

out = sys.argv[1] if len(sys.argv) > 1 else "reproductions"
COLOURS = {"sgrld": "tab:blue", "sgld": "tab:orange", "sgrhmc": "tab:green", "sghmc": "tab:red"}
SETS = {"three-groups": "SpamAssassin three-groups", "all-spam": "all SpamAssassin mails",
        "pooled": "pooled: SpamAssassin + Brown + KJV"}
for path in sorted(glob.glob(os.path.join(out, "lda_*.json"))):
    with open(path) as f:
        j = json.load(f)
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
    for run in j["runs"]:
        sampler = run["sampler"]
        # one line style per step size within a sampler, one colour per sampler
        same = [(r["step_a"], r.get("friction")) for r in j["runs"] if r["sampler"] == sampler]
        style = ["-", "--", ":", "-.", (0, (5, 1)), (0, (1, 3)), (0, (3, 1, 1, 1, 1, 1))][same.index((run["step_a"], run.get("friction"))) % 7]
        label = (f'{sampler.upper()} a={run["step_a"]:g}' + (f' C={run["friction"]:g}' if "friction" in run else "")
                 + (" (stopped)" if "failure" in run else ""))
        colour = COLOURS.get(sampler)
        axes[0].plot(run["documents"], run["perplexity"], linestyle=style, color=colour, marker=".", ms=3, label=label)
        avg = [(d, p) for d, p in zip(run["documents"], run.get("perplexity_avg", [])) if p is not None]
        if avg:
            axes[1].plot(*zip(*avg), linestyle=style, color=colour, marker=".", ms=3, label=label)
    for ax, title in zip(axes, ("current sample", f'averaged over samples (every {j.get("thin", "?")} steps after step {j.get("burn_in", "?")})')):
        ax.axhline(j["random_topics_perplexity"], color="grey", lw=0.8, ls=":", label="random topics")
        ax.set_xlabel("documents processed")
        ax.set_yscale("log")
        ax.set_title(title, fontsize=9)
    axes[0].set_ylabel("held-out perplexity")
    axes[0].legend(fontsize=6, ncol=2)
    fig.suptitle(f'LDA, {SETS.get(j["set"], j["set"])} (K={j["K"]}, V={j["vocabulary"]}, batch {j["batch_size"]})')
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
        label = (f'{name} γ={run["gamma"]:g}' + (f' α={run["alpha_friction"]:g}' if "alpha_friction" in run else "")
                 + (" (stopped)" if "failure" in run else ""))
        axes[0].plot(c["seconds"], c["log_perplexity"], style, marker=".", label=label)
        axes[1].plot(c["documents"], c["log_perplexity"], style, marker=".", label=label)
    for ax, xl in zip(axes, ("sampler wall-clock seconds", "documents processed")):
        if "initial_log_perplexity" in j:
            ax.axhline(j["initial_log_perplexity"], color="grey", lw=0.8, ls=":", label="initial topics")
        ax.set_xlabel(xl)
        ax.set_ylabel("held-out log-perplexity (lower is better)")
    axes[1].set_xscale("log")
    axes[0].legend(fontsize=7)
    fig.suptitle(f'SAM, {SETS.get(j["set"], j["set"])} (K={j["K"]}, V={j["vocabulary"]}, {j["train_documents"]} training docs, '
                 f'θ threads {j["settings"]["threads"]}, seed {j["settings"].get("seed", 1)})')
    fig.tight_layout()
    png = path[:-5] + ".png"
    fig.savefig(png, dpi=120)
    print("wrote", png)
