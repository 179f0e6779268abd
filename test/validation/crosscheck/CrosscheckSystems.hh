//! \file test/validation/crosscheck/CrosscheckSystems.hh
//! CI-sized systems shared by the cross-check tests (built once per process).
#pragma once

#include "validation/crosscheck/md/LJSystem.hh"

namespace mcdose::crosscheck::test
{
//! 1024 LJ particles in an open box (the MD study's system, scaled down).
inline LJSystem const& ci_cloud()
{
    static LJSystem const sys = []
    {
        LJCloudOptions o;
        o.num_particles = 1024;
        return make_lj_cloud(o);
    }();
    return sys;
}

//! 96 chains of 8 atoms in a periodic box.
inline LJSystem const& ci_chains()
{
    static LJSystem const sys = []
    {
        LJChainOptions o;
        o.num_chains = 96;
        o.chain_length = 8;
        return make_lj_chains(o);
    }();
    return sys;
}
} // namespace mcdose::crosscheck::test
