//! \file tally/BatchReduction.cc
#include "tally/BatchReduction.hh"

#include "core/Assert.hh"
#include "tally/DoseTally.hh"

namespace mcdose
{
std::vector<std::uint64_t>
reduce_fx_batch_words(std::vector<std::vector<std::uint64_t>> const& group_words, Comm const& comm)
{
    MCDOSE_VALIDATE(!group_words.empty(), << "a batch reduction needs at least one grid");
    std::vector<std::uint64_t> sum = group_words.front();
    for (std::size_t g = 1; g < group_words.size(); ++g)
    {
        MCDOSE_VALIDATE(group_words[g].size() == sum.size(),
                        << "batch grids of different sizes in one reduction");
        for (std::size_t i = 0; i < sum.size(); ++i)
            sum[i] += group_words[g][i]; // wraps modulo 2^64: exact int64 sum
    }
    comm.allreduce_sum(make_span(sum));
    return sum;
}

std::vector<double> reduce_batch(TallyMethod method, int fx_quantum_exp2,
                                 std::vector<std::vector<std::uint64_t>> const& group_words,
                                 size_type voxels, Comm const& comm)
{
    MCDOSE_VALIDATE(!group_words.empty(), << "a batch reduction needs at least one grid");
    if (method == TallyMethod::fx)
        return decode_tally_words(method, fx_quantum_exp2, reduce_fx_batch_words(group_words, comm),
                                  voxels);
    std::vector<double> sum =
        decode_tally_words(method, fx_quantum_exp2, group_words.front(), voxels);
    for (std::size_t g = 1; g < group_words.size(); ++g)
    {
        std::vector<double> const e =
            decode_tally_words(method, fx_quantum_exp2, group_words[g], voxels);
        for (size_type i = 0; i < voxels; ++i)
            sum[i] += e[i];
    }
    comm.sum_in_rank_order(make_span(sum));
    return sum;
}
} // namespace mcdose
