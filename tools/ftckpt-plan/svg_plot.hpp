// A small hand-written SVG line chart (no plotting dependency in the build), used by
// `ftckpt-plan simulate --plot`.
#pragma once

#include <string>
#include <vector>

namespace ftckpt_plan {

struct PlotSeries {
  std::string name;
  std::vector<double> y;    // one value per x position
  std::vector<double> err;  // optional +- bar per point (empty: none)
};

struct LineChart {
  std::string title, x_label, y_label;
  std::vector<double> x;             // positions, drawn on a log scale when log_x
  std::vector<std::string> x_ticks;  // label per x position
  bool log_x = true;
  std::vector<PlotSeries> series;
};

std::string render_svg(const LineChart& chart);

// Throws std::runtime_error when the file cannot be written.
void write_svg(const std::string& path, const LineChart& chart);

}  // namespace ftckpt_plan
