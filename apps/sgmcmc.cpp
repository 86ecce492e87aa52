// sgmcmc — the command-line tool: the library's command line (cli/main.hpp) with the shipped
// manifolds, targets and samplers. A user's own tool differs only in its registry (examples/custom_cli/).
// Built with -DSGMCMC_MPI=ON and started by mpirun, it runs over the job's ranks (docs/distributed.md);
// started any other way it is one process and does not initialise MPI (which would cost a singleton's
// start-up, about 0.4 s, on every call).
#include <sgmcmc/cli/main.hpp>
#ifdef SGMCMC_WITH_MPI
#include <sgmcmc/run/distributed/mpi.hpp>
#endif

int main(int argc, char** argv) {
#ifdef SGMCMC_WITH_MPI
  if (sgmcmc::run::distributed::launched_by_mpirun()) {
    sgmcmc::run::distributed::Session session(argc, argv);
    sgmcmc::run::distributed::MpiTransport transport;
    sgmcmc::cli::Program program;
    program.transport = &transport;
    return sgmcmc::cli::main(argc, argv, sgmcmc::run::shipped_registry(), program);
  }
#endif
  return sgmcmc::cli::main(argc, argv, sgmcmc::run::shipped_registry());
}
