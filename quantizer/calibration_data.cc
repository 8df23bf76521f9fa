// Implementation of reading and checking calibration batches.
#include "quantizer/calibration_data.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "runtime/npy.h"

namespace tfn::quantizer {
namespace {

namespace fs = std::filesystem;

std::string Expected(const ir::Graph& g, int i) {
  return "'" + g.param_names()[i] + "' " + g.type(g.param(i)).ToString();
}

// The sorted entries of dir that are regular files ending in .npy, or directories.
std::vector<fs::path> Entries(const fs::path& dir, bool directories) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    if (directories ? e.is_directory(ec)
                    : (e.is_regular_file(ec) && e.path().extension() == ".npy")) {
      out.push_back(e.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

absl::StatusOr<ConstTensor> Read(const fs::path& file) {
  Result<ConstTensor> t = runtime::ReadNpy(file.string());
  if (!t.ok()) {
    return absl::InvalidArgumentError("calibration file '" + file.string() +
                                      "': " + t.status().message());
  }
  return *std::move(t);
}

}  // namespace

absl::Status CheckCalibrationBatch(const CalibrationBatch& batch, const ir::Graph& g,
                                   const std::string& source) {
  if (batch.size() != g.params().size()) {
    return absl::InvalidArgumentError(source + " holds " + std::to_string(batch.size()) +
                                      " arrays, but the signature takes " +
                                      std::to_string(g.params().size()) + " inputs");
  }
  for (size_t i = 0; i < batch.size(); ++i) {
    const ir::TensorType& want = g.type(g.param(static_cast<int>(i)));
    const ConstTensor& t = batch[i];
    bool fits = t.dtype == want.dtype && t.shape.rank() == want.shape.rank();
    for (int d = 0; fits && d < t.shape.rank(); ++d) {
      fits = !want.shape[d].is_static() || want.shape[d].value() == t.shape[d];
    }
    if (!fits) {
      return absl::InvalidArgumentError(source + ": input " + Expected(g, static_cast<int>(i)) +
                                        " was given " +
                                        TypeToString(static_cast<int>(t.dtype), t.shape) +
                                        "; save arrays of that dtype and shape");
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<CalibrationBatch>> ReadCalibrationFolder(const std::string& dir,
                                                                    const ir::Graph& g) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return absl::InvalidArgumentError("calibration folder '" + dir + "' is not a directory");
  }
  std::vector<CalibrationBatch> batches;
  const std::vector<fs::path> files = Entries(dir, /*directories=*/false);
  if (!files.empty()) {
    if (g.params().size() != 1) {
      return absl::InvalidArgumentError(
          "calibration folder '" + dir + "' holds .npy files, but the signature takes " +
          std::to_string(g.params().size()) +
          " inputs: make one subdirectory per batch with one <input name>.npy per input");
    }
    for (const fs::path& f : files) {
      absl::StatusOr<ConstTensor> t = Read(f);
      if (!t.ok()) return t.status();
      batches.push_back({*std::move(t)});
      absl::Status st = CheckCalibrationBatch(batches.back(), g, "'" + f.string() + "'");
      if (!st.ok()) return st;
    }
    return batches;
  }
  for (const fs::path& sub : Entries(dir, /*directories=*/true)) {
    CalibrationBatch batch;
    for (size_t i = 0; i < g.params().size(); ++i) {
      const fs::path f = sub / (g.param_names()[i] + ".npy");
      if (!fs::is_regular_file(f, ec)) {
        return absl::InvalidArgumentError("calibration batch '" + sub.string() + "' has no " +
                                          f.filename().string() + " for input " +
                                          Expected(g, static_cast<int>(i)));
      }
      absl::StatusOr<ConstTensor> t = Read(f);
      if (!t.ok()) return t.status();
      batch.push_back(*std::move(t));
    }
    absl::Status st = CheckCalibrationBatch(batch, g, "'" + sub.string() + "'");
    if (!st.ok()) return st;
    batches.push_back(std::move(batch));
  }
  if (batches.empty()) {
    return absl::InvalidArgumentError("calibration folder '" + dir +
                                      "' holds no .npy files and no batch subdirectories");
  }
  return batches;
}

}  // namespace tfn::quantizer
