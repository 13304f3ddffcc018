#include "memplan/svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <vector>

namespace memplan {
namespace {

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

// A stable pastel colour per buffer id.
std::string colour(const std::string& id) {
  const size_t h = std::hash<std::string>{}(id);
  char buf[32];
  std::snprintf(buf, sizeof buf, "hsl(%zu,60%%,%zu%%)", h % 360, 55 + (h / 360) % 20);
  return buf;
}

}  // namespace

std::string plan_to_svg(const Problem& p, const std::vector<int64_t>& offsets, int64_t load,
                        const SvgOptions& o) {
  const double left = 70, right = 20, top = 30, bottom = 40;
  const double w = o.width - left - right, h = o.height - top - bottom;
  int64_t t0 = 0, t1 = 1, peak = std::max<int64_t>(load, 1);
  if (!p.buffers.empty()) {
    t0 = p.buffers[0].start, t1 = p.buffers[0].end;
    for (size_t i = 0; i < p.buffers.size(); ++i) {
      t0 = std::min(t0, p.buffers[i].start);
      t1 = std::max(t1, p.buffers[i].end);
      peak = std::max(peak, offsets[i] + p.buffers[i].size);
    }
  }
  const double span_t = static_cast<double>(std::max<int64_t>(t1 - t0, 1));
  const double span_a = static_cast<double>(peak) * 1.05;
  auto X = [&](int64_t t) { return left + w * (static_cast<double>(t - t0) / span_t); };
  auto Y = [&](int64_t a) { return top + h - h * (static_cast<double>(a) / span_a); };

  std::string s;
  s.reserve(256 + std::min(p.buffers.size(), o.max_rects) * 160);
  s += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(o.width) + "\" height=\"" +
       std::to_string(o.height) + "\" viewBox=\"0 0 " + std::to_string(o.width) + " " +
       std::to_string(o.height) + "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  s += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  if (!o.title.empty()) s += "<text x=\"" + num(left) + "\" y=\"18\" font-weight=\"bold\">" + escape(o.title) + "</text>\n";
  s += "<rect x=\"" + num(left) + "\" y=\"" + num(top) + "\" width=\"" + num(w) + "\" height=\"" + num(h) +
       "\" fill=\"none\" stroke=\"#888\"/>\n";
  if (p.buffers.size() <= o.max_rects) {
    s += "<g stroke=\"#333\" stroke-width=\"0.3\">\n";
    for (size_t i = 0; i < p.buffers.size(); ++i) {
      const Buffer& b = p.buffers[i];
      for (const Piece& piece : pieces_of(b)) {  // each absence of a swap plan a hole
        const double x = X(piece.start), y = Y(offsets[i] + piece.hi);
        s += "<rect x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(std::max(0.5, X(piece.end) - x)) +
             "\" height=\"" + num(std::max(0.5, Y(offsets[i] + piece.lo) - y)) + "\" fill=\"" + colour(b.id) + "\"><title>" +
             escape(b.id) + ": [" + std::to_string(b.start) + ", " + std::to_string(b.end) + ") size " +
             std::to_string(b.size) + " at " + std::to_string(offsets[i]) + "</title></rect>\n";
      }
    }
    s += "</g>\n";
  } else {
    // Aggregated: the share of each grid cell covered by buffers, as one of 8 shades (square
    // root scale, so sparse cells stay visible); equal shades along a row merge into one
    // rectangle.
    const int cols = o.grid_columns, rows = o.grid_rows;
    std::vector<double> cover(static_cast<size_t>(cols) * rows, 0.0);
    const double cw = span_t / cols, ch = span_a / rows;
    for (size_t i = 0; i < p.buffers.size(); ++i)
      for (const Piece& piece : pieces_of(p.buffers[i])) {
        const double bx0 = static_cast<double>(piece.start - t0), bx1 = static_cast<double>(piece.end - t0);
        const double by0 = static_cast<double>(offsets[i] + piece.lo), by1 = static_cast<double>(offsets[i] + piece.hi);
        const int c0 = std::clamp(static_cast<int>(bx0 / cw), 0, cols - 1), c1 = std::clamp(static_cast<int>(bx1 / cw), 0, cols - 1);
        const int r0 = std::clamp(static_cast<int>(by0 / ch), 0, rows - 1), r1 = std::clamp(static_cast<int>(by1 / ch), 0, rows - 1);
        for (int r = r0; r <= r1; ++r) {
          const double oy = std::min(by1, (r + 1) * ch) - std::max(by0, r * ch);
          if (oy <= 0) continue;
          for (int c = c0; c <= c1; ++c) {
            const double ox = std::min(bx1, (c + 1) * cw) - std::max(bx0, c * cw);
            if (ox > 0) cover[static_cast<size_t>(r) * cols + c] += ox * oy / (cw * ch);
          }
        }
      }
    s += "<g>\n";
    for (int r = 0; r < rows; ++r) {
      for (int c = 0; c < cols;) {
        auto shade = [&](int col) {
          return static_cast<int>(std::ceil(std::sqrt(std::min(1.0, cover[static_cast<size_t>(r) * cols + col])) * 8));
        };
        const int level = shade(c);
        int e = c + 1;
        while (e < cols && shade(e) == level) ++e;
        if (level > 0) {
          const double x = left + w * c / cols, y = top + h - h * (r + 1) / rows;
          s += "<rect x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(w * (e - c) / cols) + "\" height=\"" +
               num(h / rows + 0.05) + "\" fill=\"#2b6cb0\" fill-opacity=\"" + num(level / 8.0) + "\"/>\n";
        }
        c = e;
      }
    }
    s += "</g>\n<text x=\"" + num(left + w - 4) + "\" y=\"" + num(top + 14) + "\" text-anchor=\"end\" fill=\"#555\">" +
         std::to_string(p.buffers.size()) + " buffers, aggregated: shade = occupancy</text>\n";
  }
  auto hline = [&](int64_t a, double label_y, const char* colour_name, const char* label, const char* dash) {
    s += std::string("<line x1=\"") + num(left) + "\" x2=\"" + num(left + w) + "\" y1=\"" + num(Y(a)) + "\" y2=\"" +
         num(Y(a)) + "\" stroke=\"" + colour_name + "\" stroke-width=\"1.5\" stroke-dasharray=\"" + dash + "\"/>\n";
    s += std::string("<text x=\"") + num(left + 4) + "\" y=\"" + num(label_y) + "\" fill=\"" + colour_name + "\">" +
         label + " " + std::to_string(a) + "</text>\n";
  };
  // Each label sits just above its line (baseline 4 px up). The peak is never below LOAD;
  // when the two labels would come closer than a line of text (peak == LOAD, or nearly),
  // the LOAD label moves below its line instead, so the two never overlap.
  constexpr double kLineHeight = 14;  // font-size 12 plus leading
  const double peak_label_y = Y(peak) - 4;
  double load_label_y = Y(load) - 4;
  if (load_label_y - peak_label_y < kLineHeight) load_label_y = Y(load) + kLineHeight;
  hline(load, load_label_y, "#c53030", "LOAD", "6 4");
  hline(peak, peak_label_y, "#2f855a", "peak", "none");
  s += "<text x=\"" + num(left + w / 2) + "\" y=\"" + std::to_string(o.height - 10) +
       "\" text-anchor=\"middle\">time [" + std::to_string(t0) + ", " + std::to_string(t1) + ")</text>\n";
  s += "<text transform=\"translate(16," + num(top + h / 2) + ") rotate(-90)\" text-anchor=\"middle\">address (bytes)</text>\n";
  s += "</svg>\n";
  return s;
}

}  // namespace memplan
