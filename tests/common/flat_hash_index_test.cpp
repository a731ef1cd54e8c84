// FlatHashIndex over 5000 inserts with 97 distinct hashes: every entry is found under
// its hash by the caller's comparison, shared hashes keep every entry reachable, absent keys are
// not found, and growth (rehashing) loses nothing.
#include "common/flat_hash_index.h"

#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace {

using tauvta::FlatHashIndex;

TEST(FlatHashIndex, FindsEveryEntryThroughSharedHashesAndGrowth) {
  FlatHashIndex index;
  std::vector<uint64_t> keys;  // entry i's content; its hash collides often on purpose
  std::mt19937_64 rng(7);
  auto hash_of = [](uint64_t key) { return key % 97; };  // 97 distinct hashes for 5000 entries
  EXPECT_EQ(index.find(1, [](size_t) { return true; }), FlatHashIndex::npos);
  for (size_t i = 0; i < 5000; ++i) {
    const uint64_t key = rng();
    keys.push_back(key);
    index.insert(hash_of(key), i);
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    const size_t got = index.find(hash_of(keys[i]), [&](size_t j) { return keys[j] == keys[i]; });
    ASSERT_EQ(got, i) << "entry " << i;
  }
  // A key never inserted: its hash is occupied but no candidate matches.
  EXPECT_EQ(index.find(hash_of(12345), [&](size_t j) { return keys[j] == 12345; }), FlatHashIndex::npos);
  // A hash never used: the probe stops at an empty slot.
  EXPECT_EQ(index.find(1000003, [](size_t) { return true; }), FlatHashIndex::npos);
  index.clear();
  EXPECT_EQ(index.find(hash_of(keys[0]), [](size_t) { return true; }), FlatHashIndex::npos);
}

TEST(FlatHashIndex, FirstMatchInInsertionOrderAmongEqualHashes) {
  FlatHashIndex index;
  for (size_t i = 0; i < 10; ++i) index.insert(42, i);
  EXPECT_EQ(index.find(42, [](size_t j) { return j % 3 == 2; }), 2u);
  EXPECT_EQ(index.find(42, [](size_t j) { return j >= 7; }), 7u);
}

}  // namespace
