// sgmcmc — the command-line tool: the library's command line (cli/main.hpp) with the shipped
// manifolds, targets and samplers. A user's own tool differs only in its registry (examples/custom_cli/).
#include <sgmcmc/cli/main.hpp>

int main(int argc, char** argv) { return sgmcmc::cli::main(argc, argv, sgmcmc::run::shipped_registry()); }
