// The version: memplan::version(), MEMPLAN_VERSION and `memplan --version` all give the CMake
// project version (passed here as MEMPLAN_PROJECT_VERSION, not through version.h).
#include <gtest/gtest.h>

#include <string>

#include "memplan/version.h"
#include "files.h"

namespace memplan {
namespace {

TEST(Version, LibraryAndHeaderGiveTheProjectVersion) {
  EXPECT_EQ(std::string(version()), MEMPLAN_PROJECT_VERSION);
  EXPECT_EQ(std::string(MEMPLAN_VERSION), MEMPLAN_PROJECT_VERSION);
  EXPECT_EQ(std::to_string(MEMPLAN_VERSION_MAJOR) + "." + std::to_string(MEMPLAN_VERSION_MINOR) + "." +
                std::to_string(MEMPLAN_VERSION_PATCH),
            MEMPLAN_PROJECT_VERSION);
}

TEST(Version, CliPrintsItAndExitsZero) {
  testing::TempDir dir;
  const auto r = testing::run_cli("--version", dir);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, std::string("memplan ") + MEMPLAN_PROJECT_VERSION + "\n");
}

}  // namespace
}  // namespace memplan
