# Pools independent NUTS references of one model (scripts/glm_reference.R run with different seeds,
# each into its own folder) into one: the chains side by side, the table recomputed as
# glm_reference.R computes it (scripts/glm_mcse.R), the wall time the last run's (one run's time, to
# set against one sgmcmc run of as many draws; the last is the one made beside ours when
# scripts/bench_glm.sh computes the references, on a machine as busy as it is during our runs).
# Usage: Rscript scripts/glm_pool.R OUTDIR MODEL DIR...   Writes OUTDIR/<MODEL>_ref.csv and
#   OUTDIR/<MODEL>_ref_seconds.txt.
args <- commandArgs(trailingOnly = TRUE)
out <- args[1]; name <- args[2]; dirs <- args[-(1:2)]
suppressPackageStartupMessages(library(rstan))
here <- dirname(sub("--file=", "", grep("--file=", commandArgs(FALSE), value = TRUE)))
source(file.path(here, "glm_mcse.R"))
parts <- lapply(dirs, function(d) readRDS(file.path(d, sprintf("%s_ref_draws.rds", name))))
n <- min(sapply(parts, function(p) dim(p)[1]))
names <- dimnames(parts[[1]])[[3]]
sims <- array(NA_real_, c(n, sum(sapply(parts, function(p) dim(p)[2])), length(names)), dimnames = list(NULL, NULL, names))
k <- 0
for (p in parts) for (c in seq_len(dim(p)[2])) { k <- k + 1; sims[, k, ] <- p[seq_len(n), c, ] }
mon <- monitor(sims, warmup = 0, print = FALSE)
e <- t(sapply(seq_len(dim(sims)[3]), function(j) glm_mcse(sims[, , j])))
table <- data.frame(parameter = names, mean = e[, "mean"], mcse_mean = e[, "mcse_mean"], sd = e[, "sd"], mcse_sd = e[, "mcse_sd"],
                    ess_mean = e[, "ess_mean"], ess_var = e[, "ess_var"], ess_bulk = mon[, "Bulk_ESS"], rhat = mon[, "Rhat"])
write.csv(table, file.path(out, sprintf("%s_ref.csv", name)), row.names = FALSE)
seconds <- sapply(dirs, function(d) as.numeric(readLines(file.path(d, sprintf("%s_ref_seconds.txt", name)))))
cat(sprintf("%.3f\n", seconds[length(seconds)]), file = file.path(out, sprintf("%s_ref_seconds.txt", name)))
cat(sprintf("%s: %d runs pooled, %d chains x %d draws, NUTS %s s wall per run, min bulk ESS %.0f, max Rhat %.4f\n", name, length(dirs),
            dim(sims)[2], n, paste(sprintf("%.1f", seconds), collapse = " and "), min(table$ess_bulk), max(table$rhat)))
