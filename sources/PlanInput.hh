//! \file sources/PlanInput.hh
//! What the study says about an rt_plan source: the DICOM RT Plan (read when the study is
//! read, io/RtPlanFile.hh), the beams to deliver and the machine file that describes the
//! collimation (sources/MachineModel.hh). Turned into a sampler by sources/PlanSource.hh.
#pragma once

#include <string>
#include <vector>

#include "io/RtPlanFile.hh"
#include "sources/MachineModel.hh"

namespace mcdose
{
struct PlanInput
{
    RtPlan plan;
    MachineModel machine;
    std::vector<int> beams; //!< the Beam Numbers to deliver; empty: every beam of the plan
};
} // namespace mcdose
