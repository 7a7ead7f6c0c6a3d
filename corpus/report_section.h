// ReportSection: a part of the evaluation report: Markdown text and the
// data files (gnuplot input) its plots read.
//
// Thread-safety: plain data.
#ifndef LEAKHOUND_CORPUS_REPORT_SECTION_H_
#define LEAKHOUND_CORPUS_REPORT_SECTION_H_

#include <map>
#include <string>

namespace leakhound {

struct ReportSection {
  std::string markdown;
  std::map<std::string, std::string> data_files;  // file name -> content
};

}  // namespace leakhound

#endif  // LEAKHOUND_CORPUS_REPORT_SECTION_H_
