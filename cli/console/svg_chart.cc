#include "cli/console/svg_chart.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cli/gateway/html_text.h"

namespace leakhound {

std::string StackedBarChart(const std::string& title,
                            const std::vector<std::string>& columns,
                            const std::vector<ChartSeries>& series) {
  constexpr int kWidth = 760, kHeight = 240, kLeft = 48, kBottom = 40,
                kTop = 28;
  const int plot_height = kHeight - kBottom - kTop;
  int64_t top = 1;
  for (size_t c = 0; c < columns.size(); ++c) {
    int64_t sum = 0;
    for (const ChartSeries& s : series) sum += s.values[c];
    top = std::max(top, sum);
  }
  const double step = columns.empty()
                          ? 0
                          : static_cast<double>(kWidth - kLeft - 8) /
                                static_cast<double>(columns.size());
  std::string out = absl::StrFormat(
      "<svg class=\"chart\" role=\"img\" viewBox=\"0 0 %d %d\" width=\"%d\" "
      "height=\"%d\" xmlns=\"http://www.w3.org/2000/svg\"><title>%s</title>"
      "<text x=\"%d\" y=\"16\" class=\"chart-title\">%s</text>",
      kWidth, kHeight + 20 * static_cast<int>((series.size() + 3) / 4), kWidth,
      kHeight + 20 * static_cast<int>((series.size() + 3) / 4), Html(title),
      kLeft, Html(title));
  // Axis with the top value and zero.
  absl::StrAppendFormat(&out,
                        "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
                        "stroke=\"#888\"/><text x=\"%d\" y=\"%d\" "
                        "text-anchor=\"end\" class=\"axis\">%d</text><text "
                        "x=\"%d\" y=\"%d\" text-anchor=\"end\" "
                        "class=\"axis\">0</text>",
                        kLeft, kTop, kLeft, kTop + plot_height, kLeft - 4,
                        kTop + 10, top, kLeft - 4, kTop + plot_height);
  for (size_t c = 0; c < columns.size(); ++c) {
    double y = kTop + plot_height;
    const double x = kLeft + 4 + step * static_cast<double>(c);
    const double w = std::max(1.0, step - 2);
    for (const ChartSeries& s : series) {
      if (s.values[c] == 0) continue;
      const double h = static_cast<double>(plot_height) *
                       static_cast<double>(s.values[c]) /
                       static_cast<double>(top);
      y -= h;
      absl::StrAppendFormat(
          &out,
          "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
          "fill=\"%s\"><title>%s %s: %d</title></rect>",
          x, y, w, h, Html(s.color), Html(columns[c]), Html(s.name),
          s.values[c]);
    }
    // Every seventh column, and the last unless it would overlap the
    // previous label.
    // The last label ends at its bar's right edge, so that it stays inside
    // the chart; the others start at their bar.
    if (c + 1 == columns.size()) {
      absl::StrAppendFormat(&out,
                            "<text x=\"%.1f\" y=\"%d\" text-anchor=\"end\" "
                            "class=\"axis\">%s</text>",
                            x + w, kTop + plot_height + 14, Html(columns[c]));
    } else if (c % 7 == 0 && columns.size() - c > 3) {
      absl::StrAppendFormat(
          &out, "<text x=\"%.1f\" y=\"%d\" class=\"axis\">%s</text>", x,
          kTop + plot_height + 14, Html(columns[c]));
    }
  }
  for (size_t i = 0; i < series.size(); ++i) {
    const int lx = kLeft + 180 * static_cast<int>(i % 4);
    const int ly = kHeight + 20 * static_cast<int>(i / 4);
    absl::StrAppendFormat(&out,
                          "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" "
                          "fill=\"%s\"/><text x=\"%d\" y=\"%d\" "
                          "class=\"legend\">%s</text>",
                          lx, ly - 10, Html(series[i].color), lx + 16, ly,
                          Html(series[i].name));
  }
  return out + "</svg>";
}

std::string RankingChart(
    const std::string& title,
    const std::vector<std::pair<std::string, int64_t>>& rows) {
  constexpr int kWidth = 760, kRow = 22, kLabel = 300;
  int64_t top = 1;
  for (const auto& [name, count] : rows) top = std::max(top, count);
  const int height =
      28 + kRow * static_cast<int>(std::max<size_t>(1, rows.size()));
  std::string out = absl::StrFormat(
      "<svg class=\"chart\" role=\"img\" viewBox=\"0 0 %d %d\" width=\"%d\" "
      "height=\"%d\" xmlns=\"http://www.w3.org/2000/svg\"><title>%s</title>"
      "<text x=\"0\" y=\"16\" class=\"chart-title\">%s</text>",
      kWidth, height, kWidth, height, Html(title), Html(title));
  if (rows.empty()) {
    out += "<text x=\"0\" y=\"40\" class=\"axis\">none</text>";
  }
  int y = 28;
  for (const auto& [name, count] : rows) {
    const std::string shown =
        name.size() > 44 ? name.substr(0, 41) + "..." : name;
    const double w = static_cast<double>(kWidth - kLabel - 60) *
                     static_cast<double>(count) / static_cast<double>(top);
    absl::StrAppendFormat(
        &out,
        "<text x=\"0\" y=\"%d\" class=\"legend\">%s</text><rect x=\"%d\" "
        "y=\"%d\" width=\"%.1f\" height=\"16\" fill=\"#3b6ea5\"><title>%s: "
        "%d</title></rect><text x=\"%.1f\" y=\"%d\" class=\"axis\">%d</text>",
        y + 13, Html(shown), kLabel, y, std::max(1.0, w), Html(name), count,
        kLabel + std::max(1.0, w) + 4, y + 13, count);
    y += kRow;
  }
  return out + "</svg>";
}

}  // namespace leakhound
