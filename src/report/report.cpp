#include "memplan/report.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "memplan/bounds.h"
#include "memplan/svg.h"
#include "memplan/validate.h"

namespace memplan {
namespace {

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string esc(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else if (c == '"') out += "&quot;";
    else out += c;
  }
  return out;
}

std::vector<std::string> ordered(const std::vector<BenchRow>& rows, bool inputs) {
  std::vector<std::string> out;
  for (const BenchRow& r : rows) {
    const std::string& k = inputs ? r.input : r.solver;
    if (std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
  }
  return out;
}

const BenchRow* find_row(const std::vector<BenchRow>& rows, const std::string& in, const std::string& s) {
  for (const BenchRow& r : rows)
    if (r.input == in && r.solver == s) return &r;
  return nullptr;
}

std::string cell(const BenchRow* r, bool time) {
  if (!r) return "";
  if (!r->error.empty()) return "ERROR: " + r->error;
  if (r->peak < 0) return r->status;
  return time ? fmt("%.3f", r->seconds) : fmt("%.4f", r->ratio());
}

const char* kPalette[] = {"#2b6cb0", "#c05621", "#2f855a", "#9b2c2c", "#6b46c1", "#b7791f",
                          "#2c7a7b", "#97266d", "#4a5568", "#dd6b20", "#38a169", "#3182ce"};

}  // namespace

std::vector<BenchRow> run_bench(const std::vector<BenchInput>& inputs,
                                const std::vector<std::string>& solvers, const SolveOptions& options,
                                int repeat) {
  std::vector<BenchRow> rows;
  for (const BenchInput& in : inputs) {
    const int64_t load = compute_load(in.problem);
    for (const std::string& s : solvers) {
      BenchRow row;
      row.input = in.name;
      row.solver = s;
      row.buffers = static_cast<int64_t>(in.problem.buffers.size());
      row.load = load;
      double total = 0;
      try {
        for (int k = 0; k < std::max(1, repeat); ++k) {
          const auto t0 = std::chrono::steady_clock::now();
          SolveResult r = solve(in.problem, s, options);
          total += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          row.status = to_string(r.status);
          if (!r.solution) continue;
          const Validation v = validate(in.problem, r.solution->offsets, options.capacity);
          row.valid = v.ok;
          row.peak = r.solution->peak;
          row.offsets = r.solution->offsets;
          if (!v.ok) row.error = "invalid plan: " + v.errors.front();
        }
      } catch (const std::exception& e) {
        row.error = e.what();
      }
      row.seconds = total / std::max(1, repeat);
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

std::string bench_markdown(const std::vector<BenchRow>& rows) {
  const auto ins = ordered(rows, true), sol = ordered(rows, false);
  std::string s;
  for (bool time : {false, true}) {
    s += time ? "\n### Solve time (s)\n\n" : "### peak / LOAD\n\n";
    s += "| solver |";
    for (const auto& i : ins) s += " " + i + " |";
    s += "\n|---|";
    for (size_t k = 0; k < ins.size(); ++k) s += "---:|";
    s += "\n";
    for (const auto& so : sol) {
      s += "| " + so + " |";
      for (const auto& i : ins) s += " " + cell(find_row(rows, i, so), time) + " |";
      s += "\n";
    }
  }
  return s;
}

std::string bench_csv(const std::vector<BenchRow>& rows) {
  std::string s = "input,buffers,load,solver,peak,ratio,seconds,valid,status,error\n";
  for (const BenchRow& r : rows) {
    std::string err = r.error;
    std::replace(err.begin(), err.end(), ',', ';');
    s += r.input + "," + std::to_string(r.buffers) + "," + std::to_string(r.load) + "," + r.solver + "," +
         (r.peak >= 0 ? std::to_string(r.peak) : "") + "," + (r.peak >= 0 ? fmt("%.6f", r.ratio()) : "") + "," +
         fmt("%.6f", r.seconds) + "," + (r.valid ? "yes" : "no") + "," + r.status + "," + err + "\n";
  }
  return s;
}

std::string ratio_chart_svg(const std::vector<BenchRow>& rows) {
  const auto ins = ordered(rows, true), sol = ordered(rows, false);
  double ymax = 1.0;
  for (const BenchRow& r : rows)
    if (r.error.empty() && r.peak > 0) ymax = std::max(ymax, r.ratio());
  ymax = std::min(ymax, 3.0);
  const double left = 60, top = 20, h = 300, group = std::max<double>(40, 14.0 * sol.size() + 16);
  const double w = group * ins.size(), legend = 18.0 * ((sol.size() + 3) / 4);
  const double W = std::max(left + w + 20, left + 4 * 200.0), H = top + h + 60 + legend;
  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"" + fmt("%.0f", W) +
                  "\" height=\"" + fmt("%.0f", H) + "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  s += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  auto Y = [&](double v) { return top + h - h * (v - 1.0) / std::max(ymax - 1.0, 1e-9); };
  for (int t = 0; t <= 4; ++t) {
    const double v = 1.0 + (ymax - 1.0) * t / 4;
    s += "<line x1=\"" + fmt("%.1f", left) + "\" x2=\"" + fmt("%.1f", left + w) + "\" y1=\"" + fmt("%.1f", Y(v)) +
         "\" y2=\"" + fmt("%.1f", Y(v)) + "\" stroke=\"#ddd\"/><text x=\"" + fmt("%.1f", left - 4) + "\" y=\"" +
         fmt("%.1f", Y(v) + 4) + "\" text-anchor=\"end\">" + fmt("%.3f", v) + "</text>\n";
  }
  for (size_t g = 0; g < ins.size(); ++g) {
    const double gx = left + g * group + 8;
    for (size_t k = 0; k < sol.size(); ++k) {
      const BenchRow* r = find_row(rows, ins[g], sol[k]);
      const double x = gx + 14.0 * k;
      if (!r || !r->error.empty() || r->peak <= 0) {
        s += "<text x=\"" + fmt("%.1f", x + 6) + "\" y=\"" + fmt("%.1f", top + h - 4) +
             "\" fill=\"#c53030\" text-anchor=\"middle\">" + (r && !r->error.empty() ? "E" : "-") + "</text>\n";
        continue;
      }
      const double v = std::min(r->ratio(), ymax);
      s += "<rect class=\"bar\" x=\"" + fmt("%.1f", x) + "\" y=\"" + fmt("%.1f", Y(v)) + "\" width=\"12\" height=\"" +
           fmt("%.1f", std::max(1.0, top + h - Y(v))) + "\" fill=\"" + kPalette[k % 12] + "\"><title>" +
           esc(sol[k] + " on " + ins[g] + ": " + fmt("%.4f", r->ratio())) + "</title></rect>\n";
    }
    s += "<text x=\"" + fmt("%.1f", left + g * group + group / 2) + "\" y=\"" + fmt("%.1f", top + h + 16) +
         "\" text-anchor=\"middle\">" + esc(ins[g]) + "</text>\n";
  }
  for (size_t k = 0; k < sol.size(); ++k) {
    const double lx = left + (k % 4) * 200, ly = top + h + 36 + 18.0 * (k / 4);
    s += "<rect x=\"" + fmt("%.1f", lx) + "\" y=\"" + fmt("%.1f", ly - 9) + "\" width=\"10\" height=\"10\" fill=\"" +
         kPalette[k % 12] + "\"/><text x=\"" + fmt("%.1f", lx + 14) + "\" y=\"" + fmt("%.1f", ly) + "\">" +
         esc(sol[k]) + "</text>\n";
  }
  s += "<text x=\"14\" y=\"" + fmt("%.1f", top + h / 2) + "\" transform=\"rotate(-90 14 " + fmt("%.1f", top + h / 2) +
       ")\" text-anchor=\"middle\">peak / LOAD</text>\n</svg>\n";
  return s;
}

std::string time_chart_svg(const std::vector<BenchRow>& rows) {
  const auto sol = ordered(rows, false);
  double nmin = 1e300, nmax = 1, tmin = 1e300, tmax = 1e-6;
  for (const BenchRow& r : rows) {
    if (r.buffers <= 0) continue;
    nmin = std::min(nmin, double(r.buffers)), nmax = std::max(nmax, double(r.buffers));
    const double t = std::max(r.seconds, 1e-6);
    tmin = std::min(tmin, t), tmax = std::max(tmax, t);
  }
  if (nmin > nmax) nmin = 1;
  if (tmin > tmax) tmin = 1e-6;
  const double lnmin = std::log10(nmin) - 0.1, lnmax = std::log10(nmax) + 0.1;
  const double ltmin = std::log10(tmin) - 0.2, ltmax = std::log10(tmax) + 0.2;
  const double left = 70, top = 20, w = 600, h = 300;
  auto X = [&](double n) { return left + w * (std::log10(n) - lnmin) / std::max(lnmax - lnmin, 1e-9); };
  auto Y = [&](double t) { return top + h - h * (std::log10(t) - ltmin) / std::max(ltmax - ltmin, 1e-9); };
  const double legend = 18.0 * ((sol.size() + 3) / 4);
  std::string s = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"" + fmt("%.0f", left + w + 20) +
                  "\" height=\"" + fmt("%.0f", top + h + 60 + legend) + "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  s += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/><rect x=\"" + fmt("%.0f", left) + "\" y=\"" +
       fmt("%.0f", top) + "\" width=\"" + fmt("%.0f", w) + "\" height=\"" + fmt("%.0f", h) +
       "\" fill=\"none\" stroke=\"#888\"/>\n";
  for (size_t k = 0; k < sol.size(); ++k)
    for (const BenchRow& r : rows) {
      if (r.solver != sol[k] || r.buffers <= 0) continue;
      s += "<circle class=\"point\" cx=\"" + fmt("%.1f", X(double(r.buffers))) + "\" cy=\"" +
           fmt("%.1f", Y(std::max(r.seconds, 1e-6))) + "\" r=\"3.5\" fill=\"" + kPalette[k % 12] + "\"><title>" +
           esc(r.solver + " on " + r.input + ": " + std::to_string(r.buffers) + " buffers, " + fmt("%.4f", r.seconds) +
               " s") + "</title></circle>\n";
    }
  s += "<text x=\"" + fmt("%.0f", left + w / 2) + "\" y=\"" + fmt("%.0f", top + h + 16) +
       "\" text-anchor=\"middle\">buffers (log scale, " + fmt("%.0f", nmin) + " to " + fmt("%.0f", nmax) + ")</text>\n";
  s += "<text x=\"14\" y=\"" + fmt("%.0f", top + h / 2) + "\" transform=\"rotate(-90 14 " + fmt("%.0f", top + h / 2) +
       ")\" text-anchor=\"middle\">seconds (log scale)</text>\n";
  for (size_t k = 0; k < sol.size(); ++k) {
    const double lx = left + (k % 4) * 150, ly = top + h + 36 + 18.0 * (k / 4);
    s += "<circle cx=\"" + fmt("%.1f", lx + 5) + "\" cy=\"" + fmt("%.1f", ly - 4) + "\" r=\"4\" fill=\"" + kPalette[k % 12] +
         "\"/><text x=\"" + fmt("%.1f", lx + 14) + "\" y=\"" + fmt("%.1f", ly) + "\">" + esc(sol[k]) + "</text>\n";
  }
  s += "</svg>\n";
  return s;
}

std::string report_html(const std::vector<BenchInput>& inputs, const std::vector<BenchRow>& rows) {
  // Inline SVG needs no namespace declaration in HTML; dropping it keeps the page free of
  // any URL at all.
  auto inline_svg = [](std::string svg) {
    const std::string ns = " xmlns=\"http://www.w3.org/2000/svg\"";
    for (size_t at; (at = svg.find(ns)) != std::string::npos;) svg.erase(at, ns.size());
    return svg;
  };
  std::string h =
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>memplan report</title>\n<style>"
      "body{font-family:sans-serif;margin:24px;color:#222}table{border-collapse:collapse;margin:8px 0}"
      "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}td:first-child,th:first-child{text-align:left}"
      ".err{color:#c53030}.view{border:1px solid #aaa;overflow:hidden;width:1200px;height:640px;cursor:grab}"
      "#info{font-family:monospace;min-height:1.2em}</style>\n"
      // Script errors are counted on the page itself so that a headless browser can check them.
      "<script>window.memplanErrors=0;window.addEventListener('error',function(){window.memplanErrors++;});</script>\n"
      "</head><body>\n<h1>memplan report</h1>\n";
  const auto ins = ordered(rows, true), sol = ordered(rows, false);
  for (bool time : {false, true}) {
    h += time ? "<h2>Solve time (s)</h2>\n" : "<h2>peak / LOAD (1.0000 = optimal)</h2>\n";
    h += "<table><tr><th>solver</th>";
    for (const auto& i : ins) h += "<th>" + esc(i) + "</th>";
    h += "</tr>\n";
    for (const auto& so : sol) {
      h += "<tr><td>" + esc(so) + "</td>";
      for (const auto& i : ins) {
        const BenchRow* r = find_row(rows, i, so);
        h += std::string("<td") + (r && !r->error.empty() ? " class=\"err\"" : "") + ">" + esc(cell(r, time)) + "</td>";
      }
      h += "</tr>\n";
    }
    h += "</table>\n";
  }
  h += "<h2>peak / LOAD per solver</h2>\n" + inline_svg(ratio_chart_svg(rows));
  h += "<h2>Time against size</h2>\n" + inline_svg(time_chart_svg(rows));
  h += "<h2>Placements (best plan per input; wheel to zoom, drag to pan, hover for details)</h2>\n"
       "<div id=\"info\"></div>\n";
  for (const BenchInput& in : inputs) {
    const BenchRow* best = nullptr;
    for (const BenchRow& r : rows)
      if (r.input == in.name && r.error.empty() && r.peak > 0 && (!best || r.peak < best->peak)) best = &r;
    if (!best) continue;
    SvgOptions o;
    o.title = in.name + ": " + best->solver + ", peak " + std::to_string(best->peak);
    h += "<h3>" + esc(in.name) + "</h3><div class=\"view\">" +
         inline_svg(plan_to_svg(in.problem, best->offsets, best->load, o)) + "</div>\n";
  }
  h += R"(<script>
document.querySelectorAll('.view svg').forEach(function (svg) {
  var vb = svg.viewBox.baseVal, drag = null;
  svg.addEventListener('wheel', function (e) {
    e.preventDefault();
    var k = e.deltaY < 0 ? 0.8 : 1.25, r = svg.getBoundingClientRect();
    var px = vb.x + (e.clientX - r.left) / r.width * vb.width, py = vb.y + (e.clientY - r.top) / r.height * vb.height;
    vb.x = px - (px - vb.x) * k; vb.y = py - (py - vb.y) * k; vb.width *= k; vb.height *= k;
  });
  svg.addEventListener('mousedown', function (e) { drag = [e.clientX, e.clientY]; });
  window.addEventListener('mouseup', function () { drag = null; });
  svg.addEventListener('mousemove', function (e) {
    var t = e.target.querySelector ? e.target.querySelector('title') : null;
    if (t) document.getElementById('info').textContent = t.textContent;
    if (!drag) return;
    var r = svg.getBoundingClientRect();
    vb.x -= (e.clientX - drag[0]) / r.width * vb.width; vb.y -= (e.clientY - drag[1]) / r.height * vb.height;
    drag = [e.clientX, e.clientY];
  });
});
document.body.setAttribute('data-rendered', document.querySelectorAll('svg').length);
document.body.setAttribute('data-errors', window.memplanErrors);
</script>
</body></html>
)";
  return h;
}

}  // namespace memplan
