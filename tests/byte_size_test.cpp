// parse_byte_size (io.h): the byte counts users type on the command line (--capacity,
// --memories), and where they are read.
#include <gtest/gtest.h>

#include <climits>

#include "memplan/io.h"
#include "memplan/spaces_io.h"
#include "files.h"

namespace memplan {
namespace {

TEST(ByteSize, PlainIntegersAndUnits) {
  EXPECT_EQ(parse_byte_size("1048576"), 1048576);
  EXPECT_EQ(parse_byte_size("0"), 0);
  EXPECT_EQ(parse_byte_size("12b"), 12);
  // SI prefixes are powers of 1000, IEC ones (with i) of 1024, in any case, spaces allowed.
  EXPECT_EQ(parse_byte_size("4MiB"), 4194304);
  EXPECT_EQ(parse_byte_size("4MB"), 4000000);
  EXPECT_EQ(parse_byte_size("4m"), 4000000);
  EXPECT_EQ(parse_byte_size("4Mi"), 4194304);
  EXPECT_EQ(parse_byte_size(" 512 KiB "), 524288);
  EXPECT_EQ(parse_byte_size("512kb"), 512000);
  EXPECT_EQ(parse_byte_size("3GiB"), int64_t{3} << 30);
  EXPECT_EQ(parse_byte_size("2TB"), int64_t{2000000000000});
  EXPECT_EQ(parse_byte_size("7EiB"), int64_t{7} << 60);
}

TEST(ByteSize, RefusesWhatIsNotOneAndOverflow) {
  for (const char* bad : {"", "MiB", "4 MiBs", "4x", "4.5MiB", "4 M B", "0x10", "4KK", "k4"})
    EXPECT_FALSE(parse_byte_size(bad)) << bad;
  EXPECT_FALSE(parse_byte_size("8EiB"));  // 2^63: one past INT64_MAX
  EXPECT_FALSE(parse_byte_size("10000000000000000000"));
  EXPECT_EQ(parse_byte_size("9223372036854775807"), INT64_MAX);
}

TEST(ByteSize, MemoriesTakeUnits) {
  const std::vector<Memory> m = parse_memories("sram=4MiB:64,hbm=2GB:4KiB,dram", "--memories");
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0].capacity, 4194304);
  EXPECT_EQ(m[0].alignment, 64);
  EXPECT_EQ(m[1].capacity, 2000000000);
  EXPECT_EQ(m[1].alignment, 4096);
  EXPECT_FALSE(m[2].capacity);
  try {
    parse_memories("sram=4 megabytes", "--memories");
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("--memories"), std::string::npos) << what;
    EXPECT_NE(what.find("sram capacity"), std::string::npos) << what;
    EXPECT_NE(what.find("4MiB"), std::string::npos) << what;  // says how to write one
  }
}

TEST(ByteSize, TheCliReadsCapacitiesWithUnits) {
  testing::TempDir dir;
  const std::string problem = dir.file("p.csv");
  testing::write_text(problem, "id,lower,upper,size\na,0,4,1048576\nb,2,6,1048576\n");  // LOAD 2 MiB
  auto run = [&](const std::string& args) { return testing::run_cli(args, dir); };
  const auto fits = run("solve '" + problem + "' -a greedy --capacity 2MiB");
  EXPECT_EQ(fits.code, 0) << fits.out << fits.err;
  EXPECT_NE(fits.out.find("capacity=2097152"), std::string::npos) << fits.out;
  // 2MB is 2,000,000 bytes, below the 2 MiB the two need at once.
  EXPECT_EQ(run("solve '" + problem + "' -a greedy --capacity 2MB").code, 3);
  const auto bad = run("solve '" + problem + "' -a greedy --capacity 2XB");
  EXPECT_EQ(bad.code, 2) << bad.out << bad.err;
  EXPECT_NE(bad.err.find("--capacity"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("not a byte count"), std::string::npos) << bad.err;
  const std::string plan = dir.file("plan.csv");
  testing::write_text(plan, "id,offset\na,0\nb,1048576\n");
  EXPECT_EQ(run("validate --capacity 2MiB '" + problem + "' '" + plan + "'").code, 0);
  EXPECT_EQ(run("validate --capacity 2MB '" + problem + "' '" + plan + "'").code, 1);  // above it
}

}  // namespace
}  // namespace memplan
