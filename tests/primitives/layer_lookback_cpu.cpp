// CPU test of the look-back's value algebra, the part of the block layer and
// of its users that runs on the host too (lookback_word.h, sum_op.h,
// segscan_pair.h, split_counts.h): every codec returns what it packed, at the
// extremes of its range, whatever the status; the status bits read back;
// the segmented pair operator is associative with an identity and is not
// commutative; split's per-tile counts widen to the look-back's halves.
// Compiled by the host compiler with the toolkit's headers: no CUDA runtime.
#include <stdint.h>
#include <stdio.h>

extern "C" {
#include "test_support.h"
}
#include "lookback_word.h"
#include "segscan_pair.h"
#include "split_counts.h"
#include "sum_op.h"

namespace {

uint64_t g_state = 0x9E3779B97F4A7C15ull;

uint32_t next_u32()
{
    g_state ^= g_state << 13, g_state ^= g_state >> 7, g_state ^= g_state << 17;
    return (uint32_t)(g_state >> 16);
}

const unsigned k_statuses[] = {KD_TILE_INVALID, KD_TILE_AGGREGATE, KD_TILE_INCLUSIVE};

void test_u32_codec()
{
    const uint32_t values[] = {0u, 1u, 0x7fffffffu, 0x80000000u, 0xffffffffu, next_u32(), next_u32()};
    for (unsigned status : k_statuses)
        for (uint32_t v : values) {
            const uint64_t word = kd_codec_u32::pack(status, v);
            CHECK_MSG(kd_tile_status(word) == status, "u32: status %u of %#x", status, v);
            CHECK_MSG(kd_codec_u32::unpack(word) == v, "u32: %#x with status %u", v, status);
        }
    CHECK(kd_codec_u32::identity() == 0);
    CHECK(kd_tile_status(0) == KD_TILE_INVALID); // a zeroed word (kd_lookback_init_kernel) is INVALID
    CHECK(kd_sum_op()(0xffffffffu, 2u) == 1u);   // sums wrap
}

bool same(seg_pair a, seg_pair b)
{
    return a.flag == b.flag && a.sum == b.sum;
}

seg_pair random_pair()
{
    seg_pair p;
    p.flag = next_u32() % 3 == 0;
    p.sum = next_u32() % 4 == 0 ? 0xffffffffu - next_u32() % 8 : next_u32();
    return p;
}

void test_segmented_pair()
{
    const seg_op op;
    const seg_pair id = seg_codec::identity();
    int bad_codec = 0, bad_assoc = 0, bad_identity = 0;
    for (int i = 0; i < 10000; i++) {
        const seg_pair a = random_pair(), b = random_pair(), c = random_pair();
        for (unsigned status : k_statuses) {
            const uint64_t word = seg_codec::pack(status, a);
            bad_codec += kd_tile_status(word) != status || !same(seg_codec::unpack(word), a);
        }
        bad_assoc += !same(op(op(a, b), c), op(a, op(b, c)));
        bad_identity += !same(op(id, a), a) || !same(op(a, id), a);
    }
    CHECK_MSG(bad_codec == 0, "segmented pair codec: %d round trips wrong", bad_codec);
    CHECK_MSG(bad_assoc == 0, "segmented pair operator: %d triples not associative", bad_assoc);
    CHECK_MSG(bad_identity == 0, "segmented pair operator: identity wrong %d times", bad_identity);
    // A start in the later operand discards the earlier sum: order matters.
    seg_pair a, b;
    a.flag = 0, a.sum = 5, b.flag = 1, b.sum = 7;
    CHECK(op(a, b).sum == 7 && op(b, a).sum == 12);
}

void test_split_counts()
{
    // Each half of the running pair holds counts below 2^31.
    const uint64_t halves[] = {0u, 1u, 0x40000000u, 0x7fffffffu, next_u32() & 0x7fffffffu};
    int bad = 0;
    for (unsigned status : k_statuses)
        for (uint64_t left : halves)
            for (uint64_t right : halves) {
                const uint64_t v = right << 32 | left;
                const uint64_t word = split_count_codec::pack(status, v);
                bad += kd_tile_status(word) != status || split_count_codec::unpack(word) != v;
            }
    CHECK_MSG(bad == 0, "split count codec: %d round trips wrong", bad);
    CHECK(split_count_codec::identity() == 0);

    // A tile of sides: the packed 16-bit pairs add up without carrying, and
    // widen to (right << 32 | left).
    const unsigned tile = 4096;
    uint32_t packed = 0, lefts = 0, rights = 0;
    for (unsigned i = 0; i < tile; i++) {
        const uint32_t word = (next_u32() % 3 + 1) | (next_u32() % 3 + 1) << 8; // two sides, 1..3
        for (int k = 0; k < 2; k++) {
            const uint32_t side = split_side(word, k);
            packed += split_tile_count(side);
            lefts += side & 1u, rights += side >> 1;
        }
    }
    CHECK(split_side(0x03020100u, 2) == 2 && split_side(0x03020100u, 3) == 3);
    CHECK(split_tile_count(3) == 0x10001u); // "both": one left and one right
    CHECK_MSG(widen_tile_count(packed) == ((uint64_t)rights << 32 | lefts), "tile of %u: widened %#llx", tile,
              (unsigned long long)widen_tile_count(packed));
}

} // namespace

int main(void)
{
    test_u32_codec();
    test_segmented_pair();
    test_split_counts();
    return kd_test_finish("layer_lookback_cpu");
}
