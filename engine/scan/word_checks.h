// CheckExtender: the word checks of the second stage (docs/engine.md,
// "Word checks"). A passage of shared shingles says nothing of the words
// between and around them; each token's one-byte check, stored with the
// source's shingles, does. CheckExtender grows a chain past its ends while
// the checks agree (Extend), counts the words it holds without a shingle
// that differ and the words inserted in its bridged gaps (Verify), and
// charges the gaps between the passages of a group (ChargeGaps). Internal
// to engine/scan (passage_matcher.cc).
//
// Thread-safety: const methods only; an instance may be shared by threads
// while what it refers to lives.
#ifndef LEAKHOUND_ENGINE_SCAN_WORD_CHECKS_H_
#define LEAKHOUND_ENGINE_SCAN_WORD_CHECKS_H_

#include <cstdint>
#include <functional>
#include <span>
#include <string_view>
#include <vector>

#include "engine/scan/passage.h"
#include "engine/scan/passage_chain.h"
#include "engine/scan/scanned_text.h"
#include "index/records.h"
#include "shingler/shingler.h"

namespace leakhound {

// REQUIRES: `scanned`, `source`, `source_checks` (one check per source
// token), `suppressed` and `options` outlive the extender;
// scanned.text().word_checks holds one check per scanned token.
class CheckExtender {
 public:
  CheckExtender(const ScannedText& scanned, std::span<const Occurrence> source,
                std::string_view source_checks,
                const std::function<bool(uint64_t)>& suppressed,
                const PassageOptions& options)
      : text_(scanned.text()),
        source_(source),
        source_checks_(source_checks),
        suppressed_(suppressed),
        options_(options) {}
  CheckExtender(const CheckExtender&) = delete;
  CheckExtender& operator=(const CheckExtender&) = delete;

  // Grows chain `c` past its ends along its diagonals while the word
  // checks agree (PassageOptions::max_check_skip_tokens), never into a
  // token of a suppressed scanned shingle.
  void Extend(PassageChain& c) const;

  // Checks the words `c` holds without a shingle. Substituted ones: the
  // tokens it counts as covered whose checks differ, but for an aligned
  // gap the source holds elsewhere (sentences swapped: Explain). Inserted
  // ones: the tokens it bridged off its diagonal that the source does not
  // hold near there (short sentences moved within a copied excerpt, too
  // short for a shingle of their own, are held, and count as covered).
  // When more than one token in kMaxSubstitutedShare of the passage is
  // substituted or inserted, it is another text with words in common (a
  // sibling page's sentence with its subject changed, a paragraph written
  // from one template), not a copy with a few words changed. It then
  // counts the largest run of the stretches between its insertions that
  // stays within that share; a single stretch beyond it counts less its
  // substituted words.
  void Verify(PassageChain& c) const;

  // Sets each passage's inserted_before and copied_before: the tokens
  // between it and the passages before it, when at most
  // max_group_gap_tokens, that count as inserted, and the words of those
  // that count as covered, moved ones (Explain). Unless those are
  // copied, sets held_after and held_before (Held): the moved words at
  // the edges, each side's walk stopping where the other's began. A gap
  // partly held still counts whole as inserted.
  // REQUIRES: `passages` in scanned-text order.
  void ChargeGaps(std::vector<Passage>& passages) const;

 private:
  // Whether scanned token t (facing source token t + diagonal) may be
  // compared: both exist and no suppressed shingle holds t.
  bool Usable(int64_t t, int64_t diagonal) const;

  // Scanned tokens between two runs of copied text: how many count as
  // inserted, and the weight of those that count as covered.
  struct Gap {
    uint32_t inserted;
    uint64_t copied_units;
  };
  // The scanned tokens [begin, end) before text on source diagonal
  // `after`. They are inserted unless the source holds them, checks equal
  // and in order, as runs of at least kMinMovedTokens tokens (the last of
  // several may be shorter) each within kMoveTokens of where the text
  // after them resumes: moved words (short sentences of a reordered
  // excerpt, too short for a shingle of their own), which count as
  // covered. A gap shorter than one run is inserted words. Suppressed
  // tokens match any and count as neither.
  static constexpr uint32_t kMoveTokens = 256;
  // A run of 3 tokens' checks agrees by chance with one of the 512 places
  // searched with probability 2^-15; a run of 1 almost surely does.
  static constexpr uint32_t kMinMovedTokens = 3;
  Gap Explain(uint32_t begin, uint32_t end, int64_t after) const;

  // The words of the scanned tokens from `edge` toward `limit` (forward
  // when limit > edge: tokens [edge, limit); backward otherwise: tokens
  // [limit, edge) from the last) that the source holds, checks equal and
  // in order, as consecutive runs of at least kMinMovedTokens tokens, each
  // within the group slack and gap of the passage's source range
  // [source_begin, source_end) but outside it (another part of the
  // excerpt, not a phrase the passage repeats); the walk stops at the
  // first token no such run holds, or a suppressed one, and sets
  // `*reached` to where it stopped.
  uint32_t Held(uint32_t edge, uint32_t limit, uint32_t source_begin,
                uint32_t source_end, uint32_t* reached) const;

  // The most of `wanted`, from its first, that the source holds in
  // order, checks equal, starting at a token of [lo, hi) and read forward
  // (`step` +1) or backward (-1) without leaving it. kAnyCheck matches
  // any check.
  static constexpr int16_t kAnyCheck = -1;
  uint32_t LongestRun(std::span<const int16_t> wanted, int64_t lo, int64_t hi,
                      int step) const;

  bool Agrees(int64_t t, int64_t diagonal) const;

  // Grows a passage whose end (`step` +1) or first token (`step` -1) is
  // `edge`, by at most max_check_extension_tokens tokens: returns its new
  // end (a token index for the begin, one past it for the end) and sets
  // the differing tokens it crossed, with their weight, in `*extension`.
  uint32_t Reach(uint32_t edge, int64_t diagonal, int step,
                 PassageChain::Extension* extension) const;

  const ShingledText& text_;
  std::span<const Occurrence> source_;
  std::string_view source_checks_;
  const std::function<bool(uint64_t)>& suppressed_;
  const PassageOptions& options_;
};

}  // namespace leakhound

#endif  // LEAKHOUND_ENGINE_SCAN_WORD_CHECKS_H_
