#include <gtest/gtest.h>
#include "vif/vif.h"
TEST(Version, NotEmpty) { EXPECT_STRNE(vif_version(), ""); }
