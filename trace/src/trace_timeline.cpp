// Drawing a trace as an SVG timeline.
#include "alloy/trace_timeline.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "alloy/error.hpp"
#include "time_text.hpp"

namespace alloy {
namespace {

constexpr double label_width = 250;
constexpr double plot_width = 950;
/// What fits across the picture at 12 px sans-serif, to wrap diagnoses: a
/// character is at most about 7 px wide there.
constexpr std::size_t characters_per_line = static_cast<std::size_t>((label_width + plot_width) / 7);
constexpr double row_height = 18;
constexpr double row_gap = 4;
constexpr double top = 40;

/// `text` in lines of at most `width` characters, broken between words.
std::vector<std::string> wrapped(const std::string& text, std::size_t width) {
  std::vector<std::string> lines;
  std::istringstream words(text);
  std::string word;
  std::string line;
  while (words >> word) {
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      lines.push_back(line);
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

const char* colour(TraceKind kind) {
  switch (kind) {
    case TraceKind::kernel: return "#4c78a8";
    case TraceKind::copy_in: return "#f58518";
    case TraceKind::copy_out: return "#e45756";
    case TraceKind::copy: return "#b279a2";
    case TraceKind::fill: return "#9d755d";
    case TraceKind::host: return "#54a24b";
    case TraceKind::async: return "#72b7b2";
    case TraceKind::compile: return "#bab0ac";
    case TraceKind::held_back: return "#d4c5e2";
  }
  return "#888888";
}

const char* colour(IdleCause cause) {
  switch (cause) {
    case IdleCause::transfer: return "#f5b27a";
    case IdleCause::host_task: return "#a3d39c";
    case IdleCause::communication: return "#9ecae9";
    case IdleCause::other_device: return "#c9a6c4";
    case IdleCause::compile: return "#d6d6d6";
    case IdleCause::held_back: return "#e2d6ec";
    case IdleCause::submission: return "#fde49c";
    case IdleCause::other_jobs: return "#f7c6e0";
    case IdleCause::launch: return "#f4a6a6";
    case IdleCause::starved: return "#bfbfbf";
    case IdleCause::finished: return "#eeeeee";
  }
  return "#eeeeee";
}

std::string escaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

class Canvas {
 public:
  Canvas(std::uint64_t from, std::uint64_t length) : from_(from), length_(std::max<std::uint64_t>(length, 1)) {}
  double x(std::uint64_t ns) const {
    const double at = ns <= from_ ? 0.0 : static_cast<double>(ns - from_);
    return label_width + plot_width * std::min(1.0, at / static_cast<double>(length_));
  }
  void rectangle(double x0, double x1, double y, double height, const char* fill, const std::string& title = "") {
    out_ << "<rect x=\"" << x0 << "\" y=\"" << y << "\" width=\"" << std::max(x1 - x0, 0.5) << "\" height=\""
         << height << "\" fill=\"" << fill << "\">";
    if (!title.empty()) out_ << "<title>" << escaped(title) << "</title>";
    out_ << "</rect>\n";
  }
  void text(double x, double y, const std::string& words, const char* extra = "") {
    out_ << "<text x=\"" << x << "\" y=\"" << y << "\" " << extra << ">" << escaped(words) << "</text>\n";
  }
  std::ostringstream& out() { return out_; }

 private:
  std::uint64_t from_;
  std::uint64_t length_;
  std::ostringstream out_;
};

/// A lane's slices, with those under a pixel wide merged into runs so that
/// a long trace stays a small picture.
void draw_row(Canvas& canvas, const std::vector<const TraceSlice*>& slices, double y) {
  double run_start = -1;
  double run_end = -1;
  const char* run_colour = nullptr;
  std::size_t run_count = 0;
  auto flush = [&] {
    if (run_count > 0) {
      canvas.rectangle(run_start, run_end, y, row_height, run_colour, std::to_string(run_count) + " short commands");
    }
    run_count = 0;
  };
  for (const TraceSlice* slice : slices) {
    const double x0 = canvas.x(slice->start_ns);
    const double x1 = canvas.x(slice->end_ns);
    if (x1 - x0 >= 1.0) {
      flush();
      canvas.rectangle(x0, x1, y, row_height, colour(slice->kind),
                       slice->name + ": " + detail::duration_text(slice->duration_ns()));
      continue;
    }
    if (run_count > 0 && (x0 > run_end + 1.0 || run_colour != colour(slice->kind))) flush();
    if (run_count == 0) {
      run_start = x0;
      run_colour = colour(slice->kind);
    }
    run_end = std::max(run_end, x1);
    ++run_count;
  }
  flush();
}

}  // namespace

std::string timeline_svg(const Trace& trace, const UtilizationReport& report) {
  Canvas canvas(report.window_start_ns, report.window_ns);
  // Rows: each device's lanes and its idle causes, then the host workers.
  struct Row {
    std::string label;
    std::vector<const TraceSlice*> slices;
  };
  std::vector<Row> host_rows;
  std::map<std::string, std::size_t> host_index;
  std::vector<std::vector<Row>> device_rows(trace.devices.size());
  for (std::size_t d = 0; d < trace.devices.size(); ++d) {
    for (const std::string& lane : trace.devices[d].lanes) device_rows[d].push_back({lane, {}});
  }
  for (const TraceSlice& slice : trace.slices) {
    if (slice.device) {
      std::vector<Row>& rows = device_rows.at(*slice.device);
      for (Row& row : rows) {
        if (row.label == slice.lane) row.slices.push_back(&slice);
      }
      continue;
    }
    const auto [at, added] = host_index.try_emplace(slice.lane, host_rows.size());
    if (added) host_rows.push_back({slice.lane, {}});
    host_rows[at->second].slices.push_back(&slice);
  }
  // "host worker 2" before "host worker 10", whichever started first.
  std::stable_sort(host_rows.begin(), host_rows.end(), [](const Row& a, const Row& b) {
    return a.label.size() != b.label.size() ? a.label.size() < b.label.size() : a.label < b.label;
  });
  double y = top;
  for (std::size_t d = 0; d < trace.devices.size(); ++d) {
    canvas.text(8, y + 13, trace.devices[d].label, "font-weight=\"bold\"");
    y += row_height + row_gap;
    for (const Row& row : device_rows[d]) {
      canvas.text(20, y + 13, row.label);
      draw_row(canvas, row.slices, y);
      y += row_height + row_gap;
    }
    if (d < report.devices.size()) {
      canvas.text(20, y + 13, "idle, by cause");
      for (const IdleGap& gap : report.devices[d].gaps) {
        canvas.rectangle(canvas.x(gap.start_ns), canvas.x(gap.end_ns), y, row_height, colour(gap.main_cause()),
                         std::string(to_string(gap.main_cause())) + ": " +
                             detail::duration_text(gap.end_ns - gap.start_ns));
      }
      y += row_height + row_gap;
    }
    y += row_gap * 2;
  }
  if (!host_rows.empty()) {
    canvas.text(8, y + 13, "host", "font-weight=\"bold\"");
    y += row_height + row_gap;
  }
  for (const Row& row : host_rows) {
    canvas.text(20, y + 13, row.label);
    draw_row(canvas, row.slices, y);
    y += row_height + row_gap;
  }
  // The time axis, in five steps.
  for (int tick = 0; tick <= 5; ++tick) {
    const std::uint64_t at = report.window_start_ns + report.window_ns * tick / 5;
    const double x = canvas.x(at);
    canvas.out() << "<line x1=\"" << x << "\" y1=\"" << top - 6 << "\" x2=\"" << x << "\" y2=\"" << y
                 << "\" stroke=\"#dddddd\"/>\n";
    // Centred on its tick; the last one ends there, inside the picture.
    canvas.text(x, top - 10, detail::duration_text(at - report.window_start_ns),
                tick == 5 ? "text-anchor=\"end\"" : "text-anchor=\"middle\"");
  }
  y += row_height;
  // The legend, then the diagnoses.
  double x = 8;
  for (TraceKind kind : {TraceKind::kernel, TraceKind::copy_in, TraceKind::copy_out, TraceKind::copy,
                         TraceKind::fill, TraceKind::host, TraceKind::async, TraceKind::compile,
                         TraceKind::held_back}) {
    canvas.rectangle(x, x + 12, y, 12, colour(kind));
    canvas.text(x + 16, y + 11, std::string(to_string(kind)));
    x += 100;
  }
  y += 20;
  x = 8;
  for (std::size_t c = 0; c < idle_cause_count; ++c) {
    if (x + 150 > label_width + plot_width) {  // the next row: the picture ends there
      x = 8;
      y += 20;
    }
    canvas.rectangle(x, x + 12, y, 12, colour(static_cast<IdleCause>(c)));
    canvas.text(x + 16, y + 11, "idle: " + std::string(to_string(static_cast<IdleCause>(c))));
    x += 150;
  }
  y += 30;
  for (std::size_t i = 0; i < report.diagnoses.size(); ++i) {
    const Diagnosis& line = report.diagnoses[i];
    std::string words = std::to_string(i + 1) + ". " + line.cause;
    if (line.saving_ns > 0) words += " (up to " + detail::duration_text(line.saving_ns) + "): ";
    else words += ": ";
    for (const std::string& part : wrapped(words + line.finding, characters_per_line)) {
      canvas.text(8, y, part);
      y += 16;
    }
    if (!line.remedy.empty()) {
      for (const std::string& part : wrapped("fix: " + line.remedy, characters_per_line - 3)) {
        canvas.text(24, y, part, "fill=\"#555555\"");
        y += 16;
      }
    }
  }
  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << label_width + plot_width + 20 << "\" height=\""
      << y + 10 << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  canvas.text(8, 18,
              "alloy timeline: " + detail::duration_text(report.window_ns) + ", " + std::to_string(report.tasks) +
                  " tasks",
              "font-size=\"14\" font-weight=\"bold\"");
  svg << canvas.out().str() << "</svg>\n";
  return svg.str();
}

void write_timeline_svg(const Trace& trace, const UtilizationReport& report, const std::filesystem::path& file) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << timeline_svg(trace, report);
  out.close();
  if (!out) throw Error("writing the timeline " + file.string() + " failed; check that its folder exists and is writable");
}

}  // namespace alloy
