// The schedule of the TMA GEMM pipeline on sm_90a, in one table: tile shapes, ring depth and the
// register split between the producer warpgroup and the consumer warpgroups. Chosen per problem
// by choose_tile below from the problem's traits (sizes, operand orientation), never from which op
// runs.
#pragma once
#include <cstdlib>
#include <cstring>
#include <string>
#include "lowering/gpu/boxes.hpp"
#include "lowering/gpu/split_k.hpp"

namespace tg::tma_gemm {
// BM rows (the consumer warpgroups, two but for the taps tile's three, share them in m64 blocks of wgmma), BN columns (wgmma n),
// BK = one 128-byte swizzled row of the elements (ElemBytes: 64 of 16 bits; 32 of fp32, read by wgmma as
// tf32, K-major operands only), as many stages as shared memory holds.
constexpr int k_halo_rows = 128;  // the most rows of a k-halo (k_halo_tile below)
template <int BM_, int BN_, bool KHalo = false, int Consumers = 2, int ElemBytes = 2>
struct tile {
  static constexpr bool resident = false;  // B goes through the k-tile ring (halo_tile may keep it)
  static constexpr bool k_halo = KHalo;    // A's stage holds one halo of k_halo_rows rows (k_halo_tile)
  static constexpr int landing_slots = 0;  // the boxes land in the stages themselves (see mn_tf32_tile)
  static constexpr int BM = BM_, BN = BN_, BK = boxes::row_elems(ElemBytes);
  static_assert(ElemBytes == 2 || (ElemBytes == 4 && !KHalo), "16-bit tiles, or fp32 ones without a k-halo (MN-major)");
  static constexpr int k_steps = 4, k_step = BK / k_steps;  // wgmma k steps per k-tile: 32 bytes of each row (k16, or k8 of tf32)
  static constexpr int consumers = Consumers;
  static constexpr int row_blocks = BM / 64 / consumers;  // m64 blocks per consumer warpgroup
  static_assert(row_blocks * 64 * consumers == BM, "BM: whole m64 blocks per consumer");
  static constexpr int threads = 128 * (1 + consumers);
  // setmaxnreg moves registers within the block's allocation at launch (threads x the launch bound's
  // 168, or 128 with three consumers): asking for more than it frees blocks forever. One thread issues
  // the copies (its coordinates spilled under 40); the consumers hold the accumulators (row_blocks *
  // BN / 2 per thread: 128 for 256x128, 96 for the taps tile).
  static constexpr int entry_regs = 65536 / threads / 8 * 8;
  static constexpr int producer_regs = 56;
  static constexpr int consumer_regs = consumers == 2 ? 224 : 152;
  // Three consumers leave each thread 128 registers at compile time (512 threads): beside the taps
  // tile's 96 accumulators there is no room for the last split's in-kernel sum of the partials (ptxas
  // spilled 24 bytes: its splits always go to split_sum_kernel) nor for all of a thread's C rows at
  // once (bf16 spilled 8: its epilogue works out one block's rows at a time).
  static constexpr bool lean_consumers = consumers > 2;
  static_assert(128 * producer_regs + 128 * consumers * consumer_regs <= threads * entry_regs, "setmaxnreg would wait forever");
  static constexpr int a_bytes = (KHalo ? k_halo_rows : BM) * boxes::swizzle_bytes, b_bytes = BN * boxes::swizzle_bytes;
  static constexpr int stage_bytes = a_bytes + b_bytes;
  static constexpr int smem_limit = 227 * 1024;  // sm_90's per-block opt-in maximum
  // A consumer warp's 16 rows of C (the epilogue's staging), fp32 C in two passes of BN/2 columns: 32
  // KB for the 8 warps at BN 128 instead of 64, so 256x128 fp32 tiles get 4 stages instead of 3 (the
  // consumers waited on the full barriers, section 39).
  static constexpr int c_passes = ElemBytes == 4 ? 2 : 1;
  static constexpr int epi_warp_bytes = 16 * BN * ElemBytes / c_passes;
  static constexpr int epi_bytes = 4 * consumers * epi_warp_bytes;
  static constexpr int ring_room = smem_limit - 1024 - 256 - epi_bytes;
  static constexpr int stages = ring_room / stage_bytes > 8 ? 8 : ring_room / stage_bytes;
  static constexpr int barrier_bytes = 2 * stages * 8 + 8;  // full/empty pairs, the split-K word
  static constexpr int smem_bytes = 1024 /* alignment slack */ + stages * stage_bytes + epi_bytes + barrier_bytes;
  static_assert(row_blocks >= 1 && stages >= 3, "tile shape");
};

// The plain tile for elements E (16-bit, or fp32 as tf32).
template <class E, int BM, int BN>
using elem_tile = tile<BM, BN, false, 2, static_cast<int>(sizeof(E))>;

// The tf32 tile for MN-major operands (fp32 backward weight channels-last: both operands have the
// channels contiguous, the reduction runs over positions). tf32 wgmma reads K-major tiles only, so the
// TMA's MN-major boxes land in a ring of their own (landing slots of a stage's bytes) and are
// transposed into K-major stages (tf32_transpose.hpp), which the consumers and the epilogue read as
// `tile`'s: by the consumer warpgroups themselves, each k-tile while their previous k-tile's batch
// runs (consumers_transpose below: on tiles of 128 columns or more, or of few loads a k-tile), or by the producer
// warpgroup's three idle warps. The landing ring covers the TMA's latency, the stage ring only the
// hand-over to the consumers: 256x128 holds 2 + 2 (48 KB each), narrower tiles 3 + 3 or 2 + 3. The
// stages' full barriers wait for the transposers' arrivals (transposer_arrivals) instead of the TMA's
// bytes.
constexpr int transposer_threads = 96;  // warps 1-3 of the producer warpgroup
template <int BM_, int BN_>
struct mn_tf32_tile : tile<BM_, BN_, false, 2, 4> {
  using plain = tile<BM_, BN_, false, 2, 4>;
  static constexpr int slots = (plain::smem_limit - 1024 - 512 - plain::epi_bytes) / plain::stage_bytes;  // stages + landing slots
  static constexpr int landing_slots = slots - slots / 2, stages = slots / 2;
  static constexpr int barrier_bytes = 2 * (stages + landing_slots) * 8 + 8;
  static constexpr int smem_bytes = 1024 + (stages + landing_slots) * plain::stage_bytes + plain::epi_bytes + barrier_bytes;
  static_assert(stages >= 2 && landing_slots >= 2 && smem_bytes <= plain::smem_limit, "MN-major tf32 tile shape");
};
// The arrivals that fill a stage (and free a landing slot) of tile P's transposition: every consumer
// thread's where the consumers transpose (launch_args::consumers_transpose), else every transposer warp
// thread's. The kernel's barrier counts and the host test both take it from here.
template <class P>
TG_HD constexpr int transposer_arrivals(bool consumers) {
  return consumers ? 128 * P::consumers : transposer_threads;
}

// The k-halo tile (k_halo_plan.hpp; backward weight transposed): `tile`'s kernel and roles, with A's
// stage one halo box of at most k_halo_rows rows (a 2-d 8x8 k-tile of 4 taps: 80) that the tile's 4
// m64 blocks (taps) read windows of, instead of 4 boxes of 64 rows: 16 KB instead of 32 per stage.
template <int BM, int BN>
using k_halo_tile = tile<BM, BN, true>;

// The taps tile (a k-halo tile of 9 m64 blocks: the 9 taps of a 3x3 filter plane, 64 channels each,
// three per consumer warpgroup): one halo per k-tile serves the whole filter plane, where 256-row tiles
// cut it into three filter rows that each bring their own halo and dy rows (a 3x3 layer with 8x8
// positions per k-tile: 100 + 64 rows per k-tile for 9 taps instead of 3 x (80 + 64) for 9 of 12 taps;
// performance.md section 27). Its rows' tile-local index is not a power of two (class_plan.hpp).
constexpr int taps_tile_blocks = 9;
using k_halo_taps_tile = tile<64 * taps_tile_blocks, 64, true, 3>;

// The halo pipeline's tile (halo_kernel.hpp, halo_plan.hpp): BM x BN like `tile`, with A in two halo
// stages (one box per channel block that every filter tap reads a window of) and B alone in the
// k-tile ring. The halo stages take what the ring can spare: 640 rows (80 KB) each with 64 columns
// (a 3-d 4x8x8 tile's 6x10x10 halo), 448 with 128 (a 2-d 4x8x8 tile's 400). Resident: B is one N tile
// of at most 12 k-tiles (a 2-d 3x3 layer with 64 channels), the same for every tile of the GEMM, so it
// is loaded once per persistent block into 12 stages and stays; only the halos move (448 rows).
// fp32 (tf32) tiles stage C in twice the bytes, so the 128-column halo is 384 rows there (a 2-d 3x3 layer's
// 256-row tiles need 324-340), leaving the ring four stages; no resident B (its k-tiles are half as deep).
constexpr int halo_rows_for(int bn, int elem_bytes = 2) { return bn <= 64 ? 640 : elem_bytes == 2 ? 448 : 384; }
template <int BM_, int BN_, bool Resident = false, int ElemBytes = 2>
struct halo_tile {
  static constexpr bool resident = Resident;
  static constexpr bool k_halo = false;
  static constexpr bool lean_consumers = false;
  static constexpr int landing_slots = 0;  // no transposers (mn_tf32_tile)
  static constexpr int BM = BM_, BN = BN_, BK = boxes::row_elems(ElemBytes);
  static_assert(ElemBytes == 2 || (ElemBytes == 4 && !Resident), "16-bit halo tiles, or fp32 ones without a resident B");
  static constexpr int k_steps = 4, k_step = BK / k_steps;
  static constexpr int consumers = 2;
  static constexpr int row_blocks = BM / 64 / consumers;
  static constexpr int threads = 128 * (1 + consumers);
  static constexpr int entry_regs = 65536 / threads / 8 * 8;
  static constexpr int producer_regs = 56;
  static constexpr int consumer_regs = 224;
  static_assert(128 * producer_regs + 128 * consumers * consumer_regs <= threads * entry_regs, "setmaxnreg would wait forever");
  static constexpr int halo_rows = Resident ? 448 : halo_rows_for(BN, ElemBytes), halo_bytes = halo_rows * boxes::swizzle_bytes, halo_stages = 2;
  static constexpr int b_bytes = BN * boxes::swizzle_bytes;
  static constexpr int stage_bytes = b_bytes;  // the k-tile ring holds B
  static constexpr int smem_limit = 227 * 1024;
  static constexpr int c_passes = ElemBytes == 4 ? 2 : 1;  // as tile's
  static constexpr int epi_warp_bytes = 16 * BN * ElemBytes / c_passes;
  static constexpr int epi_bytes = 4 * consumers * epi_warp_bytes;
  static constexpr int ring_room = smem_limit - 1024 - 512 - epi_bytes - halo_stages * halo_bytes;
  static constexpr int stages = Resident ? 12 : ring_room / stage_bytes > 8 ? 8 : ring_room / stage_bytes;
  static constexpr int barrier_bytes = 2 * (stages + halo_stages) * 8;
  static constexpr int smem_bytes = 1024 + halo_stages * halo_bytes + stages * stage_bytes + epi_bytes + barrier_bytes;
  static_assert(row_blocks >= 1 && stages >= 4 && smem_bytes <= smem_limit, "halo tile shape");
};

// sm_90 (H100/H200, 227 KB of shared memory per block). 256 rows where the GEMM has them (per k-tile
// 48 KB bring 4.2 MFLOP: a quarter less L2 traffic per flop than 128x128, and twice the work per stage
// to cover the copies' latency); 64 columns where N is at most 64 (backward data with C <= 64, the
// forward with K <= 64: a 128-column tile would be half padding). Instantiated: every tile where A is
// K-major (backward data, forward), the 128-column tiles where both are MN-major (backward weight;
// its narrow case is the transposed 256x64 plan, launch.hpp).
enum class tile_kind { m256n128, m256n64, m128n128, m128n64 };
inline tile_kind choose_tile(long long max_m, long long max_n, bool a_mn) {
  const bool narrow = max_n <= 64 && !a_mn;
  if (max_m >= 256) return narrow ? tile_kind::m256n64 : tile_kind::m256n128;
  return narrow ? tile_kind::m128n64 : tile_kind::m128n128;
}

// Split-K for single GEMMs whose tiles alone leave multiprocessors idle: each of a tile's s splits
// writes an fp32 partial that the tile's last split adds (split_reduce.hpp: it reads the s - 1 others
// while the rest of its wave has finished), or, past fused_max splits, split_sum_kernel adds them
// spread over the GPU. That traffic must be paid for by the fuller waves, so a count is judged by its
// estimated time in k-tiles of one unit: waves x (k-tiles per chunk + the split's cost per unit).
// Costs measured on ResNet-50's 7x7 C512 forward (performance.md section 23: 112 tiles of 256x128, 72
// k-tiles, H100): 1, 4 and 7 splits took 81, 138 and 221 us, which a partial at 3 k-tiles to write and
// 3 to read back predicts within 3%.
struct split_costs {
  int write = 3, read = 3;  // k-tiles of time per partial written / read back by the last split
};
constexpr long long split_estimate(long long tiles, long long sms, long long k_tiles, long long splits, int fused_max, split_costs c) {
  const long long chunk = (k_tiles + splits - 1) / splits, s = (k_tiles + chunk - 1) / chunk;  // splits that get k-tiles
  const long long waves = (tiles * s + sms - 1) / sms;
  const long long extra = s == 1 ? 0 : s <= fused_max ? c.write + c.read * (s - 1) : c.write + c.read;
  return waves * (chunk + extra);
}
// The count: the fill of the waves' (split_k_chunks: the fewest that fill them to 90%, chunks of 4
// k-tiles or more, then the least estimate among the counts of as many waves) unless its estimate is
// more than 15% over the best one's, and then the fewest whose estimate is within 4% of the least;
// costs of zero (TG_TMA_SPLIT_COST=0,0, for A/B runs) keep the fill's count. The estimate overrules the fill only by that margin: between
// counts it put within a few % of each other the GPU disagreed (section 23: 1x1 backward weight with
// 119 and 126 splits, estimated 5% apart the other way, measured 16% apart).
constexpr long long choose_splits(long long tiles, long long sms, long long k_tiles, int fused_max, split_costs c = {}) {
  if (tiles <= 0 || sms <= 0 || k_tiles <= 1) return 1;
  const long long most = k_tiles / 4 > 1 ? k_tiles / 4 : 1;
  const long long by_fill = split_k_chunks(tiles, sms, most);
  if (c.write == 0 && c.read == 0) return by_fill;
  auto est = [&](long long s) { return split_estimate(tiles, sms, k_tiles, s, fused_max, c); };
  long long least = est(1);
  for (long long s = 2; s <= most && tiles * s <= 16 * sms; ++s) least = est(s) < least ? est(s) : least;
  long long best = 1;
  while (100 * est(best) > 104 * least) ++best;
  if (100 * est(by_fill) > 115 * est(best)) return best;
  // The fill's count may leave multiprocessors of its last wave idle (3 tiles x 40 splits on 132): more
  // splits in the same waves shorten every chunk, so the least estimate among those counts (section 24:
  // 3 tiles x 44 splits 8-9% faster than x 40, one tile x 132 2% faster than x 119).
  long long pick = by_fill;
  const long long waves = (tiles * by_fill + sms - 1) / sms;
  for (long long s = by_fill + 1; s <= most && (tiles * s + sms - 1) / sms == waves; ++s)
    if (est(s) < est(pick)) pick = s;
  return pick;
}

// The run-time fields of the schedule, with sm_90's values (measured: performance.md section 15, run
// 10): consumers release a stage once the next k-tile's batch is issued (early: once its own batch
// retires), L2 filled from DRAM in 256-byte pieces; split-K partials added by a tile's last split up
// to 8 splits (one unit reads 8 x 128 KB from L2 in a few us), by a kernel of their own past that. An experiment may override any field without a
// rebuild: TG_TMA_TILE=256x128|256x64|128x128|128x64, TG_TMA_RELEASE=early|late, TG_TMA_L2=256|128|0,
// TG_TMA_FUSED_SPLIT_MAX=n, TG_TMA_TRANSPOSE=0|1, TG_TMA_STEP_BOXES=0|1, TG_TMA_HALO=0|1,
// TG_TMA_K_HALO=0|1, TG_TMA_K_HALO_TAPS=0|1, TG_TMA_K_HALO_MAX_COLUMNS=n, TG_TMA_STORE=0|1, TG_TMA_TF32=0|1, TG_TMA_TF32_CHANNELS_FIRST=0|1, TG_TMA_TF32_TRANSPOSE=0|1, TG_TMA_TF32_CONSUMERS_TRANSPOSE=0|1, TG_TMA_TF32_CONSUMERS_TRANSPOSE_COLUMNS=n, TG_TMA_STACK_BOXES=0|1, TG_TMA_SPLIT_COST=write,read
// (0,0: splits chosen by the fill of the waves alone, as before section 23).
struct schedule {
  bool release_early = false;
  int fused_split_max = 8;  // split-K: the last split of a tile adds the others' partials up to this many
  bool transpose_narrow = true;  // backward weight with M <= 64 as C^T = B^T A^T where its tiles are mostly real
  bool step_boxes = true;        // MN-major tiles as boxes stepping along a filter tap (boxes.hpp) where that pads less
  bool stack_boxes = true;       // an MN-major tile's boxes along its contiguous axis as one stacked box (stacked_boxes.hpp)
  bool halo = true;              // K-major A over filter taps as one halo box per channel block (halo_plan.hpp)
  bool k_halo = true;            // backward weight's A over filter taps as one halo box per k-tile (k_halo_plan.hpp)
  bool k_halo_taps = true;       // ... on the taps tile (a 3x3 filter plane per tile) where it plans
  int k_halo_max_columns = 128;  // ... for backward weight with at most this many output channels (per group)
  bool tma_store = false;        // C's tiles stored as TMA boxes where they are (c_store_plan.hpp): 2-14% slower (section 28)
  bool tf32 = true;              // fp32 GEMMs with K-major operands on tf32 tiles (BK 32): 2.3-7.6x the cp.async pipeline's mma.sync (section 38)
  bool tf32_channels_first = true;  // ... and channels-first ones they read K-major as they are (backward weight, 1x1 layers), without feature-last copies: 6.3-6.6x faster on the two measured (section 39)
  bool tf32_transpose = true;    // fp32 GEMMs with both operands MN-major (backward weight channels-last) on tiles whose transposers make the stages K-major (mn_tf32_tile)
  bool tf32_consumers_transpose = true;  // ... the consumer warpgroups transposing each k-tile while their previous batch runs (else warps 1-3 of the producer warpgroup)
  int tf32_consumers_transpose_columns = 128;  // ... on tiles this wide or wider: 12-20% faster on 256x128 and 128x128 (section 42)
  int tf32_consumers_transpose_loads = 6;  // ... and on narrower ones whose k-tile takes this few TMA loads (stacked boxes): 3x3 C64 on 256x64 (5 loads) 8% faster, the U-Net's (10 loads) 9% slower (section 44)
  bool staged_sliding = true;    // depthwise backward weight on TMA-staged tiles (staged_sliding.hpp) where it plans
  int staged_blocks = 2;         // ... blocks of it per multiprocessor (1 or 2: each then half the stages and warps; 2: 0-15% faster, section 29)
  int staged_rows = 2;           // ... rows a warp walks at once (1 or 2; 2: 7-23% faster, section 29)
  bool staged_tight = true;      // ... 3-tap warps, a 3x3 filter's three rows walked by one warp (section 30)
  bool staged_segments = true;   // ... a tile's rows in segments of w for the warps left over (section 30)
  bool staged_gather = true;     // depthwise forward and backward data on TMA-staged windows (staged_gather.hpp) where they plan
  int staged_gather_blocks = 0;  // ... blocks of it per multiprocessor (1 or 2; 0: by staged_gather_one_block_better)
  int staged_gather_stages = 0;  // ... TMA stages of it (2-4; 0: by staged_gather_plan_chosen)
  bool staged_gather_narrow = true;  // ... a narrow last channel block as several items per warp (staged_gather_lanes)
  bool staged_gather_pairs = true;   // ... blocks walking (tile, channel block) pairs where the last block is narrow
  split_costs split_cost;
  int l2_promotion_bytes = 256;
  bool force_tile = false;
  tile_kind tile = tile_kind::m256n128;
};
inline const schedule& sm90_schedule() {
  static const schedule s = [] {
    schedule r;
    if (const char* t = std::getenv("TG_TMA_RELEASE")) r.release_early = std::strcmp(t, "early") == 0;
    if (const char* t = std::getenv("TG_TMA_L2")) r.l2_promotion_bytes = std::atoi(t);
    if (const char* t = std::getenv("TG_TMA_FUSED_SPLIT_MAX")) r.fused_split_max = std::atoi(t);
    if (const char* t = std::getenv("TG_TMA_TRANSPOSE")) r.transpose_narrow = std::strcmp(t, "0") != 0;
    if (const char* t = std::getenv("TG_TMA_STEP_BOXES")) r.step_boxes = std::strcmp(t, "0") != 0;
    if (const char* t = std::getenv("TG_TMA_STACK_BOXES")) r.stack_boxes = std::strcmp(t, "0") != 0;
    if (const char* t = std::getenv("TG_TMA_HALO")) r.halo = std::strcmp(t, "0") != 0;
    if (const char* t = std::getenv("TG_TMA_K_HALO")) r.k_halo = std::strcmp(t, "0") != 0;
    if (const char* t = std::getenv("TG_TMA_K_HALO_TAPS")) r.k_halo_taps = std::strcmp(t, "0") != 0;
    if (const char* t = std::getenv("TG_TMA_K_HALO_MAX_COLUMNS")) r.k_halo_max_columns = std::atoi(t);
    if (const char* t = std::getenv("TG_TMA_STORE")) r.tma_store = std::strcmp(t, "0") != 0;
    if (const char* t = std::getenv("TG_TMA_TF32")) r.tf32 = std::strcmp(t, "0") != 0;
    if (const char* t = std::getenv("TG_TMA_TF32_CHANNELS_FIRST")) r.tf32_channels_first = std::strcmp(t, "0") != 0;
    if (const char* t = std::getenv("TG_TMA_TF32_TRANSPOSE")) r.tf32_transpose = std::strcmp(t, "0") != 0;
    if (const char* t = std::getenv("TG_TMA_TF32_CONSUMERS_TRANSPOSE")) r.tf32_consumers_transpose = std::strcmp(t, "0") != 0;
    if (const char* t = std::getenv("TG_TMA_TF32_CONSUMERS_TRANSPOSE_COLUMNS")) r.tf32_consumers_transpose_columns = std::atoi(t);
    if (const char* t = std::getenv("TG_TMA_TF32_CONSUMERS_TRANSPOSE_LOADS")) r.tf32_consumers_transpose_loads = std::atoi(t);
    if (const char* t = std::getenv("TG_STAGED_SLIDING")) r.staged_sliding = std::strcmp(t, "0") != 0;
    if (const char* t = std::getenv("TG_STAGED_BLOCKS")) r.staged_blocks = std::atoi(t) == 2 ? 2 : 1;
    if (const char* t = std::getenv("TG_STAGED_ROWS")) r.staged_rows = std::atoi(t) == 2 ? 2 : 1;
    if (const char* t = std::getenv("TG_STAGED_TIGHT")) r.staged_tight = std::strcmp(t, "0") != 0;
    if (const char* t = std::getenv("TG_STAGED_SEGMENTS")) r.staged_segments = std::strcmp(t, "0") != 0;
    if (const char* t = std::getenv("TG_STAGED_GATHER")) r.staged_gather = std::strcmp(t, "0") != 0;
    if (const char* t = std::getenv("TG_STAGED_GATHER_STAGES")) r.staged_gather_stages = std::atoi(t) >= 2 && std::atoi(t) <= 4 ? std::atoi(t) : 0;
    if (const char* t = std::getenv("TG_STAGED_GATHER_NARROW")) r.staged_gather_narrow = std::strcmp(t, "0") != 0;
    if (const char* t = std::getenv("TG_STAGED_GATHER_PAIRS")) r.staged_gather_pairs = std::strcmp(t, "0") != 0;
    if (const char* t = std::getenv("TG_STAGED_GATHER_BLOCKS")) r.staged_gather_blocks = std::atoi(t) == 1 || std::atoi(t) == 2 ? std::atoi(t) : 0;
    if (const char* t = std::getenv("TG_TMA_SPLIT_COST")) {
      const char* comma = std::strchr(t, ',');
      r.split_cost = {std::atoi(t), comma ? std::atoi(comma + 1) : 0};
    }
    if (const char* t = std::getenv("TG_TMA_TILE")) {
      const std::string v = t;
      r.force_tile = v == "256x128" || v == "256x64" || v == "128x128" || v == "128x64";
      r.tile = v == "256x64" ? tile_kind::m256n64 : v == "128x128" ? tile_kind::m128n128 : v == "128x64" ? tile_kind::m128n64 : tile_kind::m256n128;
    }
    return r;
  }();
  return s;
}

// Who transposes an MN-major tf32 tile's landed k-tiles (launch_args::consumers_transpose): the
// consumers on wide tiles, and on narrow ones where a k-tile takes few TMA loads (the transposer warps'
// work is then the bound: session 41's profile of 3x3 C64, consumers waiting on full stages half the
// time); the producer warpgroup's warps where many loads keep the producer busy.
inline bool consumers_transpose(const schedule& sc, int columns, int loads_per_k_tile) {
  return sc.tf32_consumers_transpose && (columns >= sc.tf32_consumers_transpose_columns || loads_per_k_tile <= sc.tf32_consumers_transpose_loads);
}

// GEMMs with fewer rows or columns (per group) than this (grouped backward weight with K/G = 8, where a
// tile would be mostly padding) are left to the cp.async pipeline's small-M and narrow kernels.
constexpr long long min_rows = 32;
}  // namespace tg::tma_gemm
