// Whether a slow key derivation per cell (Argon2id or scrypt with a
// per-table salt) is affordable for exact data match, against the keyed
// BLAKE2b-128 the cell hasher uses (docs/records.md, "Guessing"). Each
// benchmark hashes one 10-byte cell; the figures per cell give the cost
// of adding a 10M-row table (8 cells a row) and of scanning (one hash per
// candidate value of the text), and the same figure is what one guess
// costs whoever holds the key.
//
//   build/tests/bench/cell_kdf_bench
#include <benchmark/benchmark.h>
#include <sodium.h>

#include <array>
#include <cstring>

namespace {

constexpr char kCell[] = "1984-03-17";
constexpr size_t kCellBytes = sizeof(kCell) - 1;

void BM_Blake2bKeyed(benchmark::State& state) {
  std::array<unsigned char, 32> key{};
  std::array<unsigned char, 16> out{};
  for (auto _ : state) {
    crypto_generichash(out.data(), out.size(),
                       reinterpret_cast<const unsigned char*>(kCell),
                       kCellBytes, key.data(), key.size());
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(BM_Blake2bKeyed);

// Argon2id at `memory_kib` KiB and one pass: libsodium's floor is 8 KiB.
void BM_Argon2id(benchmark::State& state) {
  std::array<unsigned char, crypto_pwhash_SALTBYTES> salt{};
  std::array<unsigned char, 16> out{};
  const size_t memory = static_cast<size_t>(state.range(0)) * 1024;
  for (auto _ : state) {
    if (crypto_pwhash(out.data(), out.size(), kCell, kCellBytes, salt.data(),
                      crypto_pwhash_OPSLIMIT_MIN, memory,
                      crypto_pwhash_ALG_ARGON2ID13) != 0) {
      state.SkipWithError("crypto_pwhash failed");
      break;
    }
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(BM_Argon2id)->Arg(8)->Arg(64)->Arg(1024);

// scrypt at libsodium's floor (N = 2^14 by OPSLIMIT_MIN and MEMLIMIT_MIN).
void BM_ScryptMin(benchmark::State& state) {
  std::array<unsigned char, crypto_pwhash_scryptsalsa208sha256_SALTBYTES>
      salt{};
  std::array<unsigned char, 16> out{};
  for (auto _ : state) {
    if (crypto_pwhash_scryptsalsa208sha256(
            out.data(), out.size(), kCell, kCellBytes, salt.data(),
            crypto_pwhash_scryptsalsa208sha256_OPSLIMIT_MIN,
            crypto_pwhash_scryptsalsa208sha256_MEMLIMIT_MIN) != 0) {
      state.SkipWithError("scrypt failed");
      break;
    }
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(BM_ScryptMin);

}  // namespace

int main(int argc, char** argv) {
  if (sodium_init() < 0) return 1;
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
