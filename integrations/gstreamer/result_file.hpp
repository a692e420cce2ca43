// The `result-file` property: libvmaf-layout JSON, XML or CSV, the same bytes the `vif` CLI
// writes, through libvif's result-log API (vif_log.h). The path is prepared when scoring starts
// (so a path that cannot be written is an error before any frame) and the file appears only
// complete, at the end of the stream.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "scoring.hpp"

namespace gstvif {

enum class ResultFormat { kJson = 0, kXml = 1, kCsv = 2 };

class ResultFile {
public:
    ResultFile();
    ~ResultFile();
    ResultFile(const ResultFile &) = delete;
    ResultFile &operator=(const ResultFile &) = delete;

    // Prepares `path` for one distorted stream scored by `scorer` (its variants become the
    // file's columns). False with *error set when it cannot be written.
    bool open(const std::string &path, ResultFormat format, const Scorer &scorer, uint32_t width,
              uint32_t height, uint32_t bitdepth, const std::string &reference,
              const std::string &distorted, std::string *error);
    // Writes every frame's scores ([variant][frame]) and renames the file into place.
    bool finish(const std::vector<const std::vector<VifScores> *> &scores, double fps,
                std::string *error);
    // Drops an unfinished file (nothing appears at the path).
    void abandon();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace gstvif
