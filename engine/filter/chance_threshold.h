// Chance-hit thresholds for the filter's scores.
//
// A query of q fingerprints against a row whose fraction of set bits is f
// hits it by chance about Binomial(q, f^k) times. For a document spanning
// rows the hits of its rows add up: a sum of independent binomials with
// mean lambda = sum of q f_r^k. Both are dominated (in the moment-generating
// function) by Poisson(lambda), so the Chernoff bound
//     P(X >= c) <= exp(-lambda) (e lambda / c)^c,   c > lambda,
// bounds their upper tail rigorously. A score is significant at level
// alpha when that bound is <= alpha.
//
// Thread-safety: pure functions.
#ifndef LEAKHOUND_ENGINE_FILTER_CHANCE_THRESHOLD_H_
#define LEAKHOUND_ENGINE_FILTER_CHANCE_THRESHOLD_H_

#include <cstdint>

namespace leakhound {

// log of the bound above on P(X >= count); 0 (bound 1) when count <= lambda.
// REQUIRES: lambda >= 0.
double LogChanceTailBound(double lambda, double count);

// True when LogChanceTailBound(lambda, count) <= log_alpha, but rejects
// most counts without a logarithm: the bound is -lambda h(count / lambda)
// with h(x) = x ln x - x + 1 <= (x - 1)^2 / 2 for x >= 1, so a significant
// count has (count - lambda)^2 >= 2 lambda |log_alpha|.
// REQUIRES: lambda >= 0, log_alpha < 0.
bool IsSignificant(double lambda, double count, double log_alpha);

// Smallest count c with LogChanceTailBound(lambda, c) <= log(alpha).
// REQUIRES: lambda >= 0, 0 < alpha < 1.
uint32_t MinSignificantCount(double lambda, double alpha);

}  // namespace leakhound

#endif  // LEAKHOUND_ENGINE_FILTER_CHANCE_THRESHOLD_H_
