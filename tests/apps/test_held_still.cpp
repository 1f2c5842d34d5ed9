// HeldStill: when a sewing counts as held still by the fail-safe (tryon/held_still.hpp).
#include <gtest/gtest.h>

#include "tryon/held_still.hpp"

namespace {

using tryon::stages::HeldStill;

TEST(HeldStill, HeldFramesWithoutAPairClosingHoldTheSewingStillAfterKFrames) {
  HeldStill h(10);
  for (int f = 1; f < HeldStill::kFrames; ++f) EXPECT_FALSE(h.frame(true, 10)) << "frame " << f;
  EXPECT_TRUE(h.frame(true, 10));
  EXPECT_TRUE(h.frame(true, 10));  // and stays so while nothing changes
}

TEST(HeldStill, APairClosingStartsTheCountAgain) {
  HeldStill h(10);
  for (int f = 1; f < HeldStill::kFrames; ++f) h.frame(true, 10);
  EXPECT_FALSE(h.frame(true, 11));  // held back, but a pair closed: the sewing moves on
  for (int f = 1; f < HeldStill::kFrames; ++f) EXPECT_FALSE(h.frame(true, 11)) << "frame " << f;
  EXPECT_TRUE(h.frame(true, 11));
}

TEST(HeldStill, AFrameTheFailSafeSettledStartsTheCountAgain) {
  HeldStill h(0);
  for (int f = 1; f < HeldStill::kFrames; ++f) h.frame(true, 0);
  EXPECT_FALSE(h.frame(false, 0));
  for (int f = 1; f < HeldStill::kFrames; ++f) EXPECT_FALSE(h.frame(true, 0)) << "frame " << f;
  EXPECT_TRUE(h.frame(true, 0));
}

TEST(HeldStill, PairsOpeningAgainDoNotCountAsProgress) {
  // The fail-safe opens pairs it sent back apart, and they close again: no pair closing.
  HeldStill h(20);
  for (int f = 1; f < HeldStill::kFrames; ++f) EXPECT_FALSE(h.frame(true, 20 - f % 2)) << "frame " << f;
  EXPECT_TRUE(h.frame(true, 19));
}

}  // namespace
