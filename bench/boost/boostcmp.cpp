// boostcmp measures Boost.Bloom's boost::bloom::filter<std::uint64_t, 1,
// fast_multiblock32<8>> on the keys of the sift bench module, so that its
// figures can be put beside sift-blocked's (bench/README.md). See
// README.md in this directory: what it measures, how to build it, where
// Boost's headers come from (nothing of Boost is in this repository).
//
// Keys and hashes are those of bench/keys.go: key i of the present stream is
// splitmix64(2i) and of the absent stream splitmix64(2i+1), as 8
// little-endian bytes, and the filter is given XXH3-64 (seed 0) of those
// bytes, the same 64-bit values sift-blocked's AddHash/ContainsHash get in
// the bench module. With -hash identity (the default) Boost uses each value
// as its hash unchanged (a hasher marked avalanching); with -hash boost the
// filter has its default hasher, boost::hash<std::uint64_t>, which Boost
// follows with its mulx64 mixing step: the exact type issue 15 names.
//
// Times are this thread's CPU time (CLOCK_THREAD_CPUTIME_ID) per key, the
// median of -rounds rounds; every round builds fresh filters.

#include <boost/bloom/fast_multiblock32.hpp>
#include <boost/bloom/filter.hpp>
#include <boost/container_hash/hash.hpp>

#include <algorithm>
#include <cinttypes>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <time.h>
#include <type_traits>
#include <vector>

namespace {

// splitmix64 is the output function of the SplitMix64 generator, as in
// bench/keys.go.
std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::uint64_t rotl64(std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

// xxh3_8 is XXH3-64 with seed 0 of the 8 little-endian bytes of key: the
// algorithm's 4-to-8-byte path (the first and last 4 bytes swapped into
// one word, keyed with two words of the default secret, then the
// rrmxmx finaliser with the length). main checks it against values the
// Go bench computes with github.com/zeebo/xxh3 (TestKeysKnownAnswers in
// bench/bench_unit_test.go pins the same values).
std::uint64_t xxh3_8(std::uint64_t key) {
  const std::uint64_t first = key & 0xffffffffULL, last = key >> 32;
  std::uint64_t h = (last + (first << 32)) ^ (0x1cad21f72c81017cULL ^ 0xdb979083e96dd4deULL);
  h ^= rotl64(h, 49) ^ rotl64(h, 24);
  h *= 0x9fb21c651e98df25ULL;
  h ^= (h >> 35) + 8;
  h *= 0x9fb21c651e98df25ULL;
  return h ^ (h >> 28);
}

// hashes returns the XXH3 values of keys 0..n-1 of a stream (0 present,
// 1 absent), as bench/keys.go's MakeKeys(n, stream).Hashes.
std::vector<std::uint64_t> hashes(std::size_t n, std::uint64_t stream) {
  std::vector<std::uint64_t> out(n);
  for (std::size_t i = 0; i < n; i++) out[i] = xxh3_8(splitmix64(2 * std::uint64_t(i) + stream));
  return out;
}

// identity_hash hands Boost the precomputed hash as is; is_avalanching
// tells it the bits are already mixed, so it adds no mixing step.
struct identity_hash {
  using is_avalanching = std::true_type;
  std::size_t operator()(std::uint64_t x) const noexcept { return static_cast<std::size_t>(x); }
};

static_assert(sizeof(std::size_t) == 8, "boostcmp needs a 64-bit size_t");

template <class Hash>
using filter_t = boost::bloom::filter<std::uint64_t, 1, boost::bloom::fast_multiblock32<8>, 0, Hash>;

double cpu_ns() {
  timespec ts;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) {
    std::perror("clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
    std::exit(1);
  }
  return double(ts.tv_sec) * 1e9 + double(ts.tv_nsec);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// chunk is how many keys one lookup step covers, as the Go bench's
// BenchmarkContains: its batch mode makes one ContainsHashes call per 4096
// hashes, so the bulk lookups here make one bulk may_contain per 4096.
constexpr std::size_t chunk = 4096;

[[noreturn]] void fail(const char* what, std::size_t n, std::size_t got, std::size_t want) {
  std::fprintf(stderr, "boostcmp: n=%zu: %s: %zu, want %zu\n", n, what, got, want);
  std::exit(1);
}

struct row {
  double bits_per_key = 0, fpr = 0;
  std::vector<double> construct, insert, bulk_insert, present, absent, bulk_present, bulk_absent;
};

template <class Hash>
row measure(std::size_t n, std::size_t bits_per_key, int rounds, const std::vector<std::uint64_t>& present,
            const std::vector<std::uint64_t>& absent) {
  using F = filter_t<Hash>;
  const std::size_t m = bits_per_key * n;  // capacity asked for, in bits
  row r;
  const double nn = double(n), na = double(absent.size());
  for (int round = 0; round < rounds; round++) {
    // Construct: allocate and clear the bit array (Boost zeroes it here,
    // so its pages are touched before the timed inserts).
    double t = cpu_ns();
    F f(m);
    r.construct.push_back((cpu_ns() - t) / nn);
    F g(m);

    // Single-key insert: Boost's insert(x) inlined into this loop.
    t = cpu_ns();
    for (std::uint64_t h : present) f.insert(h);
    r.insert.push_back((cpu_ns() - t) / nn);

    // Bulk insert: one insert(first, last) over all n keys, as the Go
    // bench's batch insert makes one AddHashes call over all of them.
    t = cpu_ns();
    g.insert(present.begin(), present.end());
    r.bulk_insert.push_back((cpu_ns() - t) / nn);
    if (!(f == g)) fail("bulk and single-key inserts set different bits", n, 0, 1);

    // Single-key lookups, counting hits.
    std::size_t hits = 0;
    t = cpu_ns();
    for (std::uint64_t h : present) hits += f.may_contain(h);
    r.present.push_back((cpu_ns() - t) / nn);
    if (hits != n) fail("present keys found (single-key)", n, hits, n);

    std::size_t fp = 0;
    t = cpu_ns();
    for (std::uint64_t h : absent) fp += f.may_contain(h);
    r.absent.push_back((cpu_ns() - t) / na);

    // Bulk lookups: may_contain(first, last, f) per chunk of 4096 keys.
    auto bulk = [&](const std::vector<std::uint64_t>& keys) {
      std::size_t c = 0;
      for (std::size_t lo = 0; lo < keys.size(); lo += chunk) {
        const std::size_t hi = std::min(keys.size(), lo + chunk);
        f.may_contain(keys.begin() + lo, keys.begin() + hi, [&c](std::uint64_t, bool res) { c += res; });
      }
      return c;
    };
    t = cpu_ns();
    hits = bulk(present);
    r.bulk_present.push_back((cpu_ns() - t) / nn);
    if (hits != n) fail("present keys found (bulk)", n, hits, n);

    t = cpu_ns();
    std::size_t bfp = bulk(absent);
    r.bulk_absent.push_back((cpu_ns() - t) / na);
    if (bfp != fp) fail("absent keys reported present, bulk against single-key", n, bfp, fp);

    r.bits_per_key = double(f.capacity()) / nn;
    r.fpr = double(fp) / na;
  }
  return r;
}

// known answers: bench/keys.go's hashes of these keys (see xxh3_8).
void check_keys() {
  struct {
    std::uint64_t stream, i, want;
  } const known[] = {
      {0, 0, 0x587c24548af65815ULL}, {0, 1, 0x179483f50ce42133ULL},       {0, 2, 0x7cd9a6e3c5d9268aULL},
      {0, 1000000, 0xd719b32bc2db5e5bULL}, {1, 0, 0xec3461980a01bc11ULL}, {1, 1, 0xae842e93b7a05b24ULL},
      {1, 2, 0xb75ec1307d2fec99ULL},
  };
  for (const auto& k : known) {
    const std::uint64_t got = xxh3_8(splitmix64(2 * k.i + k.stream));
    if (got != k.want) {
      std::fprintf(stderr, "boostcmp: key %" PRIu64 " of stream %" PRIu64 ": hash %#018" PRIx64 ", want %#018" PRIx64
                   " (bench/keys.go)\n", k.i, k.stream, got, k.want);
      std::exit(1);
    }
  }
}

void usage() {
  std::fprintf(stderr,
               "usage: boostcmp [-n 1e5,1e6,1e7] [-large] [-rounds 5] [-bits 10] [-hash identity|boost]\n"
               "  -n       comma-separated key counts (default 1e5,1e6,1e7)\n"
               "  -large   also n = 1e8 (about 1.2 GB of memory)\n"
               "  -rounds  fresh filters per n; medians are reported (default 5)\n"
               "  -bits    capacity asked for, in bits per key (default 10)\n"
               "  -hash    identity: the XXH3 values are the hashes (default);\n"
               "           boost: boost::hash<std::uint64_t> followed by Boost's mulx64 mixing\n");
  std::exit(2);
}

std::vector<std::size_t> parse_sizes(const char* s) {
  std::vector<std::size_t> out;
  std::string str(s);
  std::size_t pos = 0;
  while (pos <= str.size()) {
    std::size_t comma = str.find(',', pos);
    if (comma == std::string::npos) comma = str.size();
    const std::string item = str.substr(pos, comma - pos);
    char* end = nullptr;
    const double v = std::strtod(item.c_str(), &end);
    if (item.empty() || *end != '\0' || v < 1 || v > 1e9) {
      std::fprintf(stderr, "boostcmp: bad key count %s\n", item.c_str());
      std::exit(2);
    }
    out.push_back(std::size_t(v));
    pos = comma + 1;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::size_t> sizes = {100000, 1000000, 10000000};
  int rounds = 5;
  std::size_t bits = 10;
  bool large = false, identity = true;
  for (int i = 1; i < argc; i++) {
    const std::string a = argv[i];
    const bool more = i + 1 < argc;
    if (a == "-n" && more) {
      sizes = parse_sizes(argv[++i]);
    } else if (a == "-large") {
      large = true;
    } else if (a == "-rounds" && more) {
      rounds = std::atoi(argv[++i]);
      if (rounds < 1) usage();
    } else if (a == "-bits" && more) {
      bits = std::size_t(std::atoi(argv[++i]));
      if (bits < 1 || bits > 64) usage();
    } else if (a == "-hash" && more) {
      const std::string h = argv[++i];
      if (h != "identity" && h != "boost") usage();
      identity = h == "identity";
    } else {
      usage();
    }
  }
  if (large && std::find(sizes.begin(), sizes.end(), std::size_t(100000000)) == sizes.end()) sizes.push_back(100000000);
  check_keys();

#if defined(BOOST_BLOOM_AVX2)
  const char* kernel = "AVX2";
#elif defined(BOOST_BLOOM_SSE2)
  const char* kernel = "SSE2";
#elif defined(BOOST_BLOOM_LITTLE_ENDIAN_NEON)
  const char* kernel = "Neon";
#else
  const char* kernel = "portable";
#endif
#if defined(__clang__)
  const char* compiler = __VERSION__;
#elif defined(__GNUC__)
  const char* compiler = "GCC " __VERSION__;
#else
  const char* compiler = "unknown";
#endif
#if defined(__AVX512F__)
  const char* isa = ", AVX-512 allowed to the compiler";
#else
  const char* isa = "";
#endif
  std::printf("Boost.Bloom filter<std::uint64_t, 1, fast_multiblock32<8>> (%s code path%s), capacity %zu bits/key, "
              "hash: %s; compiler %s; thread CPU ns per key, median of %d rounds\n\n",
              kernel, isa, bits,
              identity ? "the XXH3 value itself (avalanching identity hasher)"
                       : "boost::hash<std::uint64_t> + mulx64 mixing",
              compiler, rounds);
  std::printf("| n | bits/key | FPR | construct | insert | bulk insert | lookup present | lookup absent | "
              "bulk present | bulk absent |\n|---|---|---|---|---|---|---|---|---|---|\n");
  for (std::size_t n : sizes) {
    const std::vector<std::uint64_t> present = hashes(n, 0);
    // As the Go bench: at least 1e6 absent keys (enough false positives
    // to measure the rate), at most 1e7.
    const std::vector<std::uint64_t> absent = hashes(std::min<std::size_t>(std::max<std::size_t>(n, 1000000), 10000000), 1);
    const row r = identity ? measure<identity_hash>(n, bits, rounds, present, absent)
                           : measure<boost::hash<std::uint64_t>>(n, bits, rounds, present, absent);
    std::printf("| %zu | %.2f | %.3f%% | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |\n", n, r.bits_per_key,
                100 * r.fpr, median(r.construct), median(r.insert), median(r.bulk_insert), median(r.present),
                median(r.absent), median(r.bulk_present), median(r.bulk_absent));
    std::fflush(stdout);
  }
  return 0;
}
