// memplan: a picture of a plan as SVG. Time runs left to right, addresses bottom to top,
// one rectangle per buffer (hover shows id, lifetime, size and offset), with the LOAD
// bound and the peak as horizontal lines. Above `max_rects` buffers the picture is
// aggregated into a grid of cells shaded by occupancy, so it stays small and fast to
// render at any size.
#pragma once

#include <string>
#include <vector>

#include "memplan/problem.h"

namespace memplan {

struct SvgOptions {
  int width = 1200;
  int height = 640;
  size_t max_rects = 20000;  // more buffers than this: aggregated view
  int grid_columns = 600, grid_rows = 300;
  std::string title;
};

std::string plan_to_svg(const Problem& p, const std::vector<int64_t>& offsets, int64_t load,
                        const SvgOptions& options = {});

}  // namespace memplan
