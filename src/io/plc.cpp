// idealloc's binary PLC trace reader (format: see io.h and benchmarks/idealloc/README.md).
#include <array>

#include "io/check.h"
#include "memplan/io.h"

namespace memplan {

Problem read_plc(std::istream& in, const std::string& name) {
  constexpr size_t kWords = 8, kRecord = kWords * 8;
  static const char* const kField[kWords] = {"id",    "birth",           "death",     "allocated size",
                                             "heap id", "original offset", "alignment", "requested size"};
  Problem p;
  TotalGuard total;
  // Messages are built only on error, not for every record.
  auto where_of = [&](size_t r) {
    return name + ": record " + std::to_string(r) + " (byte " + std::to_string((r - 1) * kRecord) + ")";
  };
  std::array<unsigned char, kRecord> rec;
  for (size_t r = 1;; ++r) {
    in.read(reinterpret_cast<char*>(rec.data()), kRecord);
    const size_t got = static_cast<size_t>(in.gcount());
    auto where = [&] { return where_of(r); };
    if (got == 0) {
      if (r == 1) throw InputError(name + ": empty file: expected 64-byte PLC records");
      break;
    }
    if (got < kRecord)
      throw InputError(where() + ": truncated record: " + std::to_string(got) +
                       " bytes, expected 64 (the file size must be a multiple of 64)");
    uint64_t w[kWords];
    for (size_t k = 0; k < kWords; ++k) {
      w[k] = 0;
      for (size_t j = 0; j < 8; ++j) w[k] = (w[k] << 8) | rec[k * 8 + j];  // big-endian
    }
    auto fail = [&](size_t field, const std::string& msg) {
      throw InputError(where() + ": field '" + kField[field] + "': " + msg);
    };
    for (size_t k : {1, 2, 3, 6})
      if (w[k] > static_cast<uint64_t>(INT64_MAX))
        fail(k, std::to_string(w[k]) + " is out of the signed 64-bit range");
    if (w[2] <= w[1] || w[2] - w[1] < 2)
      fail(2, "birth " + std::to_string(w[1]) + ", death " + std::to_string(w[2]) +
                  ": never live (live iff birth < t < death, so death - birth must be >= 2)");
    Buffer b;
    b.id = std::to_string(w[0]);
    b.start = static_cast<int64_t>(w[1]) + 1;  // first integer t with birth < t
    b.end = static_cast<int64_t>(w[2]);        // half-open: live up to death - 1
    b.size = static_cast<int64_t>(w[3]);
    b.alignment = w[6] == 0 ? 1 : static_cast<int64_t>(w[6]);
    if (auto issue = buffer_issue(b)) {
      const size_t field = issue->field == "size" ? 3 : issue->field == "alignment" ? 6 : 2;
      fail(field, issue->message);
    }
    if (auto issue = total.add(b)) fail(3, issue->message);
    p.buffers.push_back(std::move(b));
  }
  // Unique ids, once all records are read (record k + 1 holds buffer k).
  if (const auto d = first_duplicate_id(p.buffers))
    throw InputError(where_of(d->dup + 1) + ": field 'id': duplicate id " + p.buffers[d->dup].id +
                     " (first in record " + std::to_string(d->first + 1) + ")");
  return p;
}

Problem read_plc_file(const std::string& path) {
  std::ifstream in = open_input(path);
  return read_plc(in, path);
}

}  // namespace memplan
