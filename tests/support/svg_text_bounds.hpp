// Which texts of an SVG picture reach past its right edge, at 12 px
// sans-serif, where a character is at most about 7 px wide (half of that on
// either side of a middle anchor).
#pragma once

#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace alloy::test {

/// "'TEXT' ends at X of WIDTH" for each text past the edge; empty when all
/// fit. Throws std::runtime_error where the picture has no width.
inline std::vector<std::string> texts_past_the_edge(const std::string& svg) {
  std::smatch width;
  if (!std::regex_search(svg, width, std::regex(R"re(<svg [^>]*width="([0-9.]+)")re"))) {
    throw std::runtime_error("the SVG has no width");
  }
  const double picture_width = std::stod(width[1]);
  const std::regex text(R"re(<text x="([0-9.]+)" y="[0-9.]+" ([^>]*)>([^<]*)</text>)re");
  std::vector<std::string> past;
  for (std::sregex_iterator it(svg.begin(), svg.end(), text), end; it != end; ++it) {
    const double x = std::stod((*it)[1]);
    const std::string anchor = (*it)[2];
    const double length = 7.0 * static_cast<double>((*it)[3].length());
    const double right = anchor.find("text-anchor=\"end\"") != std::string::npos      ? x
                         : anchor.find("text-anchor=\"middle\"") != std::string::npos ? x + length / 2
                                                                                       : x + length;
    if (right > picture_width) {
      std::ostringstream line;
      line << "'" << (*it)[3] << "' ends at " << right << " of " << picture_width;
      past.push_back(line.str());
    }
  }
  return past;
}

}  // namespace alloy::test
