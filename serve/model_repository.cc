// The model repository (model_repository.h): scanning REPO/NAME/VERSION/,
// loading versions beside the ones serving, and swapping them in.
#include "serve/model_repository.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "serve/datatype.h"
#include "serve/metrics.h"
#include "serve/model_config.h"

namespace tfn::serve {

struct ModelRepository::Model {
  std::string name;
  std::string dir;     // REPO/NAME, or "" for a single bundle
  std::string bundle;  // the single bundle's path
  std::string config_text;
  ModelOptions options;
  std::map<int64_t, std::shared_ptr<const ModelVersion>> loaded;
  std::map<int64_t, std::string> errors;        // versions that failed to load
  std::map<int64_t, std::string> failed_files;  // their bundles' FileStamp
  std::string error;                            // the model's own (config.json)

  std::string VersionPath(int64_t v) const {
    return dir.empty() ? bundle : dir + "/" + std::to_string(v) + "/model.tfn";
  }
};

namespace {

bool IsDir(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool IsFile(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d)) {
      const std::string n = e->d_name;
      if (n != "." && n != ".." && n[0] != '.') names.push_back(n);
    }
    ::closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Numeric subdirectories holding model.tfn, ascending.
std::vector<int64_t> Versions(const std::string& dir) {
  std::vector<int64_t> out;
  for (const std::string& n : ListDir(dir)) {
    if (n.empty() || n.size() > 18 || !std::all_of(n.begin(), n.end(), ::isdigit)) continue;
    if (IsFile(dir + "/" + n + "/model.tfn")) out.push_back(std::stoll(n));
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Size and modification time: a bundle that failed to load (e.g. still
// being copied) is tried again once either changes.
std::string FileStamp(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return "";
  return std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec);
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
  return s.empty() ? "none" : s;
}

}  // namespace

ModelRepository::~ModelRepository() = default;

Result<std::unique_ptr<ModelRepository>> ModelRepository::Open(const RepositoryOptions& options,
                                                               Metrics* metrics) {
  if (!options.repository.empty() && !IsDir(options.repository)) {
    return tfn::Status(StatusCode::kNotFound,
                       "model repository '" + options.repository +
                           "' is not a directory (expected REPO/NAME/VERSION/model.tfn)");
  }
  std::unique_ptr<ModelRepository> repo(new ModelRepository());
  repo->options_ = options;
  repo->metrics_ = metrics;
  for (const auto& [name, path] : options.bundles) {
    if (!IsFile(path)) {
      return tfn::Status(StatusCode::kNotFound, "model '" + name + "': bundle '" + path +
                                                    "' does not exist (expected a .tfn file)");
    }
    if (repo->models_.count(name)) {
      return tfn::Status(StatusCode::kInvalidArgument, "model '" + name + "' is named twice");
    }
    auto m = std::make_shared<Model>();
    m->name = name;
    m->bundle = path;
    m->options = options.defaults;
    repo->models_[name] = m;
  }
  (void)repo->Poll();
  return repo;
}

std::vector<std::string> ModelRepository::Poll() {
  std::vector<std::string> events;
  // Models: the named bundles plus every directory of the repository.
  std::vector<std::shared_ptr<Model>> models;
  std::set<std::string> in_repo;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!options_.repository.empty()) {
      for (const std::string& n : ListDir(options_.repository)) {
        if (!IsDir(options_.repository + "/" + n)) continue;
        in_repo.insert(n);
        if (!models_.count(n)) {
          auto m = std::make_shared<Model>();
          m->name = n;
          m->dir = options_.repository + "/" + n;
          m->options = options_.defaults;
          models_[n] = m;
        }
      }
      // A model directory that went away is unloaded.
      for (auto it = models_.begin(); it != models_.end();) {
        if (!it->second->dir.empty() && !in_repo.count(it->first)) {
          for (const auto& [v, unused] : it->second->loaded) {
            if (metrics_) metrics_->SetLoaded(it->first, std::to_string(v), false);
            events.push_back("unloaded " + it->first + " version " + std::to_string(v) +
                             " (its directory is gone)");
          }
          it = models_.erase(it);
        } else {
          ++it;
        }
      }
    }
    for (const auto& [n, m] : models_) models.push_back(m);
  }
  // Loading happens outside the lock: requests keep being served.
  for (const std::shared_ptr<Model>& m : models) PollModel(*m, &events);
  return events;
}

void ModelRepository::PollModel(Model& m, std::vector<std::string>* events) {
  // Only Poll writes a Model; it takes mu_ for what Find and Status read.
  auto set_error = [&](std::string error) {
    std::lock_guard<std::mutex> lock(mu_);
    m.error = std::move(error);
  };
  bool reload_all = false;
  if (!m.dir.empty()) {
    const std::string config_path = m.dir + "/config.json";
    const std::string text = IsFile(config_path) ? ReadText(config_path) : "";
    const bool first = m.loaded.empty() && m.errors.empty() && m.error.empty();
    if (text != m.config_text || first) {
      reload_all = text != m.config_text && !m.loaded.empty();
      m.config_text = text;
      Result<ModelOptions> parsed = text.empty()
                                        ? Result<ModelOptions>(options_.defaults)
                                        : ParseModelConfig(text, options_.defaults, config_path);
      if (!parsed.ok()) {
        set_error(parsed.status().message());
        events->push_back("model " + m.name + ": " + m.error + " (still serving what was loaded)");
        return;
      }
      set_error("");
      m.options = *parsed;
    } else if (!m.error.empty()) {
      return;  // config.json still broken and unchanged
    }
  }
  // The policy selects among the versions that load: a broken newest
  // version (corrupt, or still being copied) leaves the one before it
  // serving, as TF Serving's availability-preserving policy does.
  std::vector<int64_t> candidates;
  for (int64_t v : m.dir.empty() ? std::vector<int64_t>{1} : Versions(m.dir)) {
    auto failed = m.failed_files.find(v);
    const bool still_broken = failed != m.failed_files.end() &&
                              failed->second == FileStamp(m.VersionPath(v)) && !m.loaded.count(v);
    if (!still_broken) candidates.push_back(v);
  }
  std::map<int64_t, std::shared_ptr<const ModelVersion>> next, fresh;  // fresh: loaded now
  for (bool retry = true; retry;) {
    retry = false;
    next.clear();
    for (int64_t v : m.options.version_policy.Select(candidates)) {
      auto current = m.loaded.find(v);
      if (fresh.count(v)) {
        next[v] = fresh[v];
        continue;
      }
      if (current != m.loaded.end() && (!reload_all || m.failed_files.count(v))) {
        next[v] = current->second;  // kept (also when reloading it failed)
        continue;
      }
      const std::string path = m.VersionPath(v);
      const std::string stamp = FileStamp(path);
      Result<std::shared_ptr<const ModelVersion>> loaded =
          ModelVersion::Load(m.name, v, path, m.options, metrics_);
      std::lock_guard<std::mutex> lock(mu_);
      if (loaded.ok()) {
        next[v] = fresh[v] = *loaded;
        m.errors.erase(v);
        m.failed_files.erase(v);
        events->push_back("loaded " + m.name + " version " + std::to_string(v));
        continue;
      }
      m.errors[v] = loaded.status().message();
      m.failed_files[v] = stamp;
      events->push_back("failed to load " + m.name + " version " + std::to_string(v) + ": " +
                        loaded.status().message());
      if (current != m.loaded.end()) {
        next[v] = current->second;  // keep serving the old load
      } else {
        // Select again without it: the next version in line takes its place.
        candidates.erase(std::find(candidates.begin(), candidates.end(), v));
        retry = true;
        break;
      }
    }
  }
  std::map<int64_t, std::shared_ptr<const ModelVersion>> dropped;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [v, version] : m.loaded) {
      if (!next.count(v)) {
        events->push_back("unloaded " + m.name + " version " + std::to_string(v));
        dropped[v] = version;
      }
    }
    m.loaded.swap(next);
  }
  if (metrics_) {
    for (const auto& [v, unused] : dropped) metrics_->SetLoaded(m.name, std::to_string(v), false);
    for (const auto& [v, unused] : m.loaded) metrics_->SetLoaded(m.name, std::to_string(v), true);
  }
  // `dropped` and `next` (now the old map) release their versions here; a
  // request still running on one holds it until it ends.
}

Result<std::shared_ptr<const ModelVersion>> ModelRepository::Find(
    const std::string& model, const std::string& version) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = models_.find(model);
  if (it == models_.end()) {
    std::vector<std::string> names;
    for (const auto& [n, unused] : models_) names.push_back("'" + n + "'");
    return tfn::Status(StatusCode::kNotFound,
                       "no model named '" + model + "'; this server has " + Join(names));
  }
  const Model& m = *it->second;
  if (m.loaded.empty()) {
    std::string why = m.error;
    if (why.empty() && !m.errors.empty()) why = m.errors.rbegin()->second;
    return tfn::Status(
        StatusCode::kFailedPrecondition,
        "model '" + model + "' has no version loaded" + (why.empty() ? "" : ": " + why));
  }
  if (version.empty()) return m.loaded.rbegin()->second;
  char* end = nullptr;
  const long long v = std::strtoll(version.c_str(), &end, 10);
  auto found = *end == '\0' ? m.loaded.find(v) : m.loaded.end();
  if (found == m.loaded.end()) {
    std::vector<std::string> have;
    for (const auto& [n, unused] : m.loaded) have.push_back(std::to_string(n));
    return tfn::Status(StatusCode::kNotFound, "model '" + model + "' has no version '" + version +
                                                  "' loaded; loaded versions: " + Join(have));
  }
  return found->second;
}

Result<ModelMetadata> ModelRepository::Metadata(const std::string& model,
                                                const std::string& version) const {
  TFN_ASSIGN_OR_RETURN(std::shared_ptr<const ModelVersion> v, Find(model, version));
  ModelMetadata md;
  md.name = model;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = models_.find(model);
    if (it != models_.end()) {
      for (const auto& [n, unused] : it->second->loaded) md.versions.push_back(std::to_string(n));
    }
  }
  auto tensors = [](const std::vector<runtime::TensorInfo>& infos) {
    std::vector<TensorMetadata> out;
    for (const runtime::TensorInfo& i : infos) {
      out.push_back({i.name, OipDatatype(i.dtype), i.shape.ToVector()});
    }
    return out;
  };
  std::vector<const runtime::SignatureInfo*> order = {v->FindSignature("")};
  for (const runtime::SignatureInfo& s : v->bundle().signatures()) {
    if (&s != order[0]) order.push_back(&s);
  }
  for (const runtime::SignatureInfo* s : order) {
    md.signatures.push_back({s->name, tensors(s->inputs), tensors(s->outputs)});
  }
  md.inputs = md.signatures[0].inputs;
  md.outputs = md.signatures[0].outputs;
  return md;
}

Result<std::vector<VersionStatus>> ModelRepository::ModelStatus(const std::string& model) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = models_.find(model);
  if (it == models_.end()) {
    return tfn::Status(StatusCode::kNotFound, "no model named '" + model + "'");
  }
  std::map<int64_t, VersionStatus> out;
  for (const auto& [v, unused] : it->second->loaded) out[v] = {v, "AVAILABLE", ""};
  for (const auto& [v, e] : it->second->errors) {
    if (!out.count(v)) out[v] = {v, "END", e};
  }
  std::vector<VersionStatus> list;
  for (auto& [v, s] : out) list.push_back(s);
  if (list.empty() && !it->second->error.empty()) list.push_back({0, "END", it->second->error});
  return list;
}

std::vector<std::string> ModelRepository::ModelNames() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> names;
  for (const auto& [n, unused] : models_) names.push_back(n);
  return names;
}

bool ModelRepository::AllLoaded() const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [n, m] : models_) {
    if (m->loaded.empty()) return false;
  }
  return true;
}

}  // namespace tfn::serve
