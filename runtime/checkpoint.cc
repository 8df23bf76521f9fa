// Checkpoint files (checkpoint.h) and Session::SaveCheckpoint /
// RestoreCheckpoint. Its own object file, so an app that never saves or
// restores links none of it.
#include "runtime/checkpoint.h"

#include <cstring>

#include "core/atomic_file.h"
#include "runtime/c_api_internal.h"
#include "runtime/mapped_file.h"
#include "runtime/program.h"
#include "runtime/runtime.h"
#include "runtime/variables.h"
#include "schema/bundle_header.h"

namespace tfn::runtime {
namespace {

constexpr char kMagic[8] = {'T', 'F', 'N', 'C', 'K', 'P', 'T', '1'};

template <class T>
void Put(std::string* out, T v) {
  out->append(reinterpret_cast<const char*>(&v), sizeof(T));
}

// Reads from a byte range, every size checked against what is left.
struct Reader {
  const char* at;
  uint64_t left;
  bool Take(void* out, uint64_t n) {
    if (n > left) return false;
    std::memcpy(out, at, n);
    at += n;
    left -= n;
    return true;
  }
  const char* Skip(uint64_t n) {
    if (n > left) return nullptr;
    const char* p = at;
    at += n;
    left -= n;
    return p;
  }
};

}  // namespace

std::string SerializeCheckpoint(const std::vector<NamedTensor>& variables) {
  std::string out(kMagic, sizeof(kMagic));
  Put<uint32_t>(&out, static_cast<uint32_t>(variables.size()));
  for (const NamedTensor& v : variables) {
    Put<uint32_t>(&out, static_cast<uint32_t>(v.name.size()));
    out += v.name;
    Put<int32_t>(&out, static_cast<int32_t>(v.value.dtype));
    Put<uint32_t>(&out, static_cast<uint32_t>(v.value.shape.rank()));
    for (int64_t d : v.value.shape) Put<int64_t>(&out, d);
    const uint64_t bytes = static_cast<uint64_t>(v.value.byte_size());
    Put<uint64_t>(&out, bytes);
    out.append(static_cast<const char*>(v.value.data), bytes);
  }
  Put<uint64_t>(&out, schema::Hash64(out.data(), out.size()));
  return out;
}

Result<std::vector<NamedTensor>> ParseCheckpoint(const void* bytes, uint64_t size) {
  const char* base = static_cast<const char*>(bytes);
  if (size < sizeof(kMagic) + 12 || std::memcmp(base, kMagic, sizeof(kMagic)) != 0) {
    return InvalidArgument("not a tfn checkpoint (it does not start with \"TFNCKPT1\", or is " +
                           std::to_string(size) + " bytes)");
  }
  uint64_t stored = 0;
  std::memcpy(&stored, base + size - 8, 8);
  if (schema::Hash64(base, size - 8) != stored) {
    return DataLoss(
        "the checkpoint is corrupt or truncated (its checksum does not match); "
        "write it again or use an older copy");
  }
  Reader r{base + sizeof(kMagic), size - sizeof(kMagic) - 8};
  uint32_t count = 0;
  r.Take(&count, 4);
  std::vector<NamedTensor> out;
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t name_size = 0, rank = 0;
    int32_t dtype = 0;
    uint64_t nbytes = 0;
    NamedTensor t;
    const char* name = nullptr;
    if (!r.Take(&name_size, 4) || !(name = r.Skip(name_size)) || !r.Take(&dtype, 4) ||
        !r.Take(&rank, 4) || rank > static_cast<uint32_t>(kMaxRank)) {
      return DataLoss("checkpoint variable " + std::to_string(i) + ": a bad header");
    }
    t.name.assign(name, name_size);
    std::vector<int64_t> dims(rank);
    for (uint32_t d = 0; d < rank; ++d) {
      if (!r.Take(&dims[d], 8) || dims[d] < 0) {
        return DataLoss("checkpoint variable '" + t.name + "': a bad shape");
      }
    }
    int64_t count_elems = 0, want = 0;
    if (!IsValidDType(dtype) || !CheckedNumElements(Shape(dims), &count_elems) ||
        __builtin_mul_overflow(count_elems,
                               static_cast<int64_t>(DTypeSize(static_cast<DType>(dtype))), &want) ||
        !r.Take(&nbytes, 8) || nbytes != static_cast<uint64_t>(want)) {
      return DataLoss("checkpoint variable '" + t.name + "': its dtype, shape and size disagree");
    }
    const char* data = r.Skip(nbytes);
    if (!data) return DataLoss("checkpoint variable '" + t.name + "' is truncated");
    t.value.dtype = static_cast<DType>(dtype);
    t.value.shape = Shape(dims);
    t.value.data = data;
    out.push_back(std::move(t));
  }
  if (r.left != 0) return DataLoss("the checkpoint has bytes after its last variable");
  return out;
}

}  // namespace tfn::runtime

namespace tfn::runtime {

Status Session::SaveCheckpoint(const std::string& path) const {
  std::vector<NamedTensor> vars;
  const std::vector<VariableInfo>& infos = bundle_->module()->variables;
  for (size_t i = 0; i < infos.size(); ++i) vars.push_back({infos[i].name, variables_[i]->Read()});
  return WriteFileAtomically(path, SerializeCheckpoint(vars))
      .WithContext("saving checkpoint '" + path + "'");
}

Status Session::RestoreCheckpoint(const std::string& path) {
  Result<std::shared_ptr<const MappedFile>> file = ReadFile(path);
  if (!file.ok()) return file.status().WithContext("restoring checkpoint '" + path + "'");
  Result<std::vector<NamedTensor>> parsed = ParseCheckpoint((*file)->data, (*file)->size);
  if (!parsed.ok()) return parsed.status().WithContext("restoring checkpoint '" + path + "'");
  // Everything is checked before any variable changes: a failed restore
  // leaves the session as it was.
  const std::vector<VariableInfo>& infos = bundle_->module()->variables;
  std::vector<const NamedTensor*> match(infos.size(), nullptr);
  for (const NamedTensor& t : *parsed) {
    size_t i = 0;
    while (i < infos.size() && infos[i].name != t.name) ++i;
    if (i == infos.size()) {
      return InvalidArgument("checkpoint '" + path + "' has variable '" + t.name +
                             "', which this bundle does not; it was saved from another model");
    }
    if (t.value.dtype != variables_[i]->dtype() || t.value.shape != variables_[i]->shape()) {
      return InvalidArgument(
          "checkpoint '" + path + "': variable '" + t.name + "' is " +
          TypeToString(static_cast<int>(t.value.dtype), t.value.shape) + " there and " +
          TypeToString(static_cast<int>(variables_[i]->dtype()), variables_[i]->shape()) +
          " in this bundle; it was saved from another model");
    }
    match[i] = &t;
  }
  for (size_t i = 0; i < infos.size(); ++i) {
    if (!match[i]) {
      return InvalidArgument("checkpoint '" + path + "' lacks variable '" + infos[i].name +
                             "' of this bundle; it was saved from another model");
    }
  }
  for (size_t i = 0; i < infos.size(); ++i) {
    TFN_RETURN_IF_ERROR(variables_[i]->Assign(match[i]->value));
  }
  return Status::Ok();
}

}  // namespace tfn::runtime

// The C API's checkpoint functions (tfn_runtime.h), here so that apps link
// them only when they call them.
extern "C" TfnRtStatus tfn_rt_session_save_checkpoint(const TfnRtSession* session, const char* path,
                                                      char* error, size_t error_size) {
  using tfn::runtime::c_api::Report;
  if (!session || !path) {
    return Report(tfn::InvalidArgument("session and path must not be NULL"), error, error_size);
  }
  return Report(session->session->SaveCheckpoint(path), error, error_size);
}

extern "C" TfnRtStatus tfn_rt_session_restore_checkpoint(TfnRtSession* session, const char* path,
                                                         char* error, size_t error_size) {
  using tfn::runtime::c_api::Report;
  if (!session || !path) {
    return Report(tfn::InvalidArgument("session and path must not be NULL"), error, error_size);
  }
  return Report(session->session->RestoreCheckpoint(path), error, error_size);
}
