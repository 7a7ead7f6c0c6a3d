#!/usr/bin/env python3
"""The most covered words the second stage can find in an excerpt with
words substituted at random (issue 37), whatever the filter does.

A shingle of w words survives only if none of its words was replaced; the
passage runs from the first surviving shingle to the last, and gaps between
survivors on one diagonal count as covered when the step between their
starts is at most `gap` tokens. The words before the first survivor and
after the last can never be covered. Prints, for each excerpt length and
gap, the share of excerpts whose covered words reach --min-words.

usage: python3 corpus/substitution_ceiling.py [--trials N] [--min-words N]
"""
import argparse
import random


def covered_words(n, replaced, w, gap):
    starts = [i for i in range(n - w + 1)
              if not any(j in replaced for j in range(i, i + w))]
    if not starts:
        return 0
    best = covered = w
    for prev, start in zip(starts, starts[1:]):
        covered = covered + (start - prev) if start - prev <= gap else w
        best = max(best, covered)
    return best


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, default=20000)
    parser.add_argument("--min-words", type=int, default=22)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    print("words share_replaced shingle_words gap reach_min_words")
    for n in (30, 50):
        replace = int(0.15 * n + 0.5)  # corpus/obfuscation.cc rounds so
        for w, gaps in ((5, (20, 30, 1000)), (4, (16, 24))):
            for gap in gaps:
                hits = sum(
                    covered_words(n, set(rng.sample(range(n), replace)), w,
                                  gap) >= args.min_words
                    for _ in range(args.trials))
                print(n, 0.15, w, gap, f"{hits / args.trials:.3f}")


if __name__ == "__main__":
    main()
