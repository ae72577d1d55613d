#include "svg_plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace ftckpt_plan {

namespace {

constexpr double kWidth = 760, kHeight = 480;
constexpr double kLeft = 80, kRight = 190, kTop = 50, kBottom = 80;
const char* const kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"};

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else out += c;
  }
  return out;
}

// A round step giving about `target` ticks between 0 and hi.
double nice_step(double hi, int target) {
  double raw = hi / target;
  double mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (raw <= m * mag) return m * mag;
  return 10 * mag;
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

std::string render_svg(const LineChart& c) {
  if (c.x.empty()) throw std::runtime_error("plot: no data");
  const double pw = kWidth - kLeft - kRight, ph = kHeight - kTop - kBottom;
  auto tx = [&](double v) { return c.log_x ? std::log(v) : v; };
  double xmin = tx(*std::min_element(c.x.begin(), c.x.end()));
  double xmax = tx(*std::max_element(c.x.begin(), c.x.end()));
  if (xmax == xmin) xmax = xmin + 1;
  double ymax = 0;
  for (const auto& s : c.series)
    for (std::size_t i = 0; i < s.y.size(); ++i)
      ymax = std::max(ymax, s.y[i] + (i < s.err.size() ? s.err[i] : 0.0));
  if (ymax <= 0) ymax = 1;
  double step = nice_step(ymax, 6);
  ymax = std::ceil(ymax / step) * step;
  // 5 % padding on x so end points and their bars stay inside the frame.
  double pad = 0.05 * (xmax - xmin);
  auto px = [&](double v) { return kLeft + (tx(v) - xmin + pad) / (xmax - xmin + 2 * pad) * pw; };
  auto py = [&](double v) { return kTop + ph - v / ymax * ph; };

  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << kHeight
    << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
    << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    << "<text x=\"" << kWidth / 2 << "\" y=\"26\" text-anchor=\"middle\" font-size=\"15\">"
    << escape(c.title) << "</text>\n";
  for (double v = 0; v <= ymax + 1e-9; v += step) {
    o << "<line x1=\"" << kLeft << "\" x2=\"" << kLeft + pw << "\" y1=\"" << py(v) << "\" y2=\""
      << py(v) << "\" stroke=\"#ddd\"/>\n"
      << "<text x=\"" << kLeft - 6 << "\" y=\"" << py(v) + 4 << "\" text-anchor=\"end\">"
      << num(v) << "</text>\n";
  }
  for (std::size_t i = 0; i < c.x.size(); ++i) {
    std::string label = i < c.x_ticks.size() ? c.x_ticks[i] : num(c.x[i]);
    o << "<line x1=\"" << px(c.x[i]) << "\" x2=\"" << px(c.x[i]) << "\" y1=\"" << kTop + ph
      << "\" y2=\"" << kTop + ph + 5 << "\" stroke=\"black\"/>\n"
      << "<text x=\"" << px(c.x[i]) << "\" y=\"" << kTop + ph + 18
      << "\" text-anchor=\"middle\" font-size=\"11\">";
    // One line per space-separated part, so "[180 900]" stacks instead of colliding.
    std::istringstream parts(label);
    std::string part;
    for (int line = 0; parts >> part; ++line)
      o << "<tspan x=\"" << px(c.x[i]) << "\" dy=\"" << (line ? 13 : 0) << "\">" << escape(part)
        << "</tspan>";
    o << "</text>\n";
  }
  o << "<rect x=\"" << kLeft << "\" y=\"" << kTop << "\" width=\"" << pw << "\" height=\"" << ph
    << "\" fill=\"none\" stroke=\"black\"/>\n"
    << "<text x=\"" << kLeft + pw / 2 << "\" y=\"" << kHeight - 18
    << "\" text-anchor=\"middle\">" << escape(c.x_label) << "</text>\n"
    << "<text transform=\"translate(22," << kTop + ph / 2
    << ") rotate(-90)\" text-anchor=\"middle\">" << escape(c.y_label) << "</text>\n";

  for (std::size_t s = 0; s < c.series.size(); ++s) {
    const PlotSeries& ser = c.series[s];
    const char* colour = kColours[s % (sizeof kColours / sizeof *kColours)];
    o << "<polyline fill=\"none\" stroke-width=\"2\" stroke=\"" << colour << "\" points=\"";
    for (std::size_t i = 0; i < ser.y.size() && i < c.x.size(); ++i)
      o << px(c.x[i]) << "," << py(ser.y[i]) << " ";
    o << "\"/>\n";
    for (std::size_t i = 0; i < ser.y.size() && i < c.x.size(); ++i) {
      double x = px(c.x[i]) + (static_cast<double>(s) - 1.0) * 3;  // keep bars apart
      if (i < ser.err.size())
        o << "<line x1=\"" << x << "\" x2=\"" << x << "\" y1=\"" << py(ser.y[i] + ser.err[i])
          << "\" y2=\"" << py(std::max(0.0, ser.y[i] - ser.err[i])) << "\" stroke=\"" << colour
          << "\" stroke-opacity=\"0.5\"/>\n";
      o << "<circle cx=\"" << px(c.x[i]) << "\" cy=\"" << py(ser.y[i]) << "\" r=\"3.5\" fill=\""
        << colour << "\"/>\n";
    }
    double ly = kTop + 16 + 20.0 * s;
    o << "<line x1=\"" << kLeft + pw + 14 << "\" x2=\"" << kLeft + pw + 38 << "\" y1=\"" << ly
      << "\" y2=\"" << ly << "\" stroke-width=\"2\" stroke=\"" << colour << "\"/>\n"
      << "<text x=\"" << kLeft + pw + 44 << "\" y=\"" << ly + 4 << "\">" << escape(ser.name)
      << "</text>\n";
  }
  o << "</svg>\n";
  return o.str();
}

void write_svg(const std::string& path, const LineChart& chart) {
  std::string svg = render_svg(chart);
  std::ofstream f(path);
  if (!f) throw std::runtime_error("cannot open " + path + " for writing");
  f << svg;
  if (!f) throw std::runtime_error("cannot write " + path);
}

}  // namespace ftckpt_plan
