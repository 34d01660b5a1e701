// The memory-period study's outputs: Pareto fronts, best points within a
// limit, CSV, table and SVG, run measures through a pipe, forked children.
#include <gtest/gtest.h>

#include <cmath>
#include <csignal>
#include <functional>
#include <sstream>
#include <stdexcept>

#include "studies/forked_run.hpp"
#include "studies/study.hpp"

namespace pipesim {
namespace {

StudyPoint point(const std::string& source, double limit, double peak, double period, const std::string& config) {
  StudyPoint p;
  p.source = source;
  p.memory_limit = limit;
  p.peak_memory = peak;
  p.period = period;
  p.config = config;
  return p;
}

const double GiB = 1024.0 * 1024 * 1024;

std::vector<StudyPoint> sample() {
  std::vector<StudyPoint> v = {point("pipedream", 1 * GiB, 3 * GiB, 0.010, "a"),
                               point("pipedream", 1 * GiB, 2 * GiB, 0.020, "b|c"),
                               point("pipedream", 1 * GiB, 2.5 * GiB, 0.025, "dominated"),
                               point("pipedream", 1 * GiB, 5 * GiB, 0.010, "dominated too"),
                               point("ilp", 2 * GiB, 1.9 * GiB, 0.012, "0,1,0,1"),
                               point("ilp", 1 * GiB, NAN, NAN, "")};
  v.back().status = "infeasible";
  return v;
}

TEST(Study, ParetoFrontAndBestWithin) {
  const std::vector<StudyPoint> v = sample();
  const std::vector<StudyPoint> front = pareto_front(v, "pipedream");
  ASSERT_EQ(front.size(), 2u);
  EXPECT_EQ(front[0].config, "b|c");
  EXPECT_EQ(front[1].config, "a");
  EXPECT_EQ(pareto_front(v, "ilp").size(), 1u);
  EXPECT_EQ(best_within(v, "pipedream", 2.6 * GiB)->config, "b|c");
  EXPECT_EQ(best_within(v, "pipedream", 10 * GiB)->config, "a");
  EXPECT_EQ(best_within(v, "pipedream", 1 * GiB), nullptr);
}

TEST(Study, CsvTableAndSvg) {
  const std::vector<StudyPoint> v = sample();
  std::ostringstream csv;
  write_study_csv(csv, v);
  EXPECT_EQ(csv.str().substr(0, csv.str().find('\n')),
            "source,memory_limit,peak_memory,period,predicted_peak,predicted_period,status,config,analytic_peak,gap");
  EXPECT_NE(csv.str().find("\nilp,2147483648,2040109465.6,0.012,,,ok,\"0,1,0,1\",,\n"), std::string::npos) << csv.str();
  EXPECT_NE(csv.str().find("\nilp,1073741824,,,,,infeasible,,,\n"), std::string::npos) << csv.str();

  std::ostringstream table;
  write_study_table(table, v, {1 * GiB, 2 * GiB, 4 * GiB});
  EXPECT_NE(table.str().find("| 1.00 GiB | none fits |  |  | infeasible |  |  |  |\n"), std::string::npos)
      << table.str();
  EXPECT_NE(table.str().find("| 2.00 GiB | 20.00 ms | 2.00 GiB / - | `b\\|c` | 12.00 ms | 1.90 GiB / - | ok | 1.67 |"),
            std::string::npos)
      << table.str();
  EXPECT_NE(table.str().find("| 4.00 GiB | 10.00 ms | 3.00 GiB / - | `a` | not run |  |  |  |"), std::string::npos)
      << table.str();

  const std::string svg = study_svg(v, {"ResNet <18>", {2 * GiB}});
  EXPECT_EQ(svg, study_svg(v, {"ResNet <18>", {2 * GiB}}));
  EXPECT_EQ(svg.rfind("<svg ", 0), 0u);
  EXPECT_NE(svg.find("ResNet &lt;18&gt;"), std::string::npos);
  std::size_t circles = 0, squares = 0;
  for (std::size_t at = 0; (at = svg.find("<circle cx", at)) != std::string::npos; ++at) ++circles;
  for (std::size_t at = 0; (at = svg.find("fill=\"#d62728\"><title>", at)) != std::string::npos; ++at) ++squares;
  EXPECT_EQ(circles, 4u + 1u);  // the points and the legend's
  EXPECT_EQ(squares, 1u);       // the one measured ILP point
  EXPECT_NE(svg.find("stroke-dasharray=\"4 3\"><title>limit 2.00 GiB"), std::string::npos);
  EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n");
}

TEST(Study, RunMeasureRoundTrip) {
  RunMeasure m;
  m.completed = true;
  m.period = 0.1 + 0.2;
  m.device_peaks = {1.0 / 3, 12345678901234.5, 0};
  const RunMeasure back = decode(encode(m));
  EXPECT_TRUE(back.completed);
  EXPECT_EQ(back.period, m.period);
  EXPECT_EQ(back.device_peaks, m.device_peaks);
  EXPECT_EQ(back.peak(), 12345678901234.5);
  EXPECT_THROW(decode("x"), std::runtime_error);
}

TEST(Study, ForkedWorkReturnsOrFails) {
  EXPECT_EQ(run_forked([] { return std::string(200000, 'x'); }).size(), 200000u);  // more than a pipe buffer
  try {
    run_forked([]() -> std::string { throw std::invalid_argument("no route"); });
    ADD_FAILURE();
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "no route");
  }
  try {
    run_forked([]() -> std::string {
      std::raise(SIGKILL);
      return "";
    });
    ADD_FAILURE();
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "child killed by signal 9");
  }
}

// Several children at once: each one's result in order, however large; a
// failure of one is thrown once all have ended.
TEST(Study, ForkedWorksReturnInOrderOrFail) {
  std::vector<std::function<std::string()>> works;
  for (int k = 0; k < 3; ++k) works.push_back([k] { return std::string(100000 + k, static_cast<char>('a' + k)); });
  const std::vector<std::string> results = run_forked_all(works);
  ASSERT_EQ(results.size(), 3u);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(results[k], std::string(100000 + k, static_cast<char>('a' + k)));
  works[1] = []() -> std::string { throw std::invalid_argument("no route"); };
  try {
    run_forked_all(works);
    ADD_FAILURE();
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "no route");
  }
}

}  // namespace
}  // namespace pipesim
