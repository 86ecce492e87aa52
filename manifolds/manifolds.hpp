#pragma once
// Every shipped manifold (docs/manifolds.md): Euclidean, Sphere, Simplex, Stiefel, Box, Product<...>, Power<M>
// and the run-time DynamicProduct. Check a new manifold with <sgmcmc/modules/conformance/...>.
#include <sgmcmc/manifolds/box.hpp>
#include <sgmcmc/manifolds/dynamic_product.hpp>
#include <sgmcmc/manifolds/euclidean.hpp>
#include <sgmcmc/manifolds/product.hpp>
#include <sgmcmc/manifolds/simplex.hpp>
#include <sgmcmc/manifolds/sphere.hpp>
#include <sgmcmc/manifolds/stiefel.hpp>
