# One run of the glm target against its Stan reference (scripts/bench_glm.sh; docs/benchmarks.md, "GLM
# against Stan"): our draws (draws_csv: `sgmcmc run ... --format draws_csv`) summarised as the
# reference was (mean and its MCSE, sd and its MCSE: scripts/glm_mcse.R), each parameter scored
#   z = (mean - ref mean) / ref sd,          its MC error e_z = sqrt(mcse² + ref mcse²) / ref sd,
#   r = sd / ref sd - 1,                     its MC error e_r = sqrt(mcse_sd² + (r+1)² ref mcse_sd²) / ref sd,
# and the run judged: PASS when max |z| < 0.1 and max |r| < 0.1 (the issue's tolerances). The
# combined MC errors are printed beside them; a run whose error is above a quarter of a tolerance is
# marked "weak" (too short to judge against it). `exact` also says whether every |z| < 4 e_z and
# |r| < 4 e_r: for an exact sampler (hmc) that is the sharper check of the density itself.
# Usage: Rscript scripts/glm_compare.R REF_CSV REF_SECONDS DRAWS_CSV SECONDS LABEL [RESULTS_TSV]
#   Prints one line per parameter and a summary; appends the summary to RESULTS_TSV.
args <- commandArgs(trailingOnly = TRUE)
suppressPackageStartupMessages(library(rstan))
here <- dirname(sub("--file=", "", grep("--file=", commandArgs(FALSE), value = TRUE)))
source(file.path(here, "glm_mcse.R"))
ref <- read.csv(args[1], stringsAsFactors = FALSE)
ref_seconds <- as.numeric(readLines(args[2]))
d <- read.csv(args[3], check.names = FALSE)
seconds <- as.numeric(args[4]); label <- args[5]
d <- d[order(d[[".chain"]], d[[".iteration"]]), ]
chains <- sort(unique(d[[".chain"]]))
n <- min(table(d[[".chain"]]))
sims <- array(NA_real_, c(n, length(chains), nrow(ref)), dimnames = list(NULL, NULL, ref$parameter))
for (k in seq_along(chains)) for (p in ref$parameter) sims[, k, p] <- head(d[d[[".chain"]] == chains[k], p], n)
mon <- monitor(sims, warmup = 0, print = FALSE)
e <- t(sapply(seq_len(dim(sims)[3]), function(k) glm_mcse(sims[, , k])))
z <- (e[, "mean"] - ref$mean) / ref$sd
e_z <- sqrt(e[, "mcse_mean"]^2 + ref$mcse_mean^2) / ref$sd
r <- e[, "sd"] / ref$sd - 1
e_r <- sqrt(e[, "mcse_sd"]^2 + (r + 1)^2 * ref$mcse_sd^2) / ref$sd
per <- data.frame(parameter = ref$parameter, ref_mean = ref$mean, mean = e[, "mean"], z = z, e_z = e_z, ref_sd = ref$sd,
                  sd = e[, "sd"], r = r, e_r = e_r, ess_bulk = mon[, "Bulk_ESS"], rhat = mon[, "Rhat"])
cat(sprintf("== %s (%d chains x %d draws)\n", label, length(chains), n))
print(per, digits = 4, row.names = FALSE)
iz <- which.max(abs(z)); ir <- which.max(abs(r))
pass <- max(abs(z)) < 0.1 && max(abs(r)) < 0.1
weak <- max(e_z) > 0.025 || max(e_r) > 0.025
exact <- all(abs(z) < 4 * e_z) && all(abs(r) < 4 * e_r)
line <- data.frame(label = label, max_z = abs(z[iz]), e_z = e_z[iz], max_r = abs(r[ir]), e_r = e_r[ir], max_e_z = max(e_z),
                   max_e_r = max(e_r), min_ess = min(mon[, "Bulk_ESS"]), max_rhat = max(mon[, "Rhat"]), seconds = seconds,
                   ref_seconds = ref_seconds, verdict = if (pass) "PASS" else "FAIL", weak = weak,
                   within_4_mcse = exact)
cat(sprintf("%s: max |z| %.3f (%s, MC error %.3f), max |sd ratio - 1| %.3f (%s, MC error %.3f); %.1f s against NUTS's %.1f s; %s%s; within 4 combined MCSE: %s\n",
            label, abs(z[iz]), ref$parameter[iz], e_z[iz], abs(r[ir]), ref$parameter[ir], e_r[ir], seconds, ref_seconds,
            line$verdict, if (weak) " (weak: MC error above a quarter of a tolerance)" else "", if (exact) "yes" else "no"))
if (length(args) >= 6) write.table(line, args[6], sep = "\t", row.names = FALSE, quote = FALSE, append = file.exists(args[6]),
                                   col.names = !file.exists(args[6]))
